package refine

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Reference is a uniformly refined simulation of the same pieces, with
// each coarse piece's keys located in it.
type Reference struct {
	// Meshes[i] is the reference mesh of coarse piece i; Keys[i][k] the
	// reference vertex of key k (−1 none); Frames[i][f] its positions.
	Meshes []*mesh.Mesh
	Keys   [][]int32
	Frames [][][]geom.Vec3
	// All[j][f] are every reference piece's positions at frame f, whose
	// penetration Result.Measure counts (the reference simulation then
	// need not measure it every frame, as the coarse one does not).
	All [][][]geom.Vec3
}

// Measure compares one frame of a refined result with the coarse and
// reference simulations over the refined regions.
type Measure struct {
	Frame int
	// Area is the regions' area in the refined frame, m².
	Area float64
	// Coarse, Refined and Reference are ∫|H| dA over the regions' coarse
	// triangles (cotan mean curvature, m⁻¹, mixed areas), m: per triangle,
	// its area times the mean |H| of its corners, summed over each coarse
	// triangle's four children (the coarse triangle itself for Coarse).
	// Reference is 0 without a reference.
	Coarse, Refined, Reference float64
	// WholeCoarse, WholeRefined and WholeReference are Σ|H_i|A_i over
	// every interior vertex of the garments (metrics.Curvature's sum):
	// the wrinkles outside the regions count too.
	WholeCoarse, WholeRefined, WholeReference float64
	// Verts counts the frame's refined mesh vertices; Deep those more than
	// 2 mm inside the body (collide.DeepPenetration); Free the simulated
	// ones and DeepFree those of them deep inside.
	Verts, Deep    int
	Free, DeepFree int
	// CoarseVerts counts the coarse pieces' vertices and CoarseDeep those
	// of them more than 2 mm inside the body (measured here rather than by
	// the coarse simulation, which then need not measure every frame).
	CoarseVerts, CoarseDeep int
	// ReferenceVerts counts the reference's vertices (Reference.All) and
	// ReferenceDeep those more than 2 mm inside the body, measured as the
	// coarse and refined ones are.
	ReferenceVerts, ReferenceDeep int
	// Paired counts the simulated refined vertices that the reference has
	// too (the same garment point: a coarse vertex or edge midpoint),
	// PairedDeep those of them more than 2 mm inside the body and
	// PairedRefDeep their reference vertices more than 2 mm inside: the
	// same garment points and frames in both, so that the two compare
	// where the refined mesh concentrates its vertices (its own rate is
	// over a mesh dense only in the regions, the reference's over a mesh
	// dense everywhere).
	Paired, PairedDeep, PairedRefDeep int
	// MaxStrain is the largest edge elongation (l/L − 1) of the refined
	// patches' simulated edges (those with a free end; edges between held
	// vertices follow the coarse surface); Over counts those above 10 %
	// among Edges.
	MaxStrain   float64
	Over, Edges int
	// Worst locates the most stretched edge: its piece and its ends' keys,
	// and whether each end is simulated.
	Worst struct {
		Piece        int
		A, B         int32
		FreeA, FreeB bool
	}
}

// Measure measures every frame of r. ref may be nil; body and bodyAt (the
// full body, for penetration) may be nil too.
func (r *Result) Measure(ref *Reference, body *mesh.Mesh, bodyAt func(f int, dst []geom.Vec3) ([]geom.Vec3, error)) ([]Measure, error) {
	var pen *collide.Body
	var bx []geom.Vec3
	var err error
	if body != nil {
		if pen, err = collide.NewBody(body); err != nil {
			return nil, fmt.Errorf("refine: body: %w", err)
		}
	}
	n := len(r.Stats)
	out := make([]Measure, n)
	ks := make([]*keyCurv, len(r.Pieces))
	for f := range n {
		ms := &out[f]
		ms.Frame = f
		if pen != nil {
			if bx, err = bodyAt(f, bx); err != nil {
				return nil, err
			}
			pen.SetFrame(bx)
		}
		for i, pr := range r.Pieces {
			if ks[i] == nil {
				ks[i] = &keyCurv{}
			}
			if err := pr.measure(f, i, ks[i], ref, pen, ms); err != nil {
				return nil, err
			}
		}
		if ref != nil {
			for j, fr := range ref.All {
				if f >= len(fr) {
					return nil, fmt.Errorf("refine: reference piece %d: %d frames, want %d", j, len(fr), n)
				}
				ms.ReferenceVerts += len(fr[f])
				ms.ReferenceDeep += countDeep(pen, fr[f])
			}
		}
	}
	return out, nil
}

// keyCurv holds per-key |H| of one piece's meshes.
type keyCurv struct {
	h    []float64
	hRef []float64
	hC   []float64
}

func (pr *PieceResult) measure(f, i int, kc *keyCurv, ref *Reference, pen *collide.Body, ms *Measure) error {
	bl := pr.BlockAt(f)
	fm := pr.FrameMesh(f)
	nc := int32(len(pr.Coarse.Verts))
	top, err := topologyOf(bl)
	if err != nil {
		return err
	}
	nk := len(pr.Coarse.Verts) + len(top.coarse.Edges)
	kc.h = resize(kc.h, nk)
	h := absMean(fm, top.fine)
	ms.WholeRefined += wholeSum(fm, top.fine, h)
	for v, k := range bl.Keys {
		kc.h[k] = h[v]
	}
	cm := &mesh.Mesh{Verts: pr.coarseFrame(f), Tris: pr.Coarse.Tris}
	hc := absMean(cm, top.coarse)
	ms.WholeCoarse += wholeSum(cm, top.coarse, hc)
	if ref != nil {
		rm := *ref.Meshes[i]
		rm.Verts = ref.Frames[i][f]
		rt, err := mesh.NewTopology(&rm)
		if err != nil {
			return err
		}
		hr := absMean(&rm, rt)
		ms.WholeReference += wholeSum(&rm, rt, hr)
		kc.hRef = resize(kc.hRef, nk)
		for k, v := range ref.Keys[i] {
			if v >= 0 {
				kc.hRef[k] = hr[v]
			}
		}
	}
	cx := pr.coarseFrame(f)
	for _, t := range bl.Active {
		tr := pr.Coarse.Tris[t]
		var m [3]int32
		for c := range 3 {
			e, _ := top.coarse.Edge(tr[c], tr[(c+1)%3])
			m[c] = nc + e
		}
		kids := [4][3]int32{{tr[0], m[0], m[2]}, {tr[1], m[1], m[0]}, {tr[2], m[2], m[1]}, {m[0], m[1], m[2]}}
		for _, kt := range kids {
			a := tri(fm.Verts, bl, kt)
			ms.Area += a
			ms.Refined += a * (kc.h[kt[0]] + kc.h[kt[1]] + kc.h[kt[2]]) / 3
			if ref != nil {
				rk := ref.Keys[i]
				rx := ref.Frames[i][f]
				if rk[kt[0]] < 0 || rk[kt[1]] < 0 || rk[kt[2]] < 0 {
					return fmt.Errorf("refine: %s: key of triangle %d missing in the reference", pr.Name, t)
				}
				ar := geom.TriangleArea(rx[rk[kt[0]]], rx[rk[kt[1]]], rx[rk[kt[2]]])
				ms.Reference += ar * (kc.hRef[kt[0]] + kc.hRef[kt[1]] + kc.hRef[kt[2]]) / 3
			}
		}
		ms.Coarse += geom.TriangleArea(cx[tr[0]], cx[tr[1]], cx[tr[2]]) * (hc[tr[0]] + hc[tr[1]] + hc[tr[2]]) / 3
	}
	ms.Verts += len(fm.Verts)
	for _, fr := range bl.free {
		if fr {
			ms.Free++
		}
	}
	ms.CoarseVerts += len(cx)
	if pen != nil {
		ms.CoarseDeep += countDeep(pen, cx)
		for v, q := range fm.Verts {
			deep := isDeep(pen, q)
			free := bl.free != nil && bl.free[v]
			if deep {
				ms.Deep++
				if free {
					ms.DeepFree++
				}
			}
			if !free || ref == nil {
				continue
			}
			if k := bl.Keys[v]; int(k) < len(ref.Keys[i]) && ref.Keys[i][k] >= 0 {
				ms.Paired++
				if deep {
					ms.PairedDeep++
				}
				if isDeep(pen, ref.Frames[i][f][ref.Keys[i][k]]) {
					ms.PairedRefDeep++
				}
			}
		}
	}
	// Strain of the patch edges (children of red triangles).
	for t, tr := range bl.Mesh.Tris {
		if !top.redChild[t] {
			continue
		}
		for c := range 3 {
			a, b := tr[c], tr[(c+1)%3]
			if a > b || !bl.free[a] && !bl.free[b] {
				continue // each inner edge once (and boundary edges half the time)
			}
			L := bl.Mesh.Verts[a].Dist(bl.Mesh.Verts[b])
			if L <= 0 {
				continue
			}
			s := fm.Verts[a].Dist(fm.Verts[b])/L - 1
			ms.Edges++
			if s > ms.MaxStrain {
				ms.MaxStrain = s
				ms.Worst.Piece, ms.Worst.A, ms.Worst.B = i, bl.Keys[a], bl.Keys[b]
				ms.Worst.FreeA, ms.Worst.FreeB = bl.free[a], bl.free[b]
			}
			if s > 0.1 {
				ms.Over++
			}
		}
	}
	return nil
}

// coarseFrame is the coarse piece's positions at frame f: the union
// frame's coarse vertices (keys 0..n−1 are coarse positions unless
// refined; see PieceResult.CoarseFrames).
func (pr *PieceResult) coarseFrame(f int) []geom.Vec3 { return pr.CoarseFrames[f] }

// countDeep counts the points of x more than collide.DeepPenetration
// inside pen (0 for a nil pen).
func countDeep(pen *collide.Body, x []geom.Vec3) int {
	n := 0
	if pen == nil {
		return 0
	}
	for _, q := range x {
		if isDeep(pen, q) {
			n++
		}
	}
	return n
}

// isDeep reports whether q is more than collide.DeepPenetration inside pen.
func isDeep(pen *collide.Body, q geom.Vec3) bool {
	c := pen.SignedDistance(q)
	return c.Tri >= 0 && c.Dist < -collide.DeepPenetration
}

func tri(x []geom.Vec3, bl *Block, k [3]int32) float64 {
	return geom.TriangleArea(x[bl.local(k[0])], x[bl.local(k[1])], x[bl.local(k[2])])
}

// local returns the block mesh vertex of key k.
func (bl *Block) local(k int32) int32 {
	if bl.byKey == nil {
		bl.byKey = make(map[int32]int32, len(bl.Keys))
		for i, kk := range bl.Keys {
			bl.byKey[kk] = int32(i)
		}
	}
	return bl.byKey[k]
}

type blockTopo struct {
	fine, coarse *mesh.Topology
	redChild     []bool
}

func topologyOf(bl *Block) (*blockTopo, error) {
	if bl.topo != nil {
		return bl.topo, nil
	}
	ft, err := mesh.NewTopology(bl.Mesh)
	if err != nil {
		return nil, err
	}
	ct, err := mesh.NewTopology(bl.coarse)
	if err != nil {
		return nil, err
	}
	bt := &blockTopo{fine: ft, coarse: ct, redChild: make([]bool, len(bl.Mesh.Tris))}
	for _, s := range bl.redChildren {
		bt.redChild[s] = true
	}
	bl.topo = bt
	return bt, nil
}

func absMean(m *mesh.Mesh, top *mesh.Topology) []float64 {
	h := mesh.NewCurvature(top).Mean(m, mesh.CurvatureCotan, nil)
	for i, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		h[i] = math.Abs(v)
	}
	return h
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// wholeSum is Σ|H_i|A_i over the interior vertices (mixed areas).
func wholeSum(m *mesh.Mesh, top *mesh.Topology, h []float64) float64 {
	return mesh.SummarizeCurvature(h, mesh.MixedAreas(m, nil), top).AbsSum
}
