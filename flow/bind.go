package flow

import (
	"fmt"
	"math"
	"sort"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// MaxInfluences is the number of skin influences per garment vertex, glTF's
// JOINTS_0/WEIGHTS_0.
const MaxInfluences = 4

// weightQ is the quantisation scale of skin weights (uint16).
const weightQ = 65535

// Bind returns skin weights for garment vertices rest (in the rig's rest
// pose) by the chosen binding, already in the canonical stored form (see
// QuantizeWeights). BindNearest follows kim2013 §2: each vertex takes the
// weights of its nearest body vertex (kd-tree over Rig.Body). The error
// wraps ErrInput or ErrVertexCount.
func Bind(rest []geom.Vec3, rig Rig, b Binding) (skel.Weights, error) {
	var w skel.Weights
	switch b {
	case BindGiven:
		if rig.Weights.NumVerts() == 0 {
			return w, fmt.Errorf("%w: binding %v needs the garment's weights", ErrInput, b)
		}
		if rig.Weights.NumVerts() != len(rest) {
			return w, fmt.Errorf("%w: %d weight lists for %d garment vertices", ErrVertexCount, rig.Weights.NumVerts(), len(rest))
		}
		w = rig.Weights
	case BindNearest, BindBarycentric:
		if rig.Body == nil || len(rig.Body.Verts) == 0 {
			return w, fmt.Errorf("%w: binding %v needs the body mesh", ErrInput, b)
		}
		if rig.BodyWeights.NumVerts() != len(rig.Body.Verts) {
			return w, fmt.Errorf("%w: %d body weight lists for %d body vertices", ErrVertexCount, rig.BodyWeights.NumVerts(), len(rig.Body.Verts))
		}
		if b == BindNearest {
			w = bindNearest(rest, rig.Body.Verts, rig.BodyWeights)
		} else {
			w = bindBarycentric(rest, rig.Body, rig.BodyWeights)
		}
	default:
		panic("flow: unknown binding")
	}
	if err := w.Validate(rig.Skeleton.NumJoints()); err != nil {
		return skel.Weights{}, fmt.Errorf("%w: %v weights: %v", ErrInput, b, err)
	}
	return QuantizeWeights(w), nil
}

func bindNearest(rest, body []geom.Vec3, bw skel.Weights) skel.Weights {
	idx := mesh.NewVertexIndex(body)
	lists := make([][]skel.Influence, len(rest))
	for v, p := range rest {
		k, _ := idx.Nearest(p)
		js, ws := bw.Influences(int(k))
		l := make([]skel.Influence, len(js))
		for i := range js {
			l[i] = skel.Influence{Joint: js[i], W: ws[i]}
		}
		lists[v] = l
	}
	return skel.NewWeights(lists)
}

func bindBarycentric(rest []geom.Vec3, body *mesh.Mesh, bw skel.Weights) skel.Weights {
	bvh := mesh.NewBVH(body.Verts, body.Tris)
	hits := bvh.ClosestPoints(nil, rest, 1)
	lists := make([][]skel.Influence, len(rest))
	for v, h := range hits {
		acc := map[int32]float64{}
		for c := 0; c < 3; c++ {
			js, ws := bw.Influences(int(body.Tris[h.Tri][c]))
			for i := range js {
				acc[js[i]] += h.Bary[c] * float64(ws[i])
			}
		}
		l := make([]skel.Influence, 0, len(acc))
		for j, x := range acc {
			if x > 0 {
				l = append(l, skel.Influence{Joint: j, W: float32(x)})
			}
		}
		// Map order is random: sort by joint for determinism.
		sort.Slice(l, func(a, b int) bool { return l[a].Joint < l[b].Joint })
		lists[v] = l
	}
	return skel.NewWeights(lists)
}

// QuantizeWeights returns the canonical form of w that .pflow files store
// and glTF players see: at most MaxInfluences influences per vertex (the
// largest; ties to the lower joint), sorted by decreasing weight, repeated
// joints merged; the smaller weights quantised to multiples of 1/65535 and
// the largest set to 1 minus their sum, so every vertex's weights sum to 1.
// Influences quantised to zero are dropped. Applying it twice changes
// nothing.
func QuantizeWeights(w skel.Weights) skel.Weights {
	n := w.NumVerts()
	out := skel.Weights{Offsets: make([]int32, n+1)}
	var tmp []skel.Influence
	for v := 0; v < n; v++ {
		js, ws := w.Influences(v)
		tmp = tmp[:0]
	next:
		for i := range js {
			if !(ws[i] > 0) {
				continue
			}
			for k := range tmp {
				if tmp[k].Joint == js[i] {
					tmp[k].W += ws[i]
					continue next
				}
			}
			tmp = append(tmp, skel.Influence{Joint: js[i], W: ws[i]})
		}
		sort.Slice(tmp, func(a, b int) bool {
			if tmp[a].W != tmp[b].W {
				return tmp[a].W > tmp[b].W
			}
			return tmp[a].Joint < tmp[b].Joint
		})
		if len(tmp) > MaxInfluences {
			tmp = tmp[:MaxInfluences]
		}
		sum := 0.0
		for _, in := range tmp {
			sum += float64(in.W)
		}
		// Floor (with slack for float32 rounding, so that a second pass
		// finds the same q) keeps the first weight the largest.
		var q [MaxInfluences]uint16
		rest := 0
		for i := 1; i < len(tmp); i++ {
			q[i] = uint16(math.Floor(float64(tmp[i].W)/sum*weightQ + 0.01))
			rest += int(q[i])
		}
		for i := 1; i < len(tmp); i++ {
			// The slack can lift a near-tie above the first weight.
			for q[i] > 0 && int(q[i]) > weightQ-rest {
				q[i]--
				rest--
			}
		}
		ids := make([]int32, 0, MaxInfluences)
		ids = append(ids, tmp[0].Joint)
		qs := []uint16{0}
		for i := 1; i < len(tmp); i++ {
			if q[i] > 0 {
				ids = append(ids, tmp[i].Joint)
				qs = append(qs, q[i])
			}
		}
		ww := dequantWeights(qs)
		out.Joints = append(out.Joints, ids...)
		out.W = append(out.W, ww...)
		out.Offsets[v+1] = int32(len(out.Joints))
	}
	return out
}

// dequantWeights turns stored weights (q[0] unused; q[i] for i ≥ 1 in
// units of 1/65535) into float32 weights summing to 1, the first implied.
func dequantWeights(q []uint16) []float32 {
	w := make([]float32, len(q))
	rest := 0.0
	for i := 1; i < len(q); i++ {
		x := float64(q[i]) / weightQ
		w[i] = float32(x)
		rest += x
	}
	w[0] = float32(1 - rest)
	return w
}

// quantWeights recovers the stored uint16 weights of a canonical vertex.
func quantWeights(ws []float32) []uint16 {
	q := make([]uint16, len(ws))
	for i := 1; i < len(ws); i++ {
		q[i] = uint16(math.Round(float64(ws[i]) * weightQ))
	}
	return q
}
