package refine

import (
	"fmt"
	"slices"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// SubdivideGarment returns g subdivided uniformly 1-to-4 (mesh.Subdivide:
// every edge halved, as the refined regions' are) with skin weights
// averaged at the midpoints, for the uniform high-resolution reference.
// Pins and hidden body vertices carry over; the binding does not.
func SubdivideGarment(g *character.Garment) (*character.Garment, *mesh.SubdivMap, error) {
	if err := g.Mesh.Validate(); err != nil {
		return nil, nil, fmt.Errorf("refine: garment %s: %w", g.Name, err)
	}
	if g.Weights.NumVerts() != len(g.Mesh.Verts) {
		return nil, nil, fmt.Errorf("refine: garment %s: %d skin weight lists for %d vertices", g.Name, g.Weights.NumVerts(), len(g.Mesh.Verts))
	}
	m, sm := mesh.Subdivide(g.Mesh)
	lists := make([][]skel.Influence, len(m.Verts))
	add := func(v int, src int32, s float32) {
		js, ws := g.Weights.Influences(int(src))
		for k := range js {
			i := slices.IndexFunc(lists[v], func(x skel.Influence) bool { return x.Joint == js[k] })
			if i < 0 {
				lists[v] = append(lists[v], skel.Influence{Joint: js[k], W: ws[k] * s})
			} else {
				lists[v][i].W += ws[k] * s
			}
		}
	}
	for v := 0; v < sm.NumOrig; v++ {
		add(v, int32(v), 1)
	}
	for j, par := range sm.Parents {
		add(sm.NumOrig+j, par[0], 0.5)
		add(sm.NumOrig+j, par[1], 0.5)
		slices.SortFunc(lists[sm.NumOrig+j], func(a, b skel.Influence) int { return int(a.Joint - b.Joint) })
	}
	out := &character.Garment{Name: g.Name, Mesh: m, Weights: skel.NewWeights(lists),
		Pins: slices.Clone(g.Pins), DeleteVerts: slices.Clone(g.DeleteVerts)}
	return out, sm, nil
}

// LocateKeys finds the keys of a coarse piece in the pieces of a reference
// simulation of its garment subdivided by sm (SubdivideGarment): it returns
// the reference piece and, per key, its vertex there (−1 none). Both
// pieces map to garment vertices through sim.Piece.Source.
func LocateKeys(coarse *sim.Piece, sm *mesh.SubdivMap, ref []*sim.Piece) (int, []int32, error) {
	top, err := mesh.NewTopology(coarse.Mesh)
	if err != nil {
		return -1, nil, fmt.Errorf("refine: %s: %w", coarse.Name, err)
	}
	mid := make(map[[2]int32]int32, len(sm.Parents))
	for j, par := range sm.Parents {
		mid[[2]int32{min(par[0], par[1]), max(par[0], par[1])}] = int32(sm.NumOrig + j)
	}
	// Garment vertex → (reference piece, vertex).
	type loc struct{ p, v int32 }
	at := map[int32]loc{}
	for j, rp := range ref {
		if rp.Garment != coarse.Garment {
			continue
		}
		for v, g := range rp.Source {
			if g >= 0 {
				at[g] = loc{int32(j), int32(v)}
			}
		}
	}
	n := len(coarse.Mesh.Verts)
	keys := make([]int32, n+len(top.Edges))
	piece := int32(-1)
	set := func(k int, g int32) error {
		l, ok := at[g]
		if !ok {
			keys[k] = -1
			return nil
		}
		if piece >= 0 && l.p != piece {
			return fmt.Errorf("refine: %s: key %d in reference piece %d, others in %d", coarse.Name, k, l.p, piece)
		}
		piece = l.p
		keys[k] = l.v
		return nil
	}
	for v := range n {
		if err := set(v, coarse.Source[v]); err != nil {
			return -1, nil, err
		}
	}
	for e, ab := range top.Edges {
		a, b := coarse.Source[ab[0]], coarse.Source[ab[1]]
		g, ok := mid[[2]int32{min(a, b), max(a, b)}]
		if !ok || a < 0 || b < 0 {
			keys[n+e] = -1
			continue
		}
		if err := set(n+e, g); err != nil {
			return -1, nil, err
		}
	}
	if piece < 0 {
		return -1, nil, fmt.Errorf("refine: %s: not found in the reference", coarse.Name)
	}
	return int(piece), keys, nil
}
