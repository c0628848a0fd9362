package sim

import (
	"testing"

	"github.com/pleat-dev/pleat/scene"
)

// RefinePieces reaches the vertex count asked (within 10 % above it),
// leaves no edge longer than the length it reports, keeps the pieces
// conforming (every edge in one or two triangles) and carries a skin
// weight list and a source entry to every new vertex.
func TestRefinePieces(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 2, Resolution: 700})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []int{2000, 8000} {
		var pieces []*Piece
		n0 := 0
		for _, g := range s.Garments {
			ps, err := SplitPieces(g.Name, g.Mesh, g.Weights)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				n0 += len(p.Mesh.Verts)
			}
			pieces = append(pieces, ps...)
		}
		edge := RefinePieces(pieces, target)
		n := 0
		for _, p := range pieces {
			m := p.Mesh
			n += len(m.Verts)
			if err := m.Validate(); err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			if p.Weights.NumVerts() != len(m.Verts) || len(p.Source) != len(m.Verts) {
				t.Errorf("%s: %d weight lists, %d sources for %d vertices", p.Name, p.Weights.NumVerts(), len(p.Source), len(m.Verts))
			}
			uses := map[[2]int32]int{}
			for _, tr := range m.Tris {
				for k := 0; k < 3; k++ {
					a, b := tr[k], tr[(k+1)%3]
					if a > b {
						a, b = b, a
					}
					uses[[2]int32{a, b}]++
					if l := m.Verts[a].Dist(m.Verts[b]); l > edge*(1+1e-9) {
						t.Fatalf("%s: edge %d-%d is %.4f m > %.4f m", p.Name, a, b, l, edge)
					}
				}
			}
			for e, u := range uses {
				if u > 2 {
					t.Fatalf("%s: edge %v in %d triangles", p.Name, e, u)
				}
			}
		}
		t.Logf("target %d: %d → %d vertices, edges ≤ %.1f mm", target, n0, n, edge*1000)
		if n < target || float64(n) > 1.1*float64(target) {
			t.Errorf("target %d: got %d vertices", target, n)
		}
	}
}
