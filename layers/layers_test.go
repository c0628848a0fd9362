package layers

import (
	"context"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

func smallScene(t testing.TB, motion string) *scene.Scene {
	t.Helper()
	s, err := scene.Load(scene.Spec{Motion: motion, Seconds: 1, FPS: 30, Resolution: 800})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCatenaryGap(t *testing.T) {
	r := 0.05
	prev := -1.0
	for _, d0 := range []float64{0, 0.005, 0.01, 0.02, 0.05, 0.1} {
		g := catenaryGap(r, d0)
		if !(g >= 0) || math.IsInf(g, 0) || g <= prev {
			t.Errorf("catenaryGap(%g, %g) = %g: want finite, positive, growing with d0 (previous %g)", r, d0, g, prev)
		}
		prev = g
	}
	// slack-free cloth (arc = half circumference) still clears the limb's
	// bottom: Eq. 16 gives −C ≈ 0.09 r
	if g := catenaryGap(r, 0); math.Abs(g/r-0.09) > 0.02 {
		t.Errorf("catenaryGap(r, 0) = %.4f r, want about 0.09 r", g/r)
	}
	for _, bad := range [][2]float64{{0, 0.01}, {-1, 0.01}, {0.05, math.NaN()}, {0.05, math.Inf(1)}} {
		if g := catenaryGap(bad[0], bad[1]); g != 0 {
			t.Errorf("catenaryGap(%v) = %g, want 0", bad, g)
		}
	}
}

func TestSphereDiameter(t *testing.T) {
	g := geom.V(0, -9.81, 0)
	for _, c := range []struct {
		name string
		n    geom.Vec3
		want float64
	}{
		{"hanging side (normal along gravity)", geom.V(0, -1, 0), 0.02},
		{"limb side (normal across gravity)", geom.V(1, 0, 0), 0},
		{"top (cloth pressed on the skin)", geom.V(0, 1, 0), 0},
		{"45°", geom.V(0, -1, 1).Unit(), 0.01},
	} {
		if d := sphereDiameter(0.02, c.n, g); math.Abs(d-c.want) > 1e-12 {
			t.Errorf("%s: diameter %g, want %g", c.name, d, c.want)
		}
	}
	if d := sphereDiameter(0.02, geom.V(0, -1, 0), geom.Vec3{}); d != 0 {
		t.Errorf("no acceleration: %g, want 0", d)
	}
}

func TestClassifyProcedural(t *testing.T) {
	s := smallScene(t, "walk")
	a, err := New(s.Character, s.Garments, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := a.Classification().Counts()
	if n[Floating] != 0 || n[Tight] == 0 || n[Tight]+n[Loose] != a.NumVerts() {
		t.Errorf("procedural suit (shirt, trousers): counts %v, want tight and loose only", n)
	}
	if len(a.Capsules()) != 4 {
		t.Errorf("%d leg capsules, want 4", len(a.Capsules()))
	}
	// forcing the trousers floating floats them, held by their waistband
	var trousers string
	for _, g := range s.Garments {
		if g.Mesh.Verts[0].Y < 0.9 || trousers == "" {
			trousers = g.Name
		}
	}
	b, err := New(s.Character, s.Garments, Options{Groups: map[string]Layer{trousers: Floating}})
	if err != nil {
		t.Fatal(err)
	}
	c := b.Classification()
	pinned := 0
	for _, p := range c.Pinned {
		if p {
			pinned++
		}
	}
	if c.Counts()[Floating] == 0 || pinned == 0 {
		t.Errorf("%s forced floating: counts %v, %d pinned; want floating vertices held by some", trousers, c.Counts(), pinned)
	}
}

func TestStepDeterministic(t *testing.T) {
	s := smallScene(t, "walk")
	var trousers string
	for _, g := range s.Garments {
		trousers = g.Name
	}
	opt := Options{Groups: map[string]Layer{trousers: Floating}, Settle: 0.1}
	run := func() [][]geom.Vec3 {
		a, err := New(s.Character, s.Garments, opt)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]geom.Vec3
		for f := 0; f < 10; f++ {
			x, err := a.Step(s.Clip.Poses[f], nil)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, x)
		}
		return out
	}
	x, y := run(), run()
	for f := range x {
		for v := range x[f] {
			if x[f][v] != y[f][v] {
				t.Fatalf("frame %d vertex %d: %v then %v", f, v, x[f][v], y[f][v])
			}
			if !x[f][v].IsFinite() {
				t.Fatalf("frame %d vertex %d: %v", f, v, x[f][v])
			}
		}
	}
}

func TestStepErrors(t *testing.T) {
	s := smallScene(t, "walk")
	a, err := New(s.Character, s.Garments, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk := s.Character.Skeleton
	short := skel.Pose{Rot: make([]geom.Quat, sk.NumJoints()-1)}
	nanRoot := skel.RestPose(sk)
	nanRoot.Root.X = math.NaN()
	zeroRot := skel.RestPose(sk)
	zeroRot.Rot[2] = geom.Quat{}
	for name, p := range map[string]skel.Pose{"short": short, "NaN root": nanRoot, "zero rotation": zeroRot} {
		if _, err := a.Step(p, nil); err == nil {
			t.Errorf("%s pose: no error", name)
		}
	}
	for name, o := range map[string]Options{
		"FPS":       {FPS: -5},
		"LooseDist": {TightDist: 0.03, LooseDist: 0.02},
		"Density":   {Density: math.NaN()},
		"Gravity":   {Gravity: geom.V(0, math.Inf(-1), 0)},
	} {
		if _, err := New(s.Character, s.Garments, o); err == nil {
			t.Errorf("bad %s: no error", name)
		}
	}
	if _, err := New(s.Character, nil, Options{}); err == nil {
		t.Error("no garments: no error")
	}
	if _, err := New(nil, s.Garments, Options{}); err == nil {
		t.Error("no character: no error")
	}
}

// TestSkirtSwings checks, on the MakeHuman blouse and skirt, that the skirt
// is classified floating and moves off the skinned skirt during the walk
// while staying out of the leg capsules.
func TestSkirtSwings(t *testing.T) {
	s := makehumanScene(t, "female_elegantsuit01", "", 1)
	r, err := Run(context.Background(), s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Animator
	c := a.Classification()
	n := c.Counts()
	if n[Floating] < 100 {
		t.Fatalf("counts %v: want the skirt floating", n)
	}
	var skin []geom.Rigid
	var tight []geom.Vec3
	dev, cnt := 0.0, 0
	for f, x := range r.Frames {
		skin = skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[f], skin)
		tight = skel.LBS(a.outfit.Verts, a.weights, skin, tight)
		for v, p := range x {
			if !p.IsFinite() {
				t.Fatalf("frame %d vertex %d: %v", f, v, p)
			}
			if c.Float[v] == 1 {
				dev += p.Dist(tight[v])
				cnt++
			}
		}
	}
	dev /= float64(cnt)
	if dev < 0.005 || dev > 0.15 {
		t.Errorf("floating vertices %.1f mm from skinning on average: want them to move (5-150 mm)", dev*1000)
	}
	t.Logf("counts %v; floating vertices %.1f mm from skinning on average", n, dev*1000)
}
