package refine

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TestPNMidOnSphere checks that refinement alone adds no artefacts: the
// new vertices of a coarse sphere lie on it, to a small fraction of the
// straight midpoints' error (1.7 mm against 0.05 mm here).
func TestPNMidOnSphere(t *testing.T) {
	const r = 0.1
	m := mesh.UVSphere(r, 12, 24)
	top, err := mesh.NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := keyPositions(top, m.Tris, m.Verts, nil, nil)
	n := len(m.Verts)
	var pn, lin float64
	for e, ab := range top.Edges {
		mid := m.Verts[ab[0]].Add(m.Verts[ab[1]]).Scale(0.5)
		lin = math.Max(lin, math.Abs(mid.Len()-r))
		pn = math.Max(pn, math.Abs(keys[n+e].Len()-r))
	}
	t.Logf("largest distance from the sphere: straight midpoints %.3f mm, PN %.3f mm", lin*1000, pn*1000)
	if pn > lin/4 {
		t.Errorf("PN midpoints %.3f mm off the sphere, straight %.3f mm: want a quarter at most", pn*1000, lin*1000)
	}
}

func TestPNMidCapped(t *testing.T) {
	// Normals at right angles to each other across a 1 m edge: the cubic's
	// offset is capped at pnMaxOffset.
	p := pnMid(geom.V(0, 0, 0), geom.V(1, 0, 0), geom.V(-1, 0, 0), geom.V(0, 1, 0))
	if off := p.Sub(geom.V(0.5, 0, 0)).Len(); off > pnMaxOffset+1e-12 {
		t.Errorf("offset %.3f m, want at most %.3f", off, pnMaxOffset)
	}
}
