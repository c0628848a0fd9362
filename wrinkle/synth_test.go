package wrinkle

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

func TestRotInterp(t *testing.T) {
	c := geom.V(0.1, 1, -0.2)
	axis := geom.V(0.3, -1, 0.5).Unit()
	perp := axis.AnyPerp()
	tests := []struct {
		name           string
		off            geom.Vec3 // from c
		th0, th1       float64
		r0, r1         float64 // radii scale at the two ends
		t              float64
		exactRotation  bool // Eq. 1 equals the rotation about axis (off ⟂ axis)
		exactScrewOnly bool // only Eqs. 2-3 reproduce the rotation (off has an axial part)
	}{
		{"perpendicular quarter", perp.Scale(0.3), 0, math.Pi / 2, 1, 1, 0.25, true, false},
		{"perpendicular, growing radius", perp.Scale(0.3), 0.2, 0.7, 1, 1.5, 0.6, true, false},
		{"axial offset", perp.Scale(0.2).Add(axis.Scale(0.1)), -0.4, 0.5, 1, 1, 0.5, false, true},
	}
	for _, tc := range tests {
		p0 := c.Add(geom.QuatAxisAngle(axis, tc.th0).Rotate(tc.off.Scale(tc.r0)))
		p1 := c.Add(geom.QuatAxisAngle(axis, tc.th1).Rotate(tc.off.Scale(tc.r1)))
		r := (1-tc.t)*tc.r0 + tc.t*tc.r1
		want := c.Add(geom.QuatAxisAngle(axis, (1-tc.t)*tc.th0+tc.t*tc.th1).Rotate(tc.off.Scale(r)))
		got := rotInterp(c, p0, p1, tc.t)
		if tc.exactRotation && got.Dist(want) > 1e-12 {
			t.Errorf("%s: Eq. 1 gives %v, rotation %v", tc.name, got, want)
		}
		// Eq. 1 keeps the distance to the centre linear: no shrinking.
		if d, w := got.Dist(c), (1-tc.t)*p0.Dist(c)+tc.t*p1.Dist(c); math.Abs(d-w) > 1e-12 {
			t.Errorf("%s: Eq. 1 distance %v, want %v", tc.name, d, w)
		}
		if tc.exactScrewOnly {
			if g := screwInterp(c, axis, p0, p1, tc.t); g.Dist(want) > 1e-12 {
				t.Errorf("%s: Eqs. 2-3 give %v, rotation %v", tc.name, g, want)
			}
			if got.Dist(want) < 1e-6 {
				t.Errorf("%s: Eq. 1 unexpectedly exact", tc.name)
			}
		}
		for _, f := range []func(float64) geom.Vec3{
			func(t float64) geom.Vec3 { return rotInterp(c, p0, p1, t) },
			func(t float64) geom.Vec3 { return screwInterp(c, axis, p0, p1, t) },
		} {
			if f(0) != p0 || f(1) != p1 {
				t.Errorf("%s: ends not exact", tc.name)
			}
		}
	}
	// Degenerate inputs stay finite.
	for _, p := range []geom.Vec3{c, c.Add(axis.Scale(0.2))} {
		if g := rotInterp(c, p, p, 0.5); !g.IsFinite() || g.Dist(p) > 1e-15 {
			t.Errorf("rotInterp degenerate: %v", g)
		}
		if g := screwInterp(c, axis, p, p.Add(axis.Scale(0.1)), 0.5); !g.IsFinite() {
			t.Errorf("screwInterp degenerate: %v", g)
		}
	}
}

func TestLocate(t *testing.T) {
	r := Range{MinDeg: -30, MaxDeg: 60, StepDeg: 30}
	tests := []struct {
		x       float64
		i       int
		t       float64
		clamped bool
	}{
		{-40 * deg, 0, 0, true},
		{-30 * deg, 0, 0, false},
		{-15 * deg, 0, 0.5, false},
		{0, 1, 0, false},
		{45 * deg, 2, 0.5, false},
		{60 * deg, 2, 1, false},
		{61 * deg, 2, 1, true},
	}
	for _, tc := range tests {
		i, tt, c := r.locate(tc.x)
		if i != tc.i || math.Abs(tt-tc.t) > 1e-12 || c != tc.clamped {
			t.Errorf("locate(%.1f°) = %d, %v, %v; want %d, %v, %v", tc.x/deg, i, tt, c, tc.i, tc.t, tc.clamped)
		}
	}
	one := Range{}
	if i, tt, c := one.locate(0.1); i != 0 || tt != 0 || !c {
		t.Errorf("single-sample range: %d %v %v", i, tt, c)
	}
}

func testSynth(t testing.TB, opt SynthOptions) (*Synthesizer, *DB) {
	db, err := Read(bytes.NewReader(oneMachine(t)))
	must(t, err)
	s, err := NewSynthesizer(db, getFixture(t).rig, opt)
	must(t, err)
	return s, db
}

// TestSynthesizeReproducesSamples: at a sample's pose, vertices that only
// the sample's role influences come out at the sample's settled positions.
func TestSynthesizeReproducesSamples(t *testing.T) {
	f := getFixture(t)
	s, db := testSynth(t, SynthOptions{})
	dst := make([]geom.Vec3, s.NumVerts())
	var pos []geom.Vec3
	checked := 0
	for i, ss := range db.Samples {
		p, err := f.rig.SamplePose(ss.Sample)
		must(t, err)
		st, err := s.Synthesize(p, dst)
		must(t, err)
		if st.Clamped != 0 {
			t.Fatalf("sample %d clamped: %b", ss.Index, st.Clamped)
		}
		pos, _ = db.Positions(i, pos)
		for v := range dst {
			rs, _ := db.Regions.Influences(v)
			if len(rs) != 1 || rs[0] != ss.Role {
				continue
			}
			checked++
			// float32 storage of samples: ~1e-7 m at 1 m.
			if d := dst[v].Dist(pos[v]); d > 1e-6 {
				t.Fatalf("sample %d (%s %v) vertex %d: %v m from the stored sample", ss.Index, ss.Role, ss.Angles, v, d)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no vertex checked")
	}
	t.Logf("%d vertex-samples checked; synthesizer holds %d KiB", checked, s.MemoryBytes()/1024)
}

// TestSynthesizeRest: at the rest pose every role is at a sample whose
// fake settle is the same shape, so the blend is that shape.
func TestSynthesizeRest(t *testing.T) {
	f := getFixture(t)
	s, _ := testSynth(t, SynthOptions{})
	dst := make([]geom.Vec3, s.NumVerts())
	_, err := s.Synthesize(skel.RestPose(f.rig.Skeleton), dst)
	must(t, err)
	want := fakeSettle(f.rig, f.shirt.Mesh, f.shirt.Weights, Sample{Role: LeftElbow})
	worst := 0.0
	for v := range dst {
		worst = math.Max(worst, dst[v].Dist(want[v]))
	}
	// The mannequin's hips rest 1.4° and 2.1° off their grid points
	// (anatomical angles): their ripples are interpolated there.
	if worst > 3e-4 {
		t.Errorf("rest pose: %g m from the settled rest shape", worst)
	}
}

// TestSynthesizeBetweenSamples: between two elbow samples a forearm vertex
// follows the bending arm (no shrinking towards the chord) and stays
// within the ripple's amplitude of the skinned garment.
func TestSynthesizeBetweenSamples(t *testing.T) {
	f := getFixture(t)
	s, db := testSynth(t, SynthOptions{})
	dst := make([]geom.Vec3, s.NumVerts())
	p := skel.RestPose(f.rig.Skeleton)
	must(t, f.rig.SetRole(&p, LeftElbow, DoFs{75 * deg}))
	_, err := s.Synthesize(p, dst)
	must(t, err)
	skinned := skel.LBS(f.shirt.Mesh.Verts, f.shirt.Weights, skel.SkinMatrices(f.rig.Skeleton, p, nil), nil)
	n := 0
	for v := range dst {
		if db.Regions.Region[v] != uint8(LeftElbow) {
			continue
		}
		n++
		if d := dst[v].Dist(skinned[v]); d > 0.008 {
			t.Errorf("vertex %d: %v m from the skinned garment", v, d)
		}
	}
	if n == 0 {
		t.Fatal("no forearm vertex")
	}
}

func TestSynthesizeClamp(t *testing.T) {
	f := getFixture(t)
	var calls []Clamp
	s, _ := testSynth(t, SynthOptions{OnClamp: func(c Clamp) { calls = append(calls, c) }})
	dst := make([]geom.Vec3, s.NumVerts())
	p := skel.RestPose(f.rig.Skeleton)
	must(t, f.rig.SetRole(&p, LeftElbow, DoFs{150 * deg})) // sampled up to 120°
	for i := 0; i < 3; i++ {
		st, err := s.Synthesize(p, dst)
		must(t, err)
		if st.Clamped != 1<<LeftElbow {
			t.Errorf("frame %d: clamped %b, want left_elbow", i, st.Clamped)
		}
	}
	if len(calls) != 1 || calls[0].Role != LeftElbow || math.Abs(calls[0].Hi-120*deg) > 1e-12 {
		t.Errorf("OnClamp calls %+v, want one for left_elbow", calls)
	}
	if a := s.Angles(LeftElbow); math.Abs(a[0]-120*deg) > 1e-12 {
		t.Errorf("clamped angle %v", a[0]/deg)
	}
	for v := range dst {
		if !dst[v].IsFinite() {
			t.Fatalf("vertex %d not finite", v)
		}
	}
}

func TestSynthesizeErrors(t *testing.T) {
	f := getFixture(t)
	s, _ := testSynth(t, SynthOptions{})
	dst := make([]geom.Vec3, s.NumVerts())
	p := skel.RestPose(f.rig.Skeleton)
	if _, err := s.Synthesize(p, dst[:10]); err == nil {
		t.Error("short dst accepted")
	}
	bad := p.Clone()
	bad.Rot[3].X = math.NaN()
	if _, err := s.Synthesize(bad, dst); err == nil {
		t.Error("NaN pose accepted")
	}
	if _, err := s.Synthesize(skel.Pose{Rot: p.Rot[:5]}, dst); err == nil {
		t.Error("short pose accepted")
	}
	shard := buildShard(t, shirtInput(t, smallSpec(t), 1, 2))
	db, err := Read(bytes.NewReader(shard))
	must(t, err)
	if _, err := NewSynthesizer(db, f.rig, SynthOptions{}); err == nil {
		t.Error("synthesizer from a shard")
	}
	db, _ = Read(bytes.NewReader(oneMachine(t)))
	rig2, _ := Bind(renamed(t, f.body.Skeleton, func(n string) string { return "x:" + n }), nil)
	var me *MismatchError
	if _, err := NewSynthesizer(db, rig2, SynthOptions{}); !errors.As(err, &me) {
		t.Errorf("synthesizer for another rig: %v", err)
	}
}

// walkPoses is a short deterministic motion moving every role.
func walkPoses(rig *Rig, n int) []skel.Pose {
	out := make([]skel.Pose, n)
	for i := range out {
		x := float64(i) / float64(n)
		p := skel.RestPose(rig.Skeleton)
		p.Root = geom.V(0, 0, x)
		_ = rig.SetRole(&p, LeftElbow, DoFs{100 * deg * x})
		_ = rig.SetRole(&p, RightElbow, DoFs{80 * deg * (1 - x)})
		_ = rig.SetRole(&p, LeftShoulder, DoFs{50 * deg * x, -20 * deg * x, 25 * deg * math.Sin(6*x)})
		_ = rig.SetRole(&p, Spine, DoFs{20 * deg * math.Sin(4*x), 0, -25 * deg * x})
		_ = rig.SetRole(&p, LeftHip, DoFs{40 * deg * x, 10 * deg * x, 0})
		_ = rig.SetRole(&p, LeftKnee, DoFs{70 * deg * x})
		out[i] = p
	}
	return out
}

func TestSynthesizeDeterministic(t *testing.T) {
	f := getFixture(t)
	poses := walkPoses(f.rig, 12)
	run := func() []geom.Vec3 {
		s, _ := testSynth(t, SynthOptions{})
		var all []geom.Vec3
		dst := make([]geom.Vec3, s.NumVerts())
		for _, p := range poses {
			_, err := s.Synthesize(p, dst)
			must(t, err)
			all = append(all, dst...)
		}
		return all
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("entry %d differs between runs: %v vs %v", i, a[i], b[i])
		}
		if !a[i].IsFinite() {
			t.Fatalf("entry %d not finite", i)
		}
	}
}

func TestSynthesizeNoAlloc(t *testing.T) {
	f := getFixture(t)
	s, _ := testSynth(t, SynthOptions{})
	poses := walkPoses(f.rig, 8)
	dst := make([]geom.Vec3, s.NumVerts())
	i := 0
	allocs := testing.AllocsPerRun(20, func() {
		_, _ = s.Synthesize(poses[i%len(poses)], dst)
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per frame", allocs)
	}
}

// TestSlerpSeries: the series turn of slerpCoef matches sin(tθ)/sin θ to
// slerpEps (plus rounding) wherever it accepts θ, and accepts at least
// θ ≤ 50°.
func TestSlerpSeries(t *testing.T) {
	u0 := geom.V(1, 0, 0)
	for _, tt := range []float64{1e-3, 0.25, 0.5, 0.8, 0.999} {
		var c slerpCoef
		c.set(tt)
		for th := 1e-7; th < math.Pi; th *= 1.05 {
			u1 := geom.V(math.Cos(th), math.Sin(th), 0)
			dir, ok := c.turn(u0, u1)
			if !ok {
				if th <= 50*deg {
					t.Errorf("t=%v: θ = %.1f° refused", tt, th/deg)
				}
				continue
			}
			want := geom.V(math.Cos(tt*th), math.Sin(tt*th), 0)
			if d := dir.Dist(want); d > 2*slerpEps {
				t.Errorf("t=%v θ=%.3g: %v, want %v (%.2g)", tt, th, dir, want, d)
			}
		}
	}
}
