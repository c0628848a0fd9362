package collide

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// scaledMesh returns m with its vertices scaled by s about the origin and
// moved by d, its triangles reversed when flip is set.
func scaledMesh(m *mesh.Mesh, s float64, d geom.Vec3, flip bool) *mesh.Mesh {
	out := &mesh.Mesh{Verts: make([]geom.Vec3, len(m.Verts)), Tris: make([][3]int32, len(m.Tris))}
	for i, p := range m.Verts {
		out.Verts[i] = p.Scale(s).Add(d)
	}
	for i, t := range m.Tris {
		if flip {
			t[1], t[2] = t[2], t[1]
		}
		out.Tris[i] = t
	}
	return out
}

func TestThrough(t *testing.T) {
	ball := mesh.UVSphere(0.1, 16, 24) // 16·15·... 362 vertices
	nBall := len(ball.Verts)
	plane := sheet(2, 2, 40, 40, 0) // 5 cm spacing, normal +Y
	up := func(y float64) geom.Vec3 { return geom.V(0, y, 0) }
	// Body vertices inside the 0.52 m cloth sheet's extent: the 11×11 at
	// x, z ∈ {−0.25, …, 0.25}, 1 cm inside its rim; those beyond the rim
	// are not covered.
	const inSheet = 121
	tests := []struct {
		name    string
		body    *mesh.Mesh
		cloth   *mesh.Mesh
		covered int
		through int
		maxLo   float64 // MaxThrough within [maxLo, maxHi], m
		maxHi   float64
	}{
		{"sphere under a larger sphere", ball, scaledMesh(ball, 1.1, geom.Vec3{}, false), nBall, 0, 0, 0},
		{"sphere 1 mm through", ball, scaledMesh(ball, 0.99, geom.Vec3{}, false), nBall, 0, 0.0009, 0.001},
		{"sphere 5 mm through", ball, scaledMesh(ball, 0.95, geom.Vec3{}, false), nBall, nBall, 0.0045, 0.005},
		{"sphere 5 mm through, cloth wound inward", ball, scaledMesh(ball, 0.95, geom.Vec3{}, true), nBall, nBall, 0.0045, 0.005},
		{"sphere far inside a larger sphere", ball, scaledMesh(ball, 1.5, geom.Vec3{}, false), 0, 0, 0, 0},
		{"plane under a sheet", plane, sheet(0.52, 0.52, 13, 13, 0.01), inSheet, 0, 0, 0},
		{"plane 5 mm through a sheet", plane, sheet(0.52, 0.52, 13, 13, -0.005), inSheet, inSheet, 0.005 - 1e-12, 0.005 + 1e-12},
		{"plane 1 mm through a sheet", plane, scaledMesh(sheet(0.52, 0.52, 13, 13, 0), 1, up(-0.001), true), inSheet, 0, 0.001 - 1e-12, 0.001 + 1e-12},
		{"plane 5 cm through a sheet (too far)", plane, sheet(0.52, 0.52, 13, 13, -0.05), 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, workers := range []int{1, 3} {
				th, err := NewThrough([]*mesh.Mesh{tc.cloth})
				if err != nil {
					t.Fatal(err)
				}
				th.Workers = workers
				s := th.Measure([][]geom.Vec3{tc.cloth.Verts}, tc.body.Verts, tc.body.Tris)
				if s.Covered != tc.covered || s.Through != tc.through {
					t.Errorf("workers %d: covered %d, through %d; want %d, %d", workers, s.Covered, s.Through, tc.covered, tc.through)
				}
				if !(s.MaxThrough >= tc.maxLo && s.MaxThrough <= tc.maxHi) {
					t.Errorf("workers %d: MaxThrough %.6f m, want in [%.6f, %.6f]", workers, s.MaxThrough, tc.maxLo, tc.maxHi)
				}
			}
		})
	}
}

// TestThroughCross checks that a garment across the skin (normals 90°
// apart) does not cover it, and that the deepest garment counts where two
// cover one vertex.
func TestThroughCross(t *testing.T) {
	plane := sheet(1, 1, 20, 20, 0)
	wall := scaledMesh(sheet(0.52, 0.52, 13, 13, 0), 1, geom.Vec3{}, false)
	for i, p := range wall.Verts { // the sheet turned upright, in the YZ plane
		wall.Verts[i] = geom.V(0.01, p.X, p.Z)
	}
	over := sheet(0.52, 0.52, 13, 13, 0.01)
	thru := sheet(0.52, 0.52, 13, 13, -0.004)
	th, err := NewThrough([]*mesh.Mesh{wall, over, thru})
	if err != nil {
		t.Fatal(err)
	}
	s := th.Measure([][]geom.Vec3{wall.Verts, over.Verts, thru.Verts}, plane.Verts, plane.Tris)
	if s.Covered != 121 || s.Through != 121 || math.Abs(s.MaxThrough-0.004) > 1e-12 {
		t.Errorf("got %+v, want 121 covered, 121 through, max 0.004", s)
	}
	th2, _ := NewThrough([]*mesh.Mesh{wall})
	if s := th2.Measure([][]geom.Vec3{wall.Verts}, plane.Verts, plane.Tris); s.Covered != 0 {
		t.Errorf("a garment across the skin covers %d vertices, want 0", s.Covered)
	}
}

// TestThroughHandOverCloth checks that body geometry lying over a garment
// (a 2 cm slab, like the back of a hand beside a skirt, 5 mm above a sheet
// that lies on the skin) is not counted as through it: the garment's
// point under the slab's top is outside the body.
func TestThroughHandOverCloth(t *testing.T) {
	plane := sheet(1, 1, 20, 20, 0)
	hand := box(geom.V(-0.05, 0.01, -0.05), geom.V(0.05, 0.03, 0.05))
	body := &mesh.Mesh{Verts: append(append([]geom.Vec3(nil), plane.Verts...), hand.Verts...), Tris: append([][3]int32(nil), plane.Tris...)}
	for _, tr := range hand.Tris {
		n := int32(len(plane.Verts))
		body.Tris = append(body.Tris, [3]int32{tr[0] + n, tr[1] + n, tr[2] + n})
	}
	cl := sheet(0.52, 0.52, 13, 13, 0.005)
	th, err := NewThrough([]*mesh.Mesh{cl})
	if err != nil {
		t.Fatal(err)
	}
	if s := th.Measure([][]geom.Vec3{cl.Verts}, body.Verts, body.Tris); s.Through != 0 || s.MaxThrough != 0 {
		t.Errorf("got %+v, want none through", s)
	}
}
