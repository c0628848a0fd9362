package resynth

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func maxDist(a, b []geom.Vec3) float64 {
	d := 0.0
	for i := range a {
		d = max(d, a[i].Dist(b[i]))
	}
	return d
}

// A database clip's own motion follows the clip frame by frame (zero
// matching cost, one block) and is rebuilt exactly: its gradients and
// constraint targets are consistent, so Eq. P1's residual is zero.
func TestRunReproducesDatabaseClip(t *testing.T) {
	db := tubeDB(12, 10, 40)
	s, err := New(db, Options{Workers: 2, Smooth: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := &db.Clips[1]
	res, err := s.Run(context.Background(), c.Joints, c.FPS, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blocks) != 1 {
		t.Errorf("blocks %v, want one", res.Blocks)
	}
	var gt []geom.Vec3
	for f, st := range res.Steps {
		if st.Clip != c.Name || st.Frame != f || st.Cost != 0 {
			t.Fatalf("frame %d: step %+v, want clip %s frame %d cost 0", f, st, c.Name, f)
		}
		gt = c.Frame(f, len(db.Garment.Rest), gt)
		// float32 storage: about 1e-7 m.
		if d := maxDist(res.Frames[f], gt); d > 1e-5 {
			t.Fatalf("frame %d: rebuilt %.3g m from the clip", f, d)
		}
	}
}

// Leaving a clip out, resynthesis beats skinning on the fixture, and its
// accelerations stay near the truth's.
func TestLeaveOneOutBeatsSkinning(t *testing.T) {
	db := tubeDB(12, 10, 60)
	evs, err := LeaveOneOut(context.Background(), db, Options{Workers: 2}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sr, ss float64
	for _, e := range evs {
		re, se := e.MeanErr()
		worst, f, _ := e.AccRatio(0.05)
		t.Logf("%s: error %.2f mm, skinning %.2f mm; acceleration ratio up to %.2f (frame %d); blocks %v", e.Clip, re*1000, se*1000, worst, f, e.Result.Blocks)
		sr += re
		ss += se
	}
	if !(sr < ss) {
		t.Errorf("mean error %.3g m, skinning %.3g m: want resynthesis better", sr/4, ss/4)
	}
}

// Results are bit-identical for any number of workers.
func TestDeterministic(t *testing.T) {
	db := tubeDB(10, 8, 50)
	var out [2]*Result
	for i, w := range []int{1, 3} {
		s, err := New(db.Without("walk"), Options{Workers: w, Jump: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		c := db.Clip("walk")
		out[i], err = s.Run(context.Background(), c.Joints, c.FPS, nil)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for f := range out[0].Frames {
		for v := range out[0].Frames[f] {
			if out[0].Frames[f][v] != out[1].Frames[f][v] {
				t.Fatalf("frame %d vertex %d differs between 1 and 3 workers", f, v)
			}
		}
	}
}

func TestPolar(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 200; i++ {
		var f geom.Mat3
		for r := range f {
			for c := range f[r] {
				f[r][c] = rng.NormFloat64()
			}
		}
		if i%3 == 0 { // near a rotation, as gradients are
			q := geom.QuatAxisAngle(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Unit(), 3*rng.Float64())
			f = q.Mat3().Add(f.Scale(0.1))
		}
		q, s := polar(f)
		if math.Abs(q.Len()-1) > 1e-12 {
			t.Fatalf("case %d: |q| = %g", i, q.Len())
		}
		back := q.Mat3().Mul(s.mat())
		if d := frob2(back.Add(f.Scale(-1))); d > 1e-20*max(1, frob2(f)) {
			t.Fatalf("case %d: R·S differs from F by %g", i, math.Sqrt(d))
		}
	}
}

func TestQuatLogExp(t *testing.T) {
	for _, q := range []geom.Quat{geom.QuatIdentity(), geom.QuatAxisAngle(geom.V(0, 1, 0), 1), geom.QuatAxisAngle(geom.V(1, 2, 3).Unit(), 3.1)} {
		r := quatExp(quatLog(q))
		if math.Abs(math.Abs(r.Dot(q))-1) > 1e-12 {
			t.Errorf("exp(log(%v)) = %v", q, r)
		}
	}
	// Two-frame blends by the log map are slerp.
	a, b := geom.QuatAxisAngle(geom.V(0, 0, 1), 0.2), geom.QuatAxisAngle(geom.V(1, 0, 0), 1.2)
	got := a.Mul(quatExp(quatLog(a.Conj().Mul(b)).Scale(0.3)))
	if want := geom.Slerp(a, b, 0.3); math.Abs(got.Dot(want)) < 1-1e-12 {
		t.Errorf("log-map blend %v, slerp %v", got, want)
	}
}

func TestResample(t *testing.T) {
	ix := &index{clipOf: make([]int32, 20), start: []int32{0, 10, 20}}
	for i := 10; i < 20; i++ {
		ix.clipOf[i] = 1
	}
	for i := range ix.clipOf {
		ix.local = append(ix.local, int32(i%10))
	}
	// A block with a repeated frame, then a jump to the other clip.
	path := []int32{1, 2, 2, 3, 4, 5, 13, 14, 15, 16}
	id, lens := ix.blocks(path)
	if len(lens) != 2 || lens[0] != 6 || id[6] != 1 {
		t.Fatalf("blocks %v %v", id, lens)
	}
	bl, frac := ix.resample(path, DefaultWindow)
	if frac[2] != (1.0+2+2+3+4)/5 {
		t.Errorf("fractional index %g at the repeat", frac[2])
	}
	for f, b := range bl {
		s := 0.0
		for _, x := range b {
			s += x.w
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("frame %d: weights sum to %g", f, s)
		}
		mixed := false
		for _, x := range b {
			mixed = mixed || ix.clipOf[x.frame] != ix.clipOf[b[0].frame]
		}
		if want := f >= 4 && f <= 7; mixed != want {
			t.Errorf("frame %d: blends %v across clips %v, want %v", f, b, mixed, want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	db := tubeDB(6, 6, 5)
	db.Clips[1].FPS = 60
	if _, err := New(db, Options{}); err == nil {
		t.Error("clips at two frame rates: no error")
	}
	db = tubeDB(6, 6, 5)
	if _, err := New(db, Options{Jump: math.NaN()}); err == nil {
		t.Error("NaN jump: no error")
	}
	s, err := New(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(context.Background(), db.Clips[0].Joints, 24, nil); err == nil {
		t.Error("motion at another frame rate: no error")
	}
	bad := [][]geom.Rigid{tubeJoints(0, math.NaN())}
	if _, err := s.Run(context.Background(), bad, 30, nil); err == nil {
		t.Error("NaN joint: no error")
	}
}

// The small-angle series of quatLog and quatExp agree with the closed
// forms at their switch-over.
func TestQuatLogSeries(t *testing.T) {
	for _, ang := range []float64{1e-9, 1e-4, 0.0099, 0.01, 0.0101, 0.02, 0.1, 0.19, 0.2, 0.21, 0.3, 0.49, 0.5, 0.51} {
		q := geom.QuatAxisAngle(geom.V(1, 2, 2).Unit(), 2*ang)
		v := quatLog(q)
		if math.Abs(v.Len()-ang) > 1e-12*max(ang, 1e-3) {
			t.Errorf("angle %g: |log q| = %.17g", ang, v.Len())
		}
		if r := quatExp(v); math.Abs(r.Dot(q)-1) > 1e-14 {
			t.Errorf("angle %g: exp(log q)·q = %.17g", ang, r.Dot(q))
		}
	}
}

// With soft anchors on every vertex a database clip's own motion is still
// rebuilt exactly (all targets agree).
func TestAnchorsExact(t *testing.T) {
	db := tubeDB(10, 8, 20)
	s, err := New(db, Options{AnchorWeight: 0.5, Workers: 1, Smooth: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := &db.Clips[2]
	res, err := s.Run(context.Background(), c.Joints, c.FPS, nil)
	if err != nil {
		t.Fatal(err)
	}
	for f := range res.Frames {
		if d := maxDist(res.Frames[f], c.Frame(f, len(db.Garment.Rest), nil)); d > 1e-5 {
			t.Fatalf("frame %d: %.3g m from the clip", f, d)
		}
	}
}

func TestTransition(t *testing.T) {
	r := &Result{Blocks: []int{10, 5, 20}} // boundaries before frames 10 and 15
	for f, want := range map[int]bool{0: false, 6: false, 7: true, 9: true, 12: true, 13: true, 14: true, 17: true, 18: false, 30: false} {
		if got := r.Transition(f, 2); got != want {
			t.Errorf("frame %d: %v, want %v", f, got, want)
		}
	}
}

// Post sees every frame in order with the motion's joints, and its
// changes are kept; its error stops Run.
func TestPost(t *testing.T) {
	db := tubeDB(6, 6, 12)
	next := 0
	opt := Options{Post: func(f int, js []geom.Rigid, x []geom.Vec3) error {
		if f != next || js[1] != db.Clips[0].Joints[f][1] {
			t.Errorf("Post got frame %d (want %d) or other joints", f, next)
		}
		next++
		x[0] = geom.V(9, 9, 9)
		return nil
	}}
	s, err := New(db, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), db.Clips[0].Joints, 30, nil)
	s.Close()
	if err != nil || next != 12 || res.Frames[5][0] != geom.V(9, 9, 9) {
		t.Fatalf("err %v, %d frames seen, vertex 0 at %v", err, next, res.Frames[5][0])
	}
	opt.Post = func(int, []geom.Rigid, []geom.Vec3) error { return context.Canceled }
	s, _ = New(db, opt)
	defer s.Close()
	if _, err := s.Run(context.Background(), db.Clips[0].Joints, 30, nil); err == nil {
		t.Error("Post's error was dropped")
	}
}

// Fallback leaves frames that match exactly alone (cost 0) and, with a
// tiny σ, replaces the database's shapes by the rest shape: the result no
// longer depends on which clips the database holds.
func TestFallback(t *testing.T) {
	db := tubeDB(10, 8, 30)
	c := db.Clip("kick")
	n := len(db.Garment.Rest)
	run := func(d *DB, o Options) [][]geom.Vec3 {
		s, err := New(d, o)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Run(context.Background(), c.Joints, c.FPS, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Frames
	}
	for f, x := range run(db, Options{Fallback: 0.01, Workers: 1, Smooth: -1}) {
		if d := maxDist(x, c.Frame(f, n, nil)); d > 1e-5 {
			t.Fatalf("own clip, frame %d: %.3g m from it", f, d)
		}
	}
	tiny := Options{Fallback: 1e-6, Workers: 1}
	a, b := run(db.Without("kick"), tiny), run(db.Without("kick", "swing"), tiny)
	plain := run(db.Without("kick", "swing"), Options{Workers: 1})
	for f := range a {
		if d := maxDist(a[f], b[f]); d > 1e-9 {
			t.Fatalf("frame %d: two databases give results %.3g m apart with a tiny σ", f, d)
		}
	}
	if d := maxDist(plain[10], b[10]); !(d > 1e-4) {
		t.Errorf("the fallback moved frame 10 by only %.3g m", d)
	}
}
