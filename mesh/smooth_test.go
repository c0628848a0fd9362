package mesh

import (
	"fmt"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// topoSmoothers returns uniform and cotangent smoothers for m.
func topoSmoothers(t testing.TB, m *Mesh) (*Topology, map[string]*Smoother) {
	tp, err := NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	return tp, map[string]*Smoother{
		"uniform": NewSmoother(NewUniformLaplacian(tp)),
		"cotan":   NewSmoother(NewCotanLaplacian(m, tp)),
	}
}

func TestSmoothHarmonic(t *testing.T) {
	// With the boundary pinned, smoothing converges to the discrete
	// harmonic function with those boundary values; a linear function is
	// harmonic for both weightings on Grid (symmetric stencils), so noise
	// added inside must vanish.
	m := Grid(1, 1, 10, 10)
	tp, sm := topoSmoothers(t, m)
	pinned := make([]bool, len(m.Verts))
	for i := range pinned {
		pinned[i] = tp.IsBoundary(int32(i))
	}
	lin := func(p geom.Vec3) float64 { return 3*p.X - 2*p.Y + 0.5 }
	for _, name := range []string{"uniform", "cotan"} {
		for _, mu := range []float64{0, -0.53} {
			f := make([]float64, len(m.Verts))
			v := make([]geom.Vec3, len(m.Verts))
			for i, p := range m.Verts {
				f[i] = lin(p)
				v[i] = geom.V(p.X, p.Y, 0)
				if !pinned[i] {
					f[i] += math.Sin(float64(7 * i))
					v[i].Z = math.Cos(float64(5 * i))
				}
			}
			p := SmoothParams{Iterations: 1500, Pinned: pinned}
			if mu != 0 {
				p.Lambda, p.Mu = 0.6, mu
			}
			sm[name].Scalar(f, p)
			sm[name].Vec3(v, p)
			var worst float64
			for i, q := range m.Verts {
				worst = max(worst, math.Abs(f[i]-lin(q)), v[i].Dist(geom.V(q.X, q.Y, 0)))
			}
			if worst > 1e-5 { // measured ≤ 4.2e-6 (Taubin λ/μ converges slowest)
				t.Errorf("%s μ=%g: worst deviation from the harmonic solution %g", name, mu, worst)
			}
		}
	}
}

func TestSmoothInvariants(t *testing.T) {
	m := topoJitter(UVSphere(1, 12, 24), 0.03, 7)
	_, sm := topoSmoothers(t, m)
	pinned := make([]bool, len(m.Verts))
	pinned[5], pinned[40] = true, true
	for name, s := range sm {
		// Constants are fixed points.
		f := make([]float64, len(m.Verts))
		for i := range f {
			f[i] = 2.5
		}
		s.Scalar(f, SmoothParams{Iterations: 10, Mu: -0.53})
		for i := range f {
			if math.Abs(f[i]-2.5) > 1e-12 {
				t.Fatalf("%s: constant changed to %g at %d", name, f[i], i)
			}
		}
		// Pinned vertices keep their values.
		v := append([]geom.Vec3(nil), m.Verts...)
		s.Vec3(v, SmoothParams{Iterations: 10, Pinned: pinned})
		if v[5] != m.Verts[5] || v[40] != m.Verts[40] || v[6] == m.Verts[6] {
			t.Fatalf("%s: pinning failed", name)
		}
	}
}

func TestSmoothTaubinShrinkage(t *testing.T) {
	// Plain Laplacian smoothing shrinks a noisy sphere (unevenly: the UV
	// sphere's poles move most, so the radius spread even grows); Taubin
	// λ/μ keeps its size while removing the noise.
	m := topoJitter(UVSphere(1, 20, 40), 0.02, 8)
	_, sm := topoSmoothers(t, m)
	radius := func(v []geom.Vec3) (mean, sd float64) {
		for _, p := range v {
			mean += p.Len()
		}
		mean /= float64(len(v))
		for _, p := range v {
			sd += (p.Len() - mean) * (p.Len() - mean)
		}
		return mean, math.Sqrt(sd / float64(len(v)))
	}
	r0, sd0 := radius(m.Verts)
	for _, tc := range []struct {
		name    string
		p       SmoothParams
		minR    float64 // bounds on the mean radius after smoothing
		maxR    float64
		maxNose float64 // bound on the radius standard deviation
	}{
		{"plain", SmoothParams{Lambda: 0.5, Iterations: 30}, 0, 0.95, 1},
		{"taubin", SmoothParams{Lambda: 0.5, Mu: -0.53, Iterations: 30}, 0.985, 1.015, sd0 / 2},
	} {
		v := append([]geom.Vec3(nil), m.Verts...)
		sm["uniform"].Vec3(v, tc.p)
		r, sd := radius(v)
		t.Logf("%s: mean radius %.4f → %.4f, sd %.4f → %.4f", tc.name, r0, r, sd0, sd)
		if r < tc.minR || r > tc.maxR || sd > tc.maxNose {
			t.Errorf("%s: radius %g sd %g, want radius in [%g,%g], sd ≤ %g", tc.name, r, sd, tc.minR, tc.maxR, tc.maxNose)
		}
	}
}

func TestSmootherPanics(t *testing.T) {
	_, sm := topoSmoothers(t, Grid(1, 1, 2, 2))
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"short field", func() { sm["uniform"].Scalar(make([]float64, 3), SmoothParams{}) }},
		{"short pinned", func() { sm["cotan"].Vec3(make([]geom.Vec3, 9), SmoothParams{Pinned: make([]bool, 2)}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !topoHasPrefix(fmt.Sprint(r), "mesh: ") {
					t.Errorf("%s: recovered %v, want a mesh: panic", tc.name, r)
				}
			}()
			tc.f()
		}()
	}
}

func topoHasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func BenchmarkSmoother(b *testing.B) {
	m := UVSphere(1, 150, 300)
	tp, _ := NewTopology(m)
	s := NewSmoother(NewCotanLaplacian(m, tp))
	v := append([]geom.Vec3(nil), m.Verts...)
	s.Vec3(v, SmoothParams{}) // allocate the work buffer
	b.ReportAllocs()
	for b.Loop() {
		s.Vec3(v, SmoothParams{Lambda: 0.5, Mu: -0.53})
	}
}

func ExampleSmoother() {
	// Smooth a spike out of a flat sheet, keeping the border fixed.
	m := Grid(1, 1, 4, 4)
	tp, err := NewTopology(m)
	if err != nil {
		panic(err)
	}
	pinned := make([]bool, len(m.Verts))
	for i := range pinned {
		pinned[i] = tp.IsBoundary(int32(i))
	}
	m.Verts[12].Z = 1 // centre vertex (2,2)
	s := NewSmoother(NewCotanLaplacian(m, tp))
	s.Vec3(m.Verts, SmoothParams{Lambda: 0.5, Iterations: 20, Pinned: pinned})
	fmt.Printf("centre height %.3f\n", m.Verts[12].Z)
	// Output:
	// centre height 0.003
}
