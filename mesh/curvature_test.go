package mesh

import (
	"fmt"
	"math"
	"testing"
)

var topoMethods = []CurvatureMethod{CurvatureCotan, CurvatureMoretonSequin, CurvatureTaubin}

// TestCurvatureSphereChen2015 repeats the experiment of Chen, He and Yu
// 2015 §III.D: a sphere x²+y²+z² = 100 (eq. 16), whose mean curvature is
// 1/r = 0.1 everywhere, estimated at every vertex and averaged. The paper
// reports means of 0.0347 and 0.1425 for its two estimators on its mesh;
// the estimators here, with the corrections documented on
// CurvatureMoretonSequin and CurvatureTaubin, get much closer.
func TestCurvatureSphereChen2015(t *testing.T) {
	const r = 10
	m := UVSphere(r, 80, 160) // 12,642 vertices
	tp, err := NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCurvature(tp)
	for _, tc := range []struct {
		method  CurvatureMethod
		meanTol float64 // relative error of the mean
		maxTol  float64 // worst vertex, relative
	}{
		// Measured on this mesh (mean, worst vertex): cotan 0.0044%, 0.018%;
		// Moreton–Séquin 0.053%, 0.35%; Taubin 0.014%, 0.21%. Cotan is
		// held to the 1% of the brief on the mean; the rest are ~3× the
		// measured errors.
		{CurvatureCotan, 0.01, 0.001},
		{CurvatureMoretonSequin, 0.002, 0.01},
		{CurvatureTaubin, 0.001, 0.006},
	} {
		h := c.Mean(m, tc.method, nil)
		st := SummarizeCurvature(h, c.Areas(), tp)
		var worst float64
		for _, v := range h {
			worst = max(worst, math.Abs(v*r-1))
		}
		rel := math.Abs(st.Mean*r - 1)
		t.Logf("%-15s mean H %.6f (error %.4f%%), median %.6f, worst vertex error %.4f%%",
			tc.method, st.Mean, 100*rel, st.Median, 100*worst)
		if st.N != len(m.Verts) {
			t.Errorf("%v: %d vertices counted, want %d", tc.method, st.N, len(m.Verts))
		}
		if rel > tc.meanTol {
			t.Errorf("%v: mean H %g, want 0.1 within %g%%", tc.method, st.Mean, 100*tc.meanTol)
		}
		if worst > tc.maxTol {
			t.Errorf("%v: worst vertex error %.3g%%, want ≤ %g%%", tc.method, 100*worst, 100*tc.maxTol)
		}
	}
	// Gaussian curvature from the Moreton–Séquin fit: K = 1/r².
	_, k := c.MoretonSequin(m, nil, nil)
	ks := SummarizeCurvature(k, nil, tp)
	t.Logf("moreton-sequin mean K %.6g (1/r² = %g)", ks.Mean, 1.0/(r*r))
	if math.Abs(ks.Mean*r*r-1) > 0.02 {
		t.Errorf("mean K = %g, want %g", ks.Mean, 1.0/(r*r))
	}
}

// TestCurvatureShapes checks each estimator on surfaces with known mean
// curvature: a plane (0), a cylinder (1/(2r)), a torus
// (H = (R + 2r cos v)/(2r(R + r cos v))), a sphere seen from inside (−1/r),
// and a jittered plane (0: all three are exact on flat meshes). Taubin's
// estimate (the trace of the fitted tensor) is biased on anisotropic
// surfaces when the edge directions are not evenly spread, so it gets its
// own, looser bound (measured: 0.020 on the cylinder, 0.075 on the torus).
func TestCurvatureShapes(t *testing.T) {
	const R, r = 3.0, 1.0
	torusH := func(j, nv int) float64 {
		v := 2 * math.Pi * float64(j) / float64(nv)
		return (R + 2*r*math.Cos(v)) / (2 * r * (R + r*math.Cos(v)))
	}
	flat := topoJitter(Grid(1, 1, 12, 12), 0.02, 5)
	for i := range flat.Verts {
		flat.Verts[i].Z = 0
	}
	for _, tc := range []struct {
		name    string
		m       *Mesh
		methods []CurvatureMethod
		want    func(i int) float64
		tol     float64 // absolute, m⁻¹, worst interior vertex
		taubin  float64 // tolerance for CurvatureTaubin
	}{
		{"plane", Grid(2, 1, 10, 5), topoMethods, func(int) float64 { return 0 }, 1e-12, 1e-12},
		{"jittered plane", flat, topoMethods, func(int) float64 { return 0 }, 1e-12, 1e-12},
		{"cylinder r=2", topoCylinder(2, 3, 64, 12), topoMethods, func(int) float64 { return 0.25 }, 1e-12, 0.025},
		{"torus", topoTorus(R, r, 120, 60), topoMethods, func(i int) float64 { return torusH(i/120, 60) }, 5e-4, 0.1},
		{"inside-out sphere", topoFlip(UVSphere(2, 30, 60)), topoMethods, func(int) float64 { return -0.5 }, 0.01, 0.01},
	} {
		tp, err := NewTopology(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		c := NewCurvature(tp)
		for _, method := range tc.methods {
			h := c.Mean(tc.m, method, nil)
			var worst float64
			n := 0
			for i, v := range h {
				if !tp.IsInterior(int32(i)) {
					if v != 0 {
						t.Errorf("%s %v: boundary vertex %d has H = %g, want 0", tc.name, method, i, v)
					}
					continue
				}
				worst = max(worst, math.Abs(v-tc.want(i)))
				n++
			}
			t.Logf("%-17s %-15s %5d interior vertices, worst |H−H*| = %.3g", tc.name, method, n, worst)
			tol := tc.tol
			if method == CurvatureTaubin {
				tol = tc.taubin
			}
			if worst > tol {
				t.Errorf("%s %v: worst error %g > %g", tc.name, method, worst, tol)
			}
		}
	}
}

func TestSummarizeCurvature(t *testing.T) {
	tp, _ := NewTopology(Grid(1, 1, 2, 2)) // only vertex 4 is interior
	h := []float64{9, 9, 9, 9, -2, 9, 9, 9, 9}
	for _, tc := range []struct {
		name string
		h    []float64
		area []float64
		top  *Topology
		want CurvatureStats
	}{
		{"plain", []float64{1, 2, 3, math.NaN()}, []float64{1, 1, 2, 1}, nil,
			CurvatureStats{N: 3, Min: 1, Max: 3, Mean: 2, Median: 2, RMS: math.Sqrt(14.0 / 3), AreaMean: 9.0 / 4, AbsSum: 9, Area: 4}},
		{"even median, no areas", []float64{-1, 4, 2, 0}, nil, nil,
			CurvatureStats{N: 4, Min: -1, Max: 4, Mean: 1.25, Median: 1, RMS: math.Sqrt(21.0 / 4), AreaMean: 1.25, AbsSum: 7, Area: 4}},
		{"boundary ignored", h, nil, tp,
			CurvatureStats{N: 1, Min: -2, Max: -2, Mean: -2, Median: -2, RMS: 2, AreaMean: -2, AbsSum: 2, Area: 1}},
		{"empty", []float64{math.Inf(1)}, nil, nil, CurvatureStats{}},
	} {
		got := SummarizeCurvature(tc.h, tc.area, tc.top)
		if !topoStatsClose(got, tc.want) {
			t.Errorf("%s: %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

// topoStatsClose compares all fields with a relative tolerance of 1e-12.
func topoStatsClose(a, b CurvatureStats) bool {
	fa := []float64{float64(a.N), a.Min, a.Max, a.Mean, a.Median, a.RMS, a.AreaMean, a.AbsSum, a.Area}
	fb := []float64{float64(b.N), b.Min, b.Max, b.Mean, b.Median, b.RMS, b.AreaMean, b.AbsSum, b.Area}
	for i := range fa {
		if math.Abs(fa[i]-fb[i]) > 1e-12*max(1, math.Abs(fb[i])) {
			return false
		}
	}
	return true
}

func TestCurvatureNoAlloc(t *testing.T) {
	m := UVSphere(1, 20, 40)
	tp, _ := NewTopology(m)
	c := NewCurvature(tp)
	for _, method := range topoMethods {
		h := c.Mean(m, method, nil)
		if n := testing.AllocsPerRun(5, func() { h = c.Mean(m, method, h) }); n != 0 {
			t.Errorf("%v: Mean allocates %v times per call with dst", method, n)
		}
	}
}

func TestCurvatureMethodString(t *testing.T) {
	for m, want := range map[CurvatureMethod]string{CurvatureCotan: "cotan", CurvatureMoretonSequin: "moreton-sequin", CurvatureTaubin: "taubin", 9: "CurvatureMethod(?)"} {
		if m.String() != want {
			t.Errorf("%d: %q, want %q", m, m.String(), want)
		}
	}
}

func BenchmarkCurvature(b *testing.B) {
	m := UVSphere(1, 150, 300) // 44,702 vertices
	tp, err := NewTopology(m)
	if err != nil {
		b.Fatal(err)
	}
	for _, method := range topoMethods {
		b.Run(method.String(), func(b *testing.B) {
			c := NewCurvature(tp)
			h := c.Mean(m, method, nil)
			b.ReportAllocs()
			for b.Loop() {
				h = c.Mean(m, method, h)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(m.Verts)), "ns/vertex")
		})
	}
	b.Run("topology", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := NewTopology(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func ExampleMeanCurvature() {
	m := UVSphere(2, 40, 80) // radius 2 m: H = 1/2 m⁻¹ everywhere
	tp, err := NewTopology(m)
	if err != nil {
		panic(err)
	}
	c := NewCurvature(tp)
	for _, method := range []CurvatureMethod{CurvatureCotan, CurvatureMoretonSequin, CurvatureTaubin} {
		h := c.Mean(m, method, nil)
		st := SummarizeCurvature(h, c.Areas(), tp)
		fmt.Printf("%-14s mean H %.2f, curvature sum Σ|H|A %.1f\n", method, st.Mean, st.AbsSum)
	}
	// Output:
	// cotan          mean H 0.50, curvature sum Σ|H|A 25.1
	// moreton-sequin mean H 0.50, curvature sum Σ|H|A 25.1
	// taubin         mean H 0.50, curvature sum Σ|H|A 25.1
}
