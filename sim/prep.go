package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// Piece is one connected piece of a garment, ready to simulate: its mesh in
// the rest pose (possibly subdivided), its skin weights (to follow the body
// where pinned, and as the skinning baseline) and the vertices attached to
// the body.
type Piece struct {
	// Name is the garment name, with "#k" for the k-th piece of a garment
	// that has several.
	Name string
	// Mesh is the piece in the character's rest pose, metres.
	Mesh *mesh.Mesh
	// Weights are skin weights for the character's skeleton.
	Weights skel.Weights
	// Attach lists the vertices held to their skinned positions (the top
	// of the top boundary loop: a waistband or a collar; TopBand).
	Attach []int32
	// Pins lists the vertices a user asked to hold to the body
	// (character.Garment.Pins) that are not in Attach: each follows the
	// body point it was bound to at the start.
	Pins []int32
	// Layer orders pieces from the body outwards (0 = innermost).
	Layer int
	// Rest is the rest shape the solver used, set by Run when it takes the
	// rest shape from the 3D garment (Options.PatternRest off, or UVs that
	// are not metric): Mesh.Verts moved by the initial push-out from the
	// body and the inner layers (a few millimetres at most). The frame
	// statistics' edge strains are measured against it; nil otherwise.
	Rest []geom.Vec3
	// Garment and Source map back: the garment index and, for each piece
	// vertex that is an original garment vertex, its index there (-1 for
	// vertices added by subdivision).
	Garment int
	Source  []int32

	order *pieceOrder // set by reorder while Run works on the piece
}

// SplitPieces splits a garment mesh into its connected components (a suit
// OBJ often holds a shirt and trousers). Isolated vertices are dropped.
func SplitPieces(name string, m *mesh.Mesh, w skel.Weights) ([]*Piece, error) {
	if w.NumVerts() != len(m.Verts) {
		return nil, fmt.Errorf("garment %s: %d skin weight lists for %d vertices", name, w.NumVerts(), len(m.Verts))
	}
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, fmt.Errorf("garment %s: %w", name, err)
	}
	var out []*Piece
	for c := 0; c < top.NumComps; c++ {
		pm, src, _ := mesh.Extract(m, func(t int) bool { return top.TriComp[t] == int32(c) })
		p := &Piece{Name: name, Mesh: pm, Source: src, Weights: subWeights(w, src)}
		if top.NumComps > 1 {
			p.Name = fmt.Sprintf("%s#%d", name, c)
		}
		out = append(out, p)
	}
	return out, nil
}

// subWeights selects the weight lists of vertices src.
func subWeights(w skel.Weights, src []int32) skel.Weights {
	lists := make([][]skel.Influence, len(src))
	for i, v := range src {
		js, ws := w.Influences(int(v))
		for k := range js {
			lists[i] = append(lists[i], skel.Influence{Joint: js[k], W: ws[k]})
		}
	}
	return skel.NewWeights(lists)
}

// Subdivide refines a piece by 1-to-4 midpoint subdivision `levels` times,
// carrying skin weights (new vertex = mean of its two parents' weights),
// attachments and the source map.
func (p *Piece) Subdivide(levels int) {
	for l := 0; l < levels; l++ {
		p.carry(mesh.Subdivide(p.Mesh))
	}
	p.Attach = nil
}

// mergeInfluences averages the influence lists of vertices a and b.
func mergeInfluences(w skel.Weights, a, b int32) []skel.Influence {
	acc := map[int32]float32{}
	for _, v := range []int32{a, b} {
		js, ws := w.Influences(int(v))
		for k := range js {
			acc[js[k]] += ws[k] / 2
		}
	}
	out := make([]skel.Influence, 0, len(acc))
	for j, x := range acc {
		out = append(out, skel.Influence{Joint: j, W: x})
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Joint < out[k].Joint })
	return out
}

// LevelsFor returns how many subdivision levels bring nv vertices to at
// least target (each level roughly quadruples the count); 0 if target ≤ nv.
func LevelsFor(nv, target int) int {
	l := 0
	for n := nv; n < target && l < 6; n *= 4 {
		l++
	}
	return l
}

// TopLoop returns the boundary loop of m with the highest mean height (the
// waistband of trousers, the collar of a shirt), or nil when m is closed.
// A mesh whose topology cannot be built (non-manifold) is an error: its
// garment would be simulated without its attachment.
func TopLoop(m *mesh.Mesh) ([]int32, error) {
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, fmt.Errorf("finding the top boundary loop: %w", err)
	}
	best, bestY := -1, math.Inf(-1)
	for i, loop := range top.BoundaryLoops {
		y := 0.0
		for _, v := range loop {
			y += m.Verts[v].Y
		}
		y /= float64(len(loop))
		if y > bestY {
			best, bestY = i, y
		}
	}
	if best < 0 {
		return nil, nil
	}
	return append([]int32(nil), top.BoundaryLoops[best]...), nil
}

// attachBand (m) is how far below the highest vertex of a piece's top
// boundary loop the loop is attached (TopBand): a waistband or a collar
// spans a few centimetres of height (the MakeHuman suit's trousers 4.9 cm,
// its shirt's collar 4.6 cm), while an open front (a jacket, a blouse)
// joins the collar, the front edges and the hem in one loop that spans the
// whole torso.
const attachBand = 0.10

// TopBand returns the vertices of m's top boundary loop (TopLoop) that lie
// within attachBand of its highest one, in loop order: the whole of a
// waistband or a collar, and only the collar of an open-front garment,
// whose hem and front edges then hang free. One rigid motion cannot hold
// a collar and a hem together on a twisting body: fitted to both, it held
// the MakeHuman blouse's collar up to 36 mm inside the shoulders with the
// spine twisted 60°.
func TopBand(m *mesh.Mesh) ([]int32, error) {
	loop, err := TopLoop(m)
	if len(loop) == 0 || err != nil {
		return loop, err
	}
	top := math.Inf(-1)
	for _, v := range loop {
		top = max(top, m.Verts[v].Y)
	}
	return slices.DeleteFunc(loop, func(v int32) bool { return m.Verts[v].Y < top-attachBand }), nil
}

// OrderLayers sets Layer on each piece from the body outwards: where two
// pieces overlap (vertices of one within reach of the other's surface), the
// one whose overlapping vertices are farther from the body is outside.
// dist returns a point's distance to the body surface.
func OrderLayers(ps []*Piece, dist func(p geom.Vec3) float64) {
	n := len(ps)
	outer := make([]int, n) // number of pieces each one is outside of
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			bi := mesh.NewBVH(ps[j].Mesh.Verts, ps[j].Mesh.Tris)
			var di, dj []float64
			for _, v := range ps[i].Mesh.Verts {
				if _, ok := bi.ClosestPointWithin(v, 0.04); ok {
					di = append(di, dist(v))
				}
			}
			bj := mesh.NewBVH(ps[i].Mesh.Verts, ps[i].Mesh.Tris)
			for _, v := range ps[j].Mesh.Verts {
				if _, ok := bj.ClosestPointWithin(v, 0.04); ok {
					dj = append(dj, dist(v))
				}
			}
			if len(di) == 0 || len(dj) == 0 {
				continue
			}
			if median(di) > median(dj) {
				outer[i]++
			} else {
				outer[j]++
			}
		}
	}
	for i, p := range ps {
		p.Layer = outer[i]
	}
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// Refine splits, by conforming red–green refinement (mesh.SubdivideTris),
// every triangle whose longest edge exceeds maxEdge (m), repeatedly, until
// none does or 8 passes have run, carrying skin weights (a new vertex gets
// the mean of its edge's ends) and the source map as Subdivide does.
// Unlike uniform subdivision it leaves triangles that are already small
// alone, so a garment modelled with fine detail in places (cuffs, collar,
// pockets) ends up with edges of about the same length everywhere instead
// of keeping its size ratios: uniform subdivision of the MakeHuman shirt
// to 19k vertices made 1 mm cuff edges beside 25 mm back panels, whose
// light vertices the implicit solve resolves poorly.
func (p *Piece) Refine(maxEdge float64) {
	for pass := 0; pass < 8; pass++ {
		var tris []int32
		for t, tr := range p.Mesh.Tris {
			a, b, c := p.Mesh.Verts[tr[0]], p.Mesh.Verts[tr[1]], p.Mesh.Verts[tr[2]]
			if max(a.Dist(b), b.Dist(c), c.Dist(a)) > maxEdge {
				tris = append(tris, int32(t))
			}
		}
		if len(tris) == 0 {
			break
		}
		m, sm := mesh.SubdivideTris(p.Mesh, tris)
		p.carry(m, sm)
	}
	p.Attach = nil
}

// carry replaces the piece's mesh by its refinement m, extending the skin
// weights and the source map.
func (p *Piece) carry(m *mesh.Mesh, sm *mesh.SubdivMap) {
	lists := make([][]skel.Influence, len(m.Verts))
	for v := 0; v < sm.NumOrig; v++ {
		js, ws := p.Weights.Influences(v)
		for k := range js {
			lists[v] = append(lists[v], skel.Influence{Joint: js[k], W: ws[k]})
		}
	}
	for j, par := range sm.Parents {
		lists[sm.NumOrig+j] = mergeInfluences(p.Weights, par[0], par[1])
	}
	p.Mesh = m
	p.Weights = skel.NewWeights(lists)
	for len(p.Source) < len(m.Verts) {
		p.Source = append(p.Source, -1)
	}
}

// RefinePieces refines the pieces (Refine) with the longest edge length that
// brings their total vertex count to at least target (and within 5 % of it
// where the bisection finds one in 10 trials); it returns the edge length used (0 when the
// pieces already have target vertices). The pieces are replaced.
func RefinePieces(pieces []*Piece, target int) float64 {
	count := func(ps []*Piece) int {
		n := 0
		for _, p := range ps {
			n += len(p.Mesh.Verts)
		}
		return n
	}
	if count(pieces) >= target {
		return 0
	}
	area := 0.0
	for _, p := range pieces {
		for _, tr := range p.Mesh.Tris {
			area += geom.TriangleArea(p.Mesh.Verts[tr[0]], p.Mesh.Verts[tr[1]], p.Mesh.Verts[tr[2]])
		}
	}
	try := func(edge float64) []*Piece {
		out := make([]*Piece, len(pieces))
		for i, p := range pieces {
			q := *p
			q.Refine(edge)
			out[i] = &q
		}
		return out
	}
	// An equilateral mesh of edge ℓ has about area/(0.866·ℓ²) vertices;
	// refinement by halving lands edges between ℓ/2 and ℓ, so bisect on ℓ.
	// The bracket [ℓ0/4, 4ℓ0] around the estimate ℓ0; stop within 5 % of
	// target.
	l0 := math.Sqrt(area / (0.866 * float64(target)))
	lo, hi := l0/4, 4*l0
	var best []*Piece
	bestEdge := lo
	for it := 0; it < 10; it++ {
		mid := math.Sqrt(lo * hi)
		ps := try(mid)
		n := count(ps)
		if n >= target {
			lo, best, bestEdge = mid, ps, mid
			if float64(n) <= 1.05*float64(target) {
				break
			}
		} else {
			hi = mid
		}
	}
	if best == nil {
		best = try(lo)
	}
	copy(pieces, best)
	return bestEdge
}

// JoinPieces concatenates pieces (in their own vertex order, as
// Simulator.Pieces gives them) into one mesh with one skin weight list per
// vertex, piece after piece; offs[i] is piece i's first vertex there and
// name joins the pieces' names with "+". This is the garment a wrinkle
// database stores and the online pipeline checks against it.
func JoinPieces(pieces []*Piece) (m *mesh.Mesh, w skel.Weights, offs []int, name string) {
	m = &mesh.Mesh{}
	w = skel.Weights{Offsets: []int32{0}}
	names := make([]string, 0, len(pieces))
	for _, p := range pieces {
		off := int32(len(m.Verts))
		offs = append(offs, int(off))
		m.Verts = append(m.Verts, p.Mesh.Verts...)
		for _, t := range p.Mesh.Tris {
			m.Tris = append(m.Tris, [3]int32{t[0] + off, t[1] + off, t[2] + off})
		}
		for v := range p.Mesh.Verts {
			js, ws := p.Weights.Influences(v)
			w.Joints = append(w.Joints, js...)
			w.W = append(w.W, ws...)
			w.Offsets = append(w.Offsets, int32(len(w.Joints)))
		}
		names = append(names, p.Name)
	}
	return m, w, offs, strings.Join(names, "+")
}
