package resynth

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// Smoothing the dynamics residual keeps the skinned garment exactly,
// keeps a residual that is constant in time, and damps a residual that
// flips every frame (the jitter it is there to remove); the result does
// not depend on the number of workers.
func TestSmoothResidual(t *testing.T) {
	db := tubeDB(8, 6, 2)
	nt := 40
	joints := make([][]geom.Rigid, nt)
	for f := range joints {
		joints[f] = tubeJoints(0.02*float64(f), 0.3+0.01*float64(f))
	}
	build := func(res func(f, v int) geom.Vec3) [][]geom.Vec3 {
		fr := make([][]geom.Vec3, nt)
		for f := range fr {
			fr[f] = db.Skin(joints[f], nil)
			for v := range fr[f] {
				fr[f][v] = fr[f][v].Add(res(f, v))
			}
		}
		return fr
	}
	for _, tc := range []struct {
		name     string
		res      func(f, v int) geom.Vec3
		maxAfter float64 // largest residual left, m
		minAfter float64 // smallest residual left, m
	}{
		{"zero", func(f, v int) geom.Vec3 { return geom.Vec3{} }, 1e-12, 0},
		{"constant", func(f, v int) geom.Vec3 { return geom.V(0, 0.01*float64(v%3), 0) }, 0.02 + 1e-9, 0},
		{"flip", func(f, v int) geom.Vec3 { return geom.V(0.01*float64(1-2*(f%2)), 0, 0) }, 0.003, 0},
	} {
		var got [2][][]geom.Vec3
		for w := 1; w <= 2; w++ {
			s, err := New(db, Options{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			fr := build(tc.res)
			s.smoothResidual(fr, joints, DefaultSmooth)
			s.Close()
			got[w-1] = fr
		}
		for f := range got[0] {
			k := db.Skin(joints[f], nil)
			for v := range k {
				if got[0][f][v] != got[1][f][v] {
					t.Fatalf("%s: frame %d vertex %d: 1 worker %v, 2 workers %v", tc.name, f, v, got[0][f][v], got[1][f][v])
				}
				want := tc.res(f, v)
				r := got[0][f][v].Sub(k[v])
				if tc.name != "flip" && r.Dist(want) > 1e-9 {
					t.Fatalf("%s: frame %d vertex %d: residual %v, want %v", tc.name, f, v, r, want)
				}
				// The interior of a flipping residual is damped to a few
				// per cent of its amplitude.
				if tc.name == "flip" && f >= 8 && f < nt-8 && !(math.Abs(r.X) < tc.maxAfter) {
					t.Fatalf("flip: frame %d vertex %d: residual %v not damped", f, v, r)
				}
			}
		}
	}
}

// Smooth: -1 turns the smoothing off; over 30 frames is refused.
func TestSmoothOption(t *testing.T) {
	db := tubeDB(6, 6, 12)
	if _, err := New(db, Options{Smooth: 31}); err == nil {
		t.Error("Smooth 31 accepted")
	}
	s, err := New(db, Options{Smooth: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.opt.Smooth != 0 {
		t.Errorf("Smooth -1 gave σ %g", s.opt.Smooth)
	}
}

// A block that drops every other frame (2x playback) is resampled at no
// more than maxSpeed database frames per output frame.
func TestResampleSpeed(t *testing.T) {
	ix := &index{clipOf: make([]int32, 60), start: []int32{0, 60}, local: make([]int32, 60)}
	for i := range ix.local {
		ix.local[i] = int32(i)
	}
	path := make([]int32, 25)
	for t := range path {
		path[t] = int32(2 * t)
	}
	_, frac := ix.resample(path, DefaultWindow)
	for f := 1; f < len(frac); f++ {
		if d := frac[f] - frac[f-1]; d > maxSpeed+1e-12 || d < 0 {
			t.Fatalf("frame %d: index %g after %g: speed %g", f, frac[f], frac[f-1], d)
		}
	}
}
