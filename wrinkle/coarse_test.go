package wrinkle_test

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/wrinkle"
)

// TestNewCoarseFine checks quadric decimation (CoarseOptions.Quadric) of
// a fine piece far above its budget (a sleeve-like tube of 12k vertices to
// 150): mesh.Simplify
// alone stops at about 600 vertices there (every collapse along the tube
// costs no error until slivers block the rest), the pre-pass brings it to
// the budget.
func TestNewCoarseFine(t *testing.T) {
	fine := tube(0.05, 0.6, 60, 200)
	c, err := wrinkle.NewCoarse(fine, oneJoint(len(fine.Verts)), wrinkle.CoarseOptions{Verts: 150, Quadric: true})
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

// TestNewCoarseBudget checks the vertex budget: shared by the pieces
// (connected components) in proportion to their vertex counts,
// DefaultCoarseVerts by default; a piece under its share is kept whole; a
// budget under 16 is refused. Both decimations keep to it.
func TestNewCoarseBudget(t *testing.T) {
	big, small := tube(0.05, 0.6, 60, 60), tube(0.05, 0.3, 30, 10)
	two := joinMeshes(big, tube(0.06, 0.6, 60, 60))
	for _, tc := range []struct {
		name    string
		fine    *mesh.Mesh
		verts   int
		quadric bool
		lo, hi  []int // per piece
	}{
		{"default, one piece", big, 0, false, []int{650}, []int{750}},
		{"default, two pieces", two, 0, false, []int{320, 320}, []int{380, 380}},
		{"default, two pieces, quadric", two, 0, true, []int{320, 320}, []int{380, 380}},
		{"600, two pieces", two, 600, false, []int{280, 280}, []int{320, 320}},
		{"piece under budget", small, 0, false, []int{len(small.Verts)}, []int{len(small.Verts)}},
		{"too small", big, 10, false, nil, nil},
	} {
		c, err := wrinkle.NewCoarse(tc.fine, oneJoint(len(tc.fine.Verts)), wrinkle.CoarseOptions{Verts: tc.verts, Quadric: tc.quadric})
		if tc.lo == nil {
			if err == nil {
				t.Errorf("%s: no error", tc.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(c.Pieces) != len(tc.lo) {
			t.Fatalf("%s: %d pieces, want %d", tc.name, len(c.Pieces), len(tc.lo))
		}
		for i, p := range c.Pieces {
			if n := len(p.Mesh.Verts); n < tc.lo[i] || n > tc.hi[i] {
				t.Errorf("%s: piece %d has %d vertices, want %d to %d", tc.name, i, n, tc.lo[i], tc.hi[i])
			}
		}
	}
}

// joinMeshes returns a and b as one mesh of two components.
func joinMeshes(a, b *mesh.Mesh) *mesh.Mesh {
	m := &mesh.Mesh{Verts: append(append([]geom.Vec3(nil), a.Verts...), b.Verts...)}
	m.Tris = append(m.Tris, a.Tris...)
	off := int32(len(a.Verts))
	for _, t := range b.Tris {
		m.Tris = append(m.Tris, [3]int32{t[0] + off, t[1] + off, t[2] + off})
	}
	return m
}

// TestNewCoarseGolden pins the shortest-edge decimation's result on a
// 12k-vertex tube (bent so that edge lengths vary) taken to 700 vertices:
// a hash of the kept vertices and the coarse triangles. The decimation's
// queue skips edges already queued; the collapses, and so every
// synthesized frame, must stay as they were.
func TestNewCoarseGolden(t *testing.T) {
	fine := tube(0.05, 0.6, 60, 200)
	for i, v := range fine.Verts {
		s := 1 + 0.3*math.Sin(7*v.Y) + 0.05*math.Sin(float64(i))
		fine.Verts[i] = geom.Vec3{X: v.X * s, Y: v.Y, Z: v.Z * (2 - s)}
	}
	c, err := wrinkle.NewCoarse(fine, oneJoint(len(fine.Verts)), wrinkle.CoarseOptions{Verts: 700})
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	var b [4]byte
	put := func(x int32) {
		binary.LittleEndian.PutUint32(b[:], uint32(x))
		h.Write(b[:])
	}
	for _, k := range c.Kept {
		put(k)
	}
	for _, tr := range c.Mesh.Tris {
		put(tr[0])
		put(tr[1])
		put(tr[2])
	}
	const want = 0x721ae442c0128e48
	if got := h.Sum64(); got != want {
		t.Errorf("%d coarse vertices, %d triangles: hash %#x, want %#x", len(c.Mesh.Verts), len(c.Mesh.Tris), got, uint64(want))
	}
}
