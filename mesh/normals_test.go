package mesh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// topoCube returns the closed cube [0,1]³ with outward triangles; the face
// diagonals are chosen so corners have different triangle counts.
func topoCube() *Mesh {
	m := &Mesh{}
	for i := 0; i < 8; i++ {
		m.Verts = append(m.Verts, geom.V(float64(i&1), float64(i>>1&1), float64(i>>2&1)))
	}
	quads := [][4]int32{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	for _, q := range quads {
		m.Tris = append(m.Tris, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	return m
}

// topoJitter moves each vertex of a copy of m by a uniform random offset in
// [−s, s]³ (seeded, deterministic).
func topoJitter(m *Mesh, s float64, seed uint64) *Mesh {
	c := m.Clone()
	rng := rand.New(rand.NewPCG(seed, seed))
	for i := range c.Verts {
		c.Verts[i] = c.Verts[i].Add(geom.V(s*(2*rng.Float64()-1), s*(2*rng.Float64()-1), s*(2*rng.Float64()-1)))
	}
	return c
}

func TestVertexNormalsCube(t *testing.T) {
	// Angle weighting makes each corner normal the diagonal direction even
	// though corners touch 1 or 2 triangles per face.
	m := topoCube()
	n := VertexNormals(m, nil)
	for i, v := range m.Verts {
		want := v.Sub(geom.V(0.5, 0.5, 0.5)).Unit()
		if n[i].Dist(want) > 1e-12 {
			t.Errorf("vertex %d: normal %v, want %v", i, n[i], want)
		}
	}
}

func TestNormalsAndAreas(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       *Mesh
		area    float64 // exact surface area, 0 to skip
		areaTol float64
		radial  bool // normals point away from the origin (sphere)
	}{
		{"grid", Grid(2, 3, 4, 5), 6, 1e-12, false},
		{"cube", topoCube(), 6, 1e-12, false},
		{"sphere", UVSphere(1, 60, 120), 4 * math.Pi, 2e-3, true},
		{"jittered grid", topoJitter(Grid(1, 1, 8, 8), 0.04, 1), 0, 0, false},
		{"jittered sphere", topoJitter(UVSphere(1, 12, 24), 0.05, 2), 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			ta := TriAreas(m, nil)
			var sum float64
			for _, a := range ta {
				sum += a
			}
			total := TotalArea(m)
			if math.Abs(sum-total) > 1e-12*total {
				t.Errorf("Σ TriAreas = %g, TotalArea = %g", sum, total)
			}
			if tc.area > 0 && math.Abs(total-tc.area) > tc.areaTol*tc.area {
				t.Errorf("area %g, want %g", total, tc.area)
			}
			// Mixed areas tile the surface, obtuse triangles included.
			var mixed float64
			for _, a := range MixedAreas(m, nil) {
				if a < 0 {
					t.Fatalf("negative mixed area %g", a)
				}
				mixed += a
			}
			if math.Abs(mixed-total) > 1e-12*total {
				t.Errorf("Σ MixedAreas = %.15g, want %.15g", mixed, total)
			}
			fn := FaceNormals(m, nil)
			for i, tr := range m.Tris {
				n := geom.TriangleNormal(m.Verts[tr[0]], m.Verts[tr[1]], m.Verts[tr[2]])
				if math.Abs(fn[i].Len()-1) > 1e-12 || fn[i].Dot(n) <= 0 {
					t.Fatalf("face %d normal %v", i, fn[i])
				}
			}
			vn := VertexNormals(m, nil)
			for i, n := range vn {
				if math.Abs(n.Len()-1) > 1e-12 {
					t.Fatalf("vertex %d normal %v not unit", i, n)
				}
				if tc.radial && n.Dot(m.Verts[i].Unit()) < 0.9999 {
					t.Fatalf("vertex %d normal %v not radial", i, n)
				}
			}
		})
	}
}

func TestMixedAreasObtuse(t *testing.T) {
	// One obtuse triangle: area/2 to the obtuse corner, area/4 elsewhere.
	m := &Mesh{Verts: []geom.Vec3{{}, {X: 4}, {X: 2, Y: 0.5}}, Tris: [][3]int32{{0, 1, 2}}}
	got := MixedAreas(m, nil)
	want := []float64{0.25, 0.25, 0.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("MixedAreas = %v, want %v", got, want)
			break
		}
	}
	// Right isosceles triangle: the Voronoi split is (1/4, 1/8+1/8·..) exact.
	m = &Mesh{Verts: []geom.Vec3{{}, {X: 1}, {Y: 1}}, Tris: [][3]int32{{0, 1, 2}}}
	got = MixedAreas(m, nil)
	want = []float64{0.25, 0.125, 0.125}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("right triangle MixedAreas = %v, want %v", got, want)
			break
		}
	}
}

func TestNormalsDstReuse(t *testing.T) {
	m := UVSphere(1, 6, 8)
	buf := make([]geom.Vec3, 0, 100)
	out := VertexNormals(m, buf)
	if &out[0] != &buf[:1][0] {
		t.Error("VertexNormals did not reuse dst")
	}
	if n := testing.AllocsPerRun(10, func() { out = VertexNormals(m, out) }); n != 0 {
		t.Errorf("VertexNormals with dst allocates %v times", n)
	}
}

// TestVertexNormalAt checks that one vertex's normal from its fan has the
// bits of VertexNormals, on meshes with several valences, a boundary and
// a zero-area triangle, before and after a random deformation.
func TestVertexNormalAt(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	flat := Grid(1, 1, 3, 3)
	flat.Verts = append(flat.Verts, flat.Verts[0], flat.Verts[1])
	n := int32(len(flat.Verts))
	flat.Tris = append(flat.Tris, [3]int32{n - 2, n - 1, 0}) // zero area
	for _, tc := range []struct {
		name string
		m    *Mesh
	}{
		{"cube", topoCube()},
		{"sphere", UVSphere(1, 8, 12)},
		{"grid with a zero-area triangle", flat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Mesh{Verts: append([]geom.Vec3(nil), tc.m.Verts...), Tris: tc.m.Tris}
			tp, err := NewTopology(m)
			if err != nil {
				t.Fatal(err)
			}
			for pass := range 2 {
				if pass == 1 {
					for i := range m.Verts {
						m.Verts[i] = m.Verts[i].Add(geom.V(rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64()).Scale(0.05))
					}
				}
				want := VertexNormals(m, nil)
				for v := range m.Verts {
					if got := VertexNormalAt(m, int32(v), tp.VertTriangles(int32(v))); got != want[v] {
						t.Fatalf("pass %d, vertex %d: %v, VertexNormals %v", pass, v, got, want[v])
					}
				}
			}
		})
	}
}
