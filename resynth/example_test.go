package resynth_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/resynth"
	"github.com/pleat-dev/pleat/skel"
)

// A shoulder swinging a square of cloth: the database holds one clip,
// and a motion that plays the clip's second half first is stitched from
// two segments of it.
func Example() {
	pose := func(f int) []geom.Rigid {
		a := 0.5 * math.Sin(float64(f)/5)
		root := geom.Rigid{R: geom.QuatIdentity()}
		shoulder := geom.Rigid{R: geom.QuatAxisAngle(geom.V(0, 0, 1), a)}
		hand := shoulder.Mul(geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, -1, 0)})
		return []geom.Rigid{root, shoulder, hand}
	}
	db := &resynth.DB{
		Rig: resynth.Rig{Names: []string{"root", "shoulder", "hand"}, Parents: []int32{-1, 0, 1}, Rest: pose(0)},
		Garment: resynth.Garment{
			Rest:    []geom.Vec3{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 0, Y: -1}, {X: 1, Y: -1}},
			Tris:    [][3]int32{{0, 2, 1}, {1, 2, 3}},
			Weights: skel.NewWeights([][]skel.Influence{{{Joint: 1, W: 1}}, {{Joint: 1, W: 1}}, {{Joint: 1, W: 1}}, {{Joint: 1, W: 1}}}),
		},
	}
	clip := resynth.Clip{Name: "swing", FPS: 30}
	for f := 0; f < 60; f++ {
		js := pose(f)
		x := make([]geom.Vec3, 4)
		for v, p := range db.Garment.Rest {
			x[v] = js[1].Apply(p)
		}
		clip.AppendFrame(js, x)
	}
	db.Clips = []resynth.Clip{clip}
	s, err := resynth.New(db, resynth.Options{Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	var motion [][]geom.Rigid
	for f := 30; f < 60; f++ {
		motion = append(motion, pose(f))
	}
	for f := 0; f < 30; f++ {
		motion = append(motion, pose(f))
	}
	res, err := s.Run(context.Background(), motion, 30, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _, _ := res.BlockStats()
	fmt.Printf("%d frames in %d blocks, first from %s frame %d\n", len(res.Frames), n, res.Steps[0].Clip, res.Steps[0].Frame)
	// Output: 60 frames in 2 blocks, first from swing frame 30
}
