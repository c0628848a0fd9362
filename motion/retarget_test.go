package motion

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// tposeSource is a small T-pose rig with identity rest rotations, as
// BVH.Clip makes: arm along +X, leg down.
func tposeSource(t *testing.T) *skel.Skeleton {
	t.Helper()
	id := geom.QuatIdentity()
	j := func(name string, parent int, x, y, z float64) skel.Joint {
		return skel.Joint{Name: name, Parent: parent, Rest: geom.Rigid{R: id, T: geom.V(x, y, z)}}
	}
	sk, err := skel.NewSkeleton([]skel.Joint{
		j("Hips", -1, 0, 1, 0),
		j("Spine", 0, 0, 0.3, 0),
		j("LeftArm", 1, 0.2, 0.2, 0),
		j("LeftForeArm", 2, 0.3, 0, 0),
		j("LeftHand", 3, 0.25, 0, 0),
		j("LeftUpLeg", 0, 0.1, -0.05, 0),
		j("LeftFoot", 5, 0, -0.9, 0.02),
	})
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// aposeTarget is the same rig as bones (Blender convention, so rest
// rotations are not the identity) with the arm 50° below horizontal,
// slightly different proportions, and an extra unmatched finger bone.
func aposeTarget(t *testing.T) *skel.Skeleton {
	t.Helper()
	a := 50 * math.Pi / 180
	down := geom.V(math.Cos(a), -math.Sin(a), 0)
	sh := geom.V(0.2, 1.48, 0)
	el := sh.Add(down.Scale(0.28))
	wr := el.Add(down.Scale(0.24))
	sk, err := skel.FromBones([]skel.Bone{
		{Name: "Hips", Head: geom.V(0, 0.95, 0), Tail: geom.V(0, 1.23, 0.01)},
		{Name: "Spine", Parent: "Hips", Head: geom.V(0, 1.23, 0), Tail: geom.V(0, 1.45, 0)},
		{Name: "LeftArm", Parent: "Spine", Head: sh, Tail: el, Roll: 0.4},
		{Name: "LeftForeArm", Parent: "LeftArm", Head: el, Tail: wr, Roll: -0.2, Kind: skel.Hinge},
		{Name: "LeftHand", Parent: "LeftForeArm", Head: wr, Tail: wr.Add(down.Scale(0.1))},
		{Name: "LeftFinger", Parent: "LeftHand", Head: wr.Add(down.Scale(0.1)), Tail: wr.Add(down.Scale(0.15))},
		{Name: "LeftUpLeg", Parent: "Hips", Head: geom.V(0.1, 0.9, 0), Tail: geom.V(0.1, 0.045, 0.019)},
		{Name: "LeftFoot", Parent: "LeftUpLeg", Head: geom.V(0.1, 0.045, 0.019), Tail: geom.V(0.1, 0, 0.15)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// checkBones compares, for every bone (joint → child) named in both
// skeletons, the posed world directions.
func checkBones(t *testing.T, src, dst *Clip, eps float64) {
	t.Helper()
	var ws, wd []geom.Rigid
	worst := 0.0
	for f := range src.Poses {
		ws = skel.FK(src.Skeleton, src.Poses[f], ws)
		wd = skel.FK(dst.Skeleton, dst.Poses[f], wd)
		for c := range src.Skeleton.NumJoints() {
			p := src.Skeleton.Parent(c)
			if p < 0 {
				continue
			}
			dp, ok1 := dst.Skeleton.Index(src.Skeleton.Joint(p).Name)
			dc, ok2 := dst.Skeleton.Index(src.Skeleton.Joint(c).Name)
			bs := ws[c].T.Sub(ws[p].T)
			if !ok1 || !ok2 || bs.Len() < 1e-9 {
				continue
			}
			bd := wd[dc].T.Sub(wd[dp].T)
			d := bs.Unit().Dist(bd.Unit())
			worst = max(worst, d)
			if d > eps {
				t.Fatalf("frame %d bone %s→%s: direction %v, want %v (off by %g)",
					f, src.Skeleton.Joint(p).Name, src.Skeleton.Joint(c).Name, bd.Unit(), bs.Unit(), d)
			}
		}
	}
	t.Logf("worst bone direction error %.3g", worst)
}

func TestRetargetTPoseToAPose(t *testing.T) {
	src, dst := tposeSource(t), aposeTarget(t)
	arm, _ := src.Index("LeftArm")
	fore, _ := src.Index("LeftForeArm")
	z := geom.V(0, 0, 1)

	// Raise the arm 90° (from +X to +Y) and bend the elbow 30°.
	p := skel.RestPose(src)
	p.Rot[arm] = geom.QuatAxisAngle(z, math.Pi/2)
	p.Rot[fore] = geom.QuatAxisAngle(geom.V(0, 1, 0), -math.Pi/6)
	p.Root = geom.V(0.5, 0.1, 0)
	c := &Clip{Skeleton: src, FPS: 30, Poses: []skel.Pose{skel.RestPose(src), p}}
	rnd := rand.New(rand.NewPCG(1, 3))
	for range 30 {
		q := skel.RestPose(src)
		for j := range q.Rot {
			q.Rot[j] = randomQuat(rnd)
		}
		c.Poses = append(c.Poses, q)
	}
	r, err := Retarget(c, dst, RetargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkBones(t, c, r, 1e-9)

	w := skel.FK(dst, r.Poses[1], nil)
	ta, _ := dst.Index("LeftArm")
	tf, _ := dst.Index("LeftForeArm")
	if d := w[tf].T.Sub(w[ta].T).Unit(); !nearVec(d, geom.V(0, 1, 0), 1e-9) {
		t.Errorf("raised arm points %v, want +Y", d)
	}
	// The rest source pose gives the target a T-pose: arm horizontal.
	w = skel.FK(dst, r.Poses[0], nil)
	if d := w[tf].T.Sub(w[ta].T).Unit(); !nearVec(d, geom.V(1, 0, 0), 1e-9) {
		t.Errorf("rest arm points %v, want +X", d)
	}
	// The unmatched finger follows the hand rigidly.
	th, _ := dst.Index("LeftHand")
	tfi, _ := dst.Index("LeftFinger")
	if r.Poses[0].Rot[tfi] != geom.QuatIdentity() {
		t.Errorf("unmatched joint rotated: %v", r.Poses[0].Rot[tfi])
	}
	if d := w[tfi].T.Sub(w[th].T).Unit(); !nearVec(d, geom.V(1, 0, 0), 1e-9) {
		t.Errorf("finger points %v", d)
	}
	// Root: leg-length ratio k = hip height over the foot, target/source.
	rw, dw := src.RestWorld(), dst.RestWorld()
	k := (dw[0].T.Y - dw[7].T.Y) / (rw[0].T.Y - rw[6].T.Y)
	if want := p.Root.Scale(k); !nearVec(r.Poses[1].Root, want, 1e-12) {
		t.Errorf("root %v, want %v (k = %g)", r.Poses[1].Root, want, k)
	}
}

func TestRetargetGround(t *testing.T) {
	src, dst := tposeSource(t), aposeTarget(t)
	c := &Clip{Skeleton: src, FPS: 30}
	for f := range 10 {
		p := skel.RestPose(src)
		p.Root = geom.V(0, 0.1*math.Sin(float64(f)), 0)
		p.Rot[5] = geom.QuatAxisAngle(geom.V(1, 0, 0), 0.1*float64(f))
		c.Poses = append(c.Poses, p)
	}
	foot, _ := dst.Index("LeftFoot")
	lowest := func(r *Clip, f int) float64 {
		return skel.FK(dst, r.Poses[f], nil)[foot].T.Y - 0.05
	}
	r, err := Retarget(c, dst, RetargetOptions{Ground: GroundFrame, Sole: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for f := range r.Poses {
		if l := lowest(r, f); math.Abs(l) > 1e-12 {
			t.Errorf("glued frame %d: lowest point %g", f, l)
		}
	}
	free, err := Retarget(c, dst, RetargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err = Retarget(c, dst, RetargetOptions{Ground: GroundClip, Sole: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	lo := math.Inf(1)
	for f := range r.Poses {
		lo = min(lo, lowest(r, f))
		if d := (r.Poses[f].Root.Y - free.Poses[f].Root.Y) - (r.Poses[0].Root.Y - free.Poses[0].Root.Y); math.Abs(d) > 1e-12 {
			t.Errorf("clip grounding not constant at frame %d", f)
		}
	}
	if math.Abs(lo) > 1e-12 {
		t.Errorf("clip lowest point %g", lo)
	}
	// A Lowest callback replaces the foot estimate.
	r, err = Retarget(c, dst, RetargetOptions{Ground: GroundFrame, Lowest: func(f int, p skel.Pose) float64 {
		return skel.FK(dst, p, nil)[0].T.Y // put the hips on the floor
	}})
	if err != nil {
		t.Fatal(err)
	}
	if y := skel.FK(dst, r.Poses[3], nil)[0].T.Y; math.Abs(y) > 1e-12 {
		t.Errorf("hips at %g", y)
	}
}

func TestRetargetErrors(t *testing.T) {
	src, dst := tposeSource(t), aposeTarget(t)
	c := &Clip{Skeleton: src, FPS: 30, Poses: []skel.Pose{skel.RestPose(src)}}
	renamed, err := c.Rename(NameMap{"Spine": "Chest", "LeftHand": "lhand"}, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Retarget(renamed, dst, RetargetOptions{Strict: true})
	var ue *UnknownJointsError
	if !errors.As(err, &ue) || len(ue.Names) != 2 || ue.Names[0] != "Chest" || ue.Names[1] != "lhand" {
		t.Errorf("strict: %v", err)
	}
	// The name map fixes it.
	if _, err := Retarget(renamed, dst, RetargetOptions{Strict: true, Names: NameMap{"Chest": "Spine", "lhand": "LeftHand"}}); err != nil {
		t.Error(err)
	}
	if _, err := Retarget(c, dst, RetargetOptions{Feet: []string{"nope"}}); err == nil {
		t.Error("unknown foot accepted")
	}
	other, _ := skel.NewSkeleton([]skel.Joint{{Name: "x", Parent: -1, Rest: geom.RigidIdentity()}})
	if _, err := Retarget(c, other, RetargetOptions{}); err == nil {
		t.Error("no common joints accepted")
	}
	if _, err := Retarget(c, dst, RetargetOptions{Feet: []string{}}); err == nil {
		t.Error("leg ratio without feet accepted")
	}
	if _, err := Retarget(c, dst, RetargetOptions{Feet: []string{}, RootScale: 1}); err != nil {
		t.Error(err)
	}
}

// aposeCopy returns sk with both upper arms turned 50° down in their rest
// orientation (so the whole arm chain moves): an A-pose version of a CMU
// skeleton.
func aposeCopy(t *testing.T, sk *skel.Skeleton) *skel.Skeleton {
	t.Helper()
	js := sk.Joints()
	z := geom.V(0, 0, 1)
	for j := range js {
		switch js[j].Name {
		case "LeftArm":
			js[j].Rest.R = geom.QuatAxisAngle(z, -50*math.Pi/180)
		case "RightArm":
			js[j].Rest.R = geom.QuatAxisAngle(z, 50*math.Pi/180)
		}
	}
	out, err := skel.NewSkeleton(js)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRetargetWalkAPose(t *testing.T) {
	c := walkClip(t)
	dst := aposeCopy(t, c.Skeleton)
	rw := dst.RestWorld()
	la, _ := dst.Index("LeftArm")
	lf, _ := dst.Index("LeftForeArm")
	if d := rw[lf].T.Sub(rw[la].T).Unit(); d.Y > -0.6 {
		t.Fatalf("copy is not an A-pose: upper arm %v", d)
	}
	r, err := Retarget(c, dst, RetargetOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	checkBones(t, c, r, 1e-9)
	// Same legs: the root moves as in the source.
	for f := range c.Poses {
		if !nearVec(r.Poses[f].Root, c.Poses[f].Root, 1e-12) {
			t.Fatalf("frame %d root %v, want %v", f, r.Poses[f].Root, c.Poses[f].Root)
		}
	}
	// Clip grounding: the lowest foot joint over the clip is at y = 0 and
	// no frame lifts both feet far off the floor (heel strikes leave the
	// lowest joint, the ankle or toe, a few centimetres up).
	walk, err := DropTPose(c) // frame 0 is the added T-pose
	if err != nil {
		t.Fatal(err)
	}
	g, err := Retarget(walk, dst, RetargetOptions{Ground: GroundClip})
	if err != nil {
		t.Fatal(err)
	}
	var feet []int
	for _, n := range []string{"LeftFoot", "LeftToeBase", "LeftToeBase_end", "RightFoot", "RightToeBase", "RightToeBase_end"} {
		j, _ := dst.Index(n)
		feet = append(feet, j)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var w []geom.Rigid
	for _, p := range g.Poses {
		w = skel.FK(dst, p, w)
		l := math.Inf(1)
		for _, j := range feet {
			l = min(l, w[j].T.Y)
		}
		lo, hi = min(lo, l), max(hi, l)
	}
	t.Logf("clip grounding: lowest foot joint per frame in [%.4f, %.4f] m", lo, hi)
	if lo < -1e-12 || hi > 0.15 {
		t.Errorf("lowest foot joint per frame in [%g, %g] m", lo, hi)
	}
}

func BenchmarkRetarget(b *testing.B) {
	c := walkClip(b)
	js := c.Skeleton.Joints()
	js[20].Rest.R = geom.QuatAxisAngle(geom.V(0, 0, 1), -0.8)
	dst, err := skel.NewSkeleton(js)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Retarget(c, dst, RetargetOptions{Ground: GroundFrame}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.Poses)), "ns/frame")
}
