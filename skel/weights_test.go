package skel

import (
	"errors"
	"math"
	"testing"
)

func TestWeightsValidate(t *testing.T) {
	ok := NewWeights([][]Influence{{{0, 1}}, {{1, 0.25}, {2, 0.75}}})
	if err := ok.Validate(3); err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name   string
		w      Weights
		vertex int
		err    error
	}{
		{"joint range", NewWeights([][]Influence{{{0, 1}}, {{3, 1}}}), 1, ErrBadJoint},
		{"negative joint", NewWeights([][]Influence{{{-1, 1}}}), 0, ErrBadJoint},
		{"negative weight", NewWeights([][]Influence{{{0, 1}}, {{0, 1}}, {{1, 2}, {0, -1}}}), 2, ErrBadWeight},
		{"nan weight", NewWeights([][]Influence{{{0, nan}}}), 0, ErrBadWeight},
		{"inf weight", NewWeights([][]Influence{{{0, float32(math.Inf(1))}}}), 0, ErrBadWeight},
		{"zero sum", NewWeights([][]Influence{{{0, 1}}, {{0, 0}, {1, 0}}}), 1, ErrZeroWeight},
		{"empty vertex", NewWeights([][]Influence{{{0, 1}}, {}}), 1, ErrNoInfluences},
		{"short W", Weights{Offsets: []int32{0, 1}, Joints: []int32{0}}, -1, ErrBadLayout},
		{"no offsets", Weights{}, -1, ErrBadLayout},
		{"decreasing", Weights{Offsets: []int32{0, 2, 1, 2}, Joints: []int32{0, 0}, W: []float32{1, 1}}, 1, ErrBadLayout},
	} {
		err := tc.w.Validate(3)
		var ve *VertexError
		if !errors.As(err, &ve) || !errors.Is(err, tc.err) || ve.Vertex != tc.vertex {
			t.Errorf("%s: got %v, want vertex %d %v", tc.name, err, tc.vertex, tc.err)
		}
	}
}

func TestWeightsNormalizeTopK(t *testing.T) {
	w := NewWeights([][]Influence{
		{{3, 2}, {1, 6}, {0, 1}, {2, 6}, {4, 0}},
		{{5, 4}},
		{{0, 0}},
	})
	if w.NumVerts() != 3 || w.MaxInfluences() != 5 {
		t.Fatalf("NumVerts %d MaxInfluences %d", w.NumVerts(), w.MaxInfluences())
	}
	k := w.TopK(3)
	if err := k.Validate(6); err == nil || !errors.Is(err, ErrZeroWeight) {
		t.Errorf("zero vertex kept zero: %v", err)
	}
	j0, w0 := k.Influences(0)
	want := []Influence{{1, 6. / 14}, {2, 6. / 14}, {3, 2. / 14}} // ties keep input order
	if len(j0) != 3 {
		t.Fatalf("TopK kept %v", j0)
	}
	for i, in := range want {
		if j0[i] != in.Joint || !near(float64(w0[i]), float64(in.W), 1e-7) {
			t.Errorf("TopK influence %d = (%d, %g), want %v", i, j0[i], w0[i], in)
		}
	}
	if j1, w1 := k.Influences(1); len(j1) != 1 || j1[0] != 5 || w1[0] != 1 {
		t.Errorf("vertex 1: %v %v", j1, w1)
	}
	w.Normalize()
	_, ws := w.Influences(0)
	sum := 0.0
	for _, x := range ws {
		sum += float64(x)
	}
	// float32 rounding of five terms: a few 6e-8 ulps.
	if !near(sum, 1, 3e-7) || w.W[len(w.W)-1] != 0 {
		t.Errorf("Normalize: sum %g, zero vertex %g", sum, w.W[len(w.W)-1])
	}
}

func TestWeightsSubset(t *testing.T) {
	w := NewWeights([][]Influence{
		{{Joint: 0, W: 1}},
		{{Joint: 1, W: 0.25}, {Joint: 2, W: 0.75}},
		{{Joint: 3, W: 1}},
	})
	s := w.Subset([]int32{2, 1})
	if s.NumVerts() != 2 {
		t.Fatalf("NumVerts = %d, want 2", s.NumVerts())
	}
	if j, ws := s.Influences(0); len(j) != 1 || j[0] != 3 || ws[0] != 1 {
		t.Errorf("vertex 0: %v %v, want [3] [1]", j, ws)
	}
	if j, ws := s.Influences(1); len(j) != 2 || j[1] != 2 || ws[1] != 0.75 {
		t.Errorf("vertex 1: %v %v, want [1 2] [0.25 0.75]", j, ws)
	}
	if err := s.Validate(4); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
