package motion_test

import (
	"fmt"
	"strings"

	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/skel"
)

// A two-joint BVH arm (file units of centimetres) is read, converted to a
// clip in metres, and its elbow followed through two frames.
func Example() {
	const src = `HIERARCHY
ROOT Shoulder
{
	OFFSET 0 140 0
	CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
	JOINT Elbow
	{
		OFFSET 30 0 0
		CHANNELS 3 Zrotation Yrotation Xrotation
		End Site
		{
			OFFSET 25 0 0
		}
	}
}
MOTION
Frames: 2
Frame Time: 0.5
0 140 0 0 0 0 0 0 0
10 140 0 90 0 0 0 0 0
`
	b, err := motion.Read(strings.NewReader(src), "arm.bvh")
	if err != nil {
		panic(err)
	}
	clip, err := b.Clip(0.01) // 1 file unit = 1 cm
	if err != nil {
		panic(err)
	}
	sk := clip.Skeleton
	elbow, _ := sk.Index("Elbow")
	hand, _ := sk.Index("Elbow_end")
	fmt.Printf("%d joints at %g fps, %.1f s\n", sk.NumJoints(), clip.FPS, clip.Duration())
	for f, p := range clip.Poses {
		w := skel.FK(sk, p, nil)
		fmt.Printf("frame %d: elbow %.2f hand %.2f\n", f, w[elbow].T, w[hand].T)
	}
	// Output:
	// 3 joints at 2 fps, 0.5 s
	// frame 0: elbow {0.30 1.40 0.00} hand {0.55 1.40 0.00}
	// frame 1: elbow {0.10 1.70 0.00} hand {0.10 1.95 0.00}
}

// A Z-up clip in centimetres with 3ds Max Biped names: ClipWith detects
// the unit and the axis and turns the clip +Y up; ParsePart reads the
// joint names.
func ExampleBVH_ClipWith() {
	const src = `HIERARCHY
ROOT Bip01 Pelvis
{
	OFFSET 0 0 95
	CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
	JOINT Bip01 L Thigh
	{
		OFFSET 9 0 -5
		CHANNELS 3 Zrotation Yrotation Xrotation
		JOINT Bip01 L Calf
		{
			OFFSET 0 0 -45
			CHANNELS 3 Zrotation Yrotation Xrotation
			JOINT Bip01 L Foot
			{
				OFFSET 0 0 -42
				CHANNELS 3 Zrotation Yrotation Xrotation
				End Site
				{
					OFFSET 0 -15 -3
				}
			}
		}
	}
	JOINT Bip01 Head
	{
		OFFSET 0 0 60
		CHANNELS 3 Zrotation Yrotation Xrotation
		End Site
		{
			OFFSET 0 0 20
		}
	}
}
MOTION
Frames: 1
Frame Time: 0.04
0 0 95 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
`
	b, err := motion.Read(strings.NewReader(src), "biped.bvh")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, info, err := b.ClipWith(motion.ClipOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("unit %s, up %v, %.2f m tall\n", info.UnitName, info.Up, info.Height)
	head, _ := c.Skeleton.Index("Bip01 Head")
	fmt.Printf("head at y = %.2f m\n", c.Skeleton.RestWorld()[head].T.Y)
	for _, jt := range b.Joints {
		p, _ := motion.ParsePart(jt.Name)
		fmt.Printf("%s: %v\n", jt.Name, p)
	}
	// Output:
	// unit cm, up z, 1.75 m tall
	// head at y = 1.55 m
	// Bip01 Pelvis: hips
	// Bip01 L Thigh: upleg.L
	// Bip01 L Calf: leg.L
	// Bip01 L Foot: foot.L
	// Bip01 Head: head
}
