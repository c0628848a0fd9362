package skel

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Weights are per-vertex skinning weights in compressed sparse row form:
// vertex v is influenced by joints Joints[i] with weights W[i] for i in
// [Offsets[v], Offsets[v+1]). len(Offsets) = NumVerts+1, Offsets[0] = 0 and
// len(Joints) = len(W) = Offsets[NumVerts]. The number of influences per
// vertex is free (MakeHuman uses up to 12; glTF exports need TopK(4)).
type Weights struct {
	Offsets []int32
	Joints  []int32
	W       []float32
}

// Dominant returns vertex v's joint of largest weight (the lower index on
// a tie), −1 for a vertex without weights.
func (w Weights) Dominant(v int) int {
	best, bw := -1, float32(0)
	for k := w.Offsets[v]; k < w.Offsets[v+1]; k++ {
		j, wk := int(w.Joints[k]), w.W[k]
		if wk > bw || wk == bw && best >= 0 && j < best {
			best, bw = j, wk
		}
	}
	return best
}

// Influence is one (joint, weight) pair.
type Influence struct {
	Joint int32
	W     float32
}

// Errors wrapped by *VertexError.
var (
	ErrBadLayout    = errors.New("inconsistent offsets or slice lengths")
	ErrBadJoint     = errors.New("joint index out of range")
	ErrBadWeight    = errors.New("weight negative or non-finite")
	ErrZeroWeight   = errors.New("weights sum to zero")
	ErrNoInfluences = errors.New("no influences")
)

// VertexError reports bad skinning data for one vertex.
type VertexError struct {
	Vertex int   // vertex index; -1 when the layout as a whole is bad
	Err    error // one of the Err* variables
}

func (e *VertexError) Error() string {
	return fmt.Sprintf("skel: vertex %d: %v", e.Vertex, e.Err)
}

func (e *VertexError) Unwrap() error { return e.Err }

// NewWeights builds Weights from per-vertex influence lists, in order.
// Influences are copied as given; call Validate and Normalize as needed.
func NewWeights(lists [][]Influence) Weights {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	w := Weights{
		Offsets: make([]int32, len(lists)+1),
		Joints:  make([]int32, 0, n),
		W:       make([]float32, 0, n),
	}
	for v, l := range lists {
		for _, in := range l {
			w.Joints = append(w.Joints, in.Joint)
			w.W = append(w.W, in.W)
		}
		w.Offsets[v+1] = int32(len(w.Joints))
	}
	return w
}

// NumVerts returns the number of vertices.
func (w Weights) NumVerts() int {
	if len(w.Offsets) == 0 {
		return 0
	}
	return len(w.Offsets) - 1
}

// Influences returns vertex v's joints and weights as subslices of w.
func (w Weights) Influences(v int) (joints []int32, weights []float32) {
	a, b := w.Offsets[v], w.Offsets[v+1]
	return w.Joints[a:b], w.W[a:b]
}

// MaxInfluences returns the largest number of influences of any vertex.
func (w Weights) MaxInfluences() int {
	m := 0
	for v := 0; v+1 < len(w.Offsets); v++ {
		m = max(m, int(w.Offsets[v+1]-w.Offsets[v]))
	}
	return m
}

// Validate checks the layout and that every vertex has at least one
// influence, joint ids in [0, numJoints), weights finite and non-negative
// with a positive sum. The error is a *VertexError naming the first bad
// vertex (Vertex -1 for a bad layout).
func (w Weights) Validate(numJoints int) error {
	n := w.NumVerts()
	if len(w.Offsets) == 0 || w.Offsets[0] != 0 || len(w.Joints) != len(w.W) ||
		int(w.Offsets[n]) != len(w.Joints) {
		return &VertexError{Vertex: -1, Err: ErrBadLayout}
	}
	for v := 0; v < n; v++ {
		a, b := w.Offsets[v], w.Offsets[v+1]
		if b < a || int(b) > len(w.Joints) {
			return &VertexError{Vertex: v, Err: ErrBadLayout}
		}
		if a == b {
			return &VertexError{Vertex: v, Err: ErrNoInfluences}
		}
		sum := 0.0
		for i := a; i < b; i++ {
			if j := w.Joints[i]; j < 0 || int(j) >= numJoints {
				return &VertexError{Vertex: v, Err: ErrBadJoint}
			}
			x := float64(w.W[i])
			if !(x >= 0) || math.IsInf(x, 0) {
				return &VertexError{Vertex: v, Err: ErrBadWeight}
			}
			sum += x
		}
		if sum == 0 {
			return &VertexError{Vertex: v, Err: ErrZeroWeight}
		}
	}
	return nil
}

// Normalize scales each vertex's weights in place to sum to 1 (the sum is
// formed in float64). Vertices whose weights sum to zero are left unchanged.
func (w Weights) Normalize() {
	for v := 0; v < w.NumVerts(); v++ {
		ws := w.W[w.Offsets[v]:w.Offsets[v+1]]
		sum := 0.0
		for _, x := range ws {
			sum += float64(x)
		}
		if sum == 0 {
			continue
		}
		for i, x := range ws {
			ws[i] = float32(float64(x) / sum)
		}
	}
}

// TopK returns new Weights keeping at most k influences per vertex, the
// largest ones, sorted by decreasing weight (ties keep their input order),
// renormalised to sum to 1. It panics if k < 1.
func (w Weights) TopK(k int) Weights {
	if k < 1 {
		panic("skel: TopK with k < 1")
	}
	n := w.NumVerts()
	out := Weights{Offsets: make([]int32, n+1)}
	var tmp []Influence
	for v := 0; v < n; v++ {
		js, ws := w.Influences(v)
		tmp = tmp[:0]
		for i := range js {
			tmp = append(tmp, Influence{js[i], ws[i]})
		}
		sort.SliceStable(tmp, func(a, b int) bool { return tmp[a].W > tmp[b].W })
		if len(tmp) > k {
			tmp = tmp[:k]
		}
		sum := 0.0
		for _, in := range tmp {
			sum += float64(in.W)
		}
		for _, in := range tmp {
			x := in.W
			if sum > 0 {
				x = float32(float64(x) / sum)
			}
			out.Joints = append(out.Joints, in.Joint)
			out.W = append(out.W, x)
		}
		out.Offsets[v+1] = int32(len(out.Joints))
	}
	return out
}

// Subset returns the weights of the vertices verts, in that order: vertex i
// of the result has the influences of vertex verts[i] of w (e.g. the
// vertices mesh.Simplify kept). It panics on an index out of range.
func (w Weights) Subset(verts []int32) Weights {
	out := Weights{Offsets: make([]int32, len(verts)+1)}
	for i, v := range verts {
		j, ws := w.Influences(int(v))
		out.Joints = append(out.Joints, j...)
		out.W = append(out.W, ws...)
		out.Offsets[i+1] = int32(len(out.Joints))
	}
	return out
}
