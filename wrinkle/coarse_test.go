package wrinkle_test

import (
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/wrinkle"
)

// TestNewCoarseFine checks quadric decimation of a fine piece far above
// its budget (a sleeve-like tube of 12k vertices to 150): mesh.Simplify
// alone stops at about 600 vertices there (every collapse along the tube
// costs no error until slivers block the rest), the pre-pass brings it to
// the budget.
func TestNewCoarseFine(t *testing.T) {
	fine := tube(0.05, 0.6, 60, 200)
	c, err := wrinkle.NewCoarse(fine, oneJoint(len(fine.Verts)), wrinkle.CoarseOptions{Verts: 150})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Mesh.Validate(); err != nil {
		t.Fatal(err)
	}
	if n := len(c.Mesh.Verts); n < 120 || n > 190 {
		t.Errorf("%d coarse vertices, want about 150", n)
	}
	for i, k := range c.Kept {
		if c.Mesh.Verts[i] != fine.Verts[k] {
			t.Fatalf("coarse vertex %d is not fine vertex %d", i, k)
		}
	}
	var l []float64
	for _, tr := range c.Mesh.Tris {
		for k := range 3 {
			l = append(l, c.Mesh.Verts[tr[k]].Dist(c.Mesh.Verts[tr[(k+1)%3]]))
		}
	}
	slices.Sort(l)
	t.Logf("%d vertices; edges: median %.0f mm, p99 %.0f mm, max %.0f mm", len(c.Mesh.Verts), l[len(l)/2]*1000, l[len(l)*99/100]*1000, l[len(l)-1]*1000)
}
