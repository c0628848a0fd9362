package character

import (
	"encoding/json"
	"io"
	"math"
	"sort"

	"github.com/pleat-dev/pleat/skel"
)

// MHW is a parsed MakeHuman skin-weights file (.mhw, JSON): for each bone
// of the rig it was made for (the default rig), the vertices it moves.
type MHW struct {
	Name string
	// Weights maps a bone name to its (vertex, weight) pairs in file order.
	Weights map[string][]VertexWeight
}

// VertexWeight is one vertex's weight for a bone.
type VertexWeight struct {
	Vertex int32
	W      float64
}

// ParseMHW reads a .mhw file from r; name is used in errors. Vertex indices
// must be integers in [0, MaxVerts) and weights finite and non-negative.
func ParseMHW(r io.Reader, name string) (*MHW, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, perr(name, 0, "", "file larger than %d bytes", MaxFileBytes)
	}
	var raw struct {
		Name    string                 `json:"name"`
		Weights map[string][][]float64 `json:"weights"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, perr(name, jsonLine(data, err), "", "%v", err)
	}
	if raw.Weights == nil {
		return nil, perr(name, 0, "weights", "missing")
	}
	w := &MHW{Name: raw.Name, Weights: make(map[string][]VertexWeight, len(raw.Weights))}
	for _, bone := range sortedKeys(raw.Weights) {
		l := raw.Weights[bone]
		out := make([]VertexWeight, len(l))
		for i, p := range l {
			if len(p) != 2 {
				return nil, perr(name, 0, "weights."+bone, "entry %d is not [vertex, weight]", i)
			}
			v, x := p[0], p[1]
			if v != math.Trunc(v) || v < 0 || v >= MaxVerts {
				return nil, perr(name, 0, "weights."+bone, "entry %d: bad vertex index %v", i, v)
			}
			if !(x >= 0) || math.IsInf(x, 0) {
				return nil, perr(name, 0, "weights."+bone, "entry %d: bad weight %v", i, x)
			}
			out[i] = VertexWeight{Vertex: int32(v), W: x}
		}
		w.Weights[bone] = out
	}
	return w, nil
}

// NumVerts returns one more than the largest vertex index mentioned.
func (w *MHW) NumVerts() int {
	n := 0
	for _, l := range w.Weights {
		for _, vw := range l {
			n = max(n, int(vw.Vertex)+1)
		}
	}
	return n
}

// RigWeights maps w, weights made for the rig src, onto the joints of sk,
// the skeleton built from target (joint names = target bone names), for
// numVerts vertices. It returns one influence list per vertex, influences
// sorted by joint with weights summed in float64 and renormalised to 1;
// vertices that receive no weight get an empty list.
//
// Each target bone takes the weights of the source bones in its
// WeightRefs (weights_reference, else reference). A target bone without
// references takes the source bone of its own name (so a rig maps onto
// itself). A source bone claimed by k target bones gives each 1/k of its
// weight. A source bone claimed by none gives its weight to the bones
// claiming its nearest ancestor in src (src may be nil when target is the
// source rig itself: then unclaimed bones go to the root); with no such
// ancestor, to the root joint 0 of sk. Weights on vertices ≥ numVerts are
// an error. Bones are visited in name order, so the sums are deterministic.
func RigWeights(w *MHW, src, target *MHSkel, sk *skel.Skeleton, numVerts int) ([][]skel.Influence, error) {
	claim := map[string][]int32{}
	for _, b := range target.Bones {
		j, ok := sk.Index(b.Name)
		if !ok {
			return nil, perr(target.Name, 0, "bones."+b.Name, "not in the skeleton")
		}
		refs := b.WeightRefs()
		if len(refs) == 0 {
			refs = []string{b.Name}
		}
		for _, r := range refs {
			claim[r] = append(claim[r], int32(j))
		}
	}
	parent := map[string]string{}
	if src != nil {
		for _, b := range src.Bones {
			parent[b.Name] = b.Parent
		}
	}
	resolve := func(bone string) []int32 {
		for b, n := bone, 0; b != "" && n <= len(parent)+1; b, n = parent[b], n+1 {
			if c := claim[b]; len(c) > 0 {
				return c
			}
		}
		return []int32{0}
	}
	type acc struct {
		j int32
		w float64
	}
	per := make([][]acc, numVerts)
	for _, bone := range sortedKeys(w.Weights) {
		js := resolve(bone)
		share := 1 / float64(len(js))
		for _, vw := range w.Weights[bone] {
			if int(vw.Vertex) >= numVerts {
				return nil, perr(w.Name, 0, "weights."+bone, "vertex %d out of range [0,%d)", vw.Vertex, numVerts)
			}
			if vw.W == 0 {
				continue
			}
			l := per[vw.Vertex]
		next:
			for _, j := range js {
				for k := range l {
					if l[k].j == j {
						l[k].w += vw.W * share
						continue next
					}
				}
				l = append(l, acc{j, vw.W * share})
			}
			per[vw.Vertex] = l
		}
	}
	out := make([][]skel.Influence, numVerts)
	for v, l := range per {
		sort.Slice(l, func(a, b int) bool { return l[a].j < l[b].j })
		sum := 0.0
		for _, a := range l {
			sum += a.w
		}
		if sum == 0 {
			continue
		}
		inf := make([]skel.Influence, len(l))
		for k, a := range l {
			inf[k] = skel.Influence{Joint: a.j, W: float32(a.w / sum)}
		}
		out[v] = inf
	}
	return out, nil
}
