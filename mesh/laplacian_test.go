package mesh

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pleat-dev/pleat/geom"
)

func TestLaplacianStructure(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *Mesh
	}{
		{"grid", Grid(1, 1, 3, 4)},
		{"sphere", UVSphere(1, 5, 7)},
		{"jittered cylinder", topoJitter(topoCylinder(1, 2, 9, 4), 0.05, 3)},
		{"cube", topoCube()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := NewTopology(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			for _, L := range []*Laplacian{NewCotanLaplacian(tc.m, tp), NewUniformLaplacian(tp)} {
				n := L.N
				// Dense copy through the gonum interface.
				d := mat.DenseCopyOf(L)
				x := make([]float64, n)
				for i := range x {
					x[i] = math.Sin(float64(3*i + 1))
				}
				got := L.MulVec(nil, x)
				var want mat.VecDense
				want.MulVec(d, mat.NewVecDense(n, x))
				for i := 0; i < n; i++ {
					var row float64
					for j := 0; j < n; j++ {
						if L.At(i, j) != L.At(j, i) {
							t.Fatalf("not symmetric at %d,%d", i, j)
						}
						row += L.At(i, j)
					}
					if math.Abs(row) > 1e-12 {
						t.Fatalf("row %d sums to %g", i, row)
					}
					if math.Abs(got[i]-want.AtVec(i)) > 1e-12 {
						t.Fatalf("MulVec[%d] = %g, dense %g", i, got[i], want.AtVec(i))
					}
				}
				// MulVec3 acts per component.
				v := make([]geom.Vec3, n)
				for i := range v {
					v[i] = geom.V(x[i], 2*x[i], -x[i])
				}
				g3 := L.MulVec3(nil, v)
				for i := range g3 {
					if g3[i].Dist(geom.V(got[i], 2*got[i], -got[i])) > 1e-12 {
						t.Fatalf("MulVec3[%d] = %v", i, g3[i])
					}
				}
			}
		})
	}
}

func TestLaplacianWeights(t *testing.T) {
	// Right isosceles triangles of Grid: the diagonal edge is opposite two
	// right angles (weight 0); interior axis edges see two 45° angles (1).
	m := Grid(2, 2, 2, 2)
	tp, _ := NewTopology(m)
	L := NewCotanLaplacian(m, tp)
	e, _ := tp.Edge(0, 4) // diagonal of quad (0,0)
	if w := L.Weight(e); math.Abs(w) > 1e-15 {
		t.Errorf("diagonal weight %g, want 0", w)
	}
	e, _ = tp.Edge(1, 4) // interior axis edge
	if w := L.Weight(e); math.Abs(w-1) > 1e-15 {
		t.Errorf("interior edge weight %g, want 1", w)
	}
	e, _ = tp.Edge(0, 1) // boundary edge: one 45° angle
	if w := L.Weight(e); math.Abs(w-0.5) > 1e-15 {
		t.Errorf("boundary edge weight %g, want 0.5", w)
	}
	U := NewUniformLaplacian(tp)
	if got := U.At(4, 4); got != -8 {
		t.Errorf("uniform diagonal of centre = %g, want -8", got)
	}
	if U.Topology() != tp {
		t.Error("Topology() mismatch")
	}
}

func TestCotanLaplacianLinearPrecision(t *testing.T) {
	// On any flat triangulation, L applied to a linear function vanishes at
	// interior vertices.
	m := topoJitter(Grid(1, 1, 10, 10), 0.03, 4)
	for i := range m.Verts {
		m.Verts[i].Z = 0
	}
	tp, _ := NewTopology(m)
	L := NewCotanLaplacian(m, tp)
	f := make([]float64, len(m.Verts))
	for i, p := range m.Verts {
		f[i] = 2*p.X - 3*p.Y + 1
	}
	lf := L.MulVec(nil, f)
	for i := range lf {
		if tp.IsInterior(int32(i)) && math.Abs(lf[i]) > 1e-12 {
			t.Errorf("vertex %d: (L f) = %g, want 0", i, lf[i])
		}
	}
}

func TestLaplacianSetCotanNoAlloc(t *testing.T) {
	m := UVSphere(1, 20, 40)
	tp, _ := NewTopology(m)
	L := NewCotanLaplacian(m, tp)
	dst := L.MulVec3(nil, m.Verts)
	if n := testing.AllocsPerRun(5, func() {
		L.SetCotan(m)
		dst = L.MulVec3(dst, m.Verts)
	}); n != 0 {
		t.Errorf("SetCotan+MulVec3 allocate %v times", n)
	}
}

func BenchmarkLaplacian(b *testing.B) {
	m := UVSphere(1, 150, 300)
	tp, _ := NewTopology(m)
	L := NewCotanLaplacian(m, tp)
	b.Run("SetCotan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			L.SetCotan(m)
		}
	})
	b.Run("MulVec3", func(b *testing.B) {
		dst := make([]geom.Vec3, len(m.Verts))
		b.ReportAllocs()
		for b.Loop() {
			dst = L.MulVec3(dst, m.Verts)
		}
	})
}
