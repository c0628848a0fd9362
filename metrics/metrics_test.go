package metrics

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

func TestCurvatureSumSphere(t *testing.T) {
	// Σ|H|A on a sphere of radius r is (1/r)·4πr² = 4πr.
	for _, r := range []float64{0.5, 2} {
		m := mesh.UVSphere(r, 60, 120)
		c, err := NewCurvature(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Sum(m.Verts)
		if err != nil {
			t.Fatal(err)
		}
		// The poles and the seam are interior manifold vertices too.
		if want := 4 * math.Pi * r; math.Abs(got-want)/want > 0.01 {
			t.Errorf("r=%g: Σ|H|A = %g, want %g", r, got, want)
		}
	}
	// A flat grid has no curvature; a wavy one has some.
	g := mesh.Grid(1, 1, 20, 20)
	c, _ := NewCurvature(g)
	flat, _ := c.Sum(g.Verts)
	wavy := make([]geom.Vec3, len(g.Verts))
	for i, v := range g.Verts {
		wavy[i] = v.Add(geom.V(0, 0, 0.02*math.Sin(20*v.X)))
	}
	w, _ := c.Sum(wavy)
	if flat > 1e-9 || w < 0.01 {
		t.Errorf("flat %g, wavy %g", flat, w)
	}
	if _, err := c.Sum(wavy[:3]); err == nil {
		t.Error("length mismatch: no error")
	}
}

func TestCurvatureSumBy(t *testing.T) {
	// Two spheres of radii 0.5 and 2 in one mesh, each its own group:
	// Σ|H|A = 4πr each, and the total is Sum's.
	a, b := mesh.UVSphere(0.5, 40, 80), mesh.UVSphere(2, 40, 80)
	m := &mesh.Mesh{Verts: append(append([]geom.Vec3(nil), a.Verts...), b.Verts...)}
	m.Tris = append(m.Tris, a.Tris...)
	n := int32(len(a.Verts))
	for _, t := range b.Tris {
		m.Tris = append(m.Tris, [3]int32{t[0] + n, t[1] + n, t[2] + n})
	}
	group := make([]uint8, len(m.Verts))
	for i := n; i < int32(len(group)); i++ {
		group[i] = 2
	}
	c, err := NewCurvature(m)
	if err != nil {
		t.Fatal(err)
	}
	sums := []float64{9, 9, 9}
	total, err := c.SumBy(m.Verts, group, sums)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := c.Sum(m.Verts)
	if total != want {
		t.Errorf("SumBy total %g, Sum %g", total, want)
	}
	for g, r := range map[int]float64{0: 0.5, 2: 2} {
		if w := 4 * math.Pi * r; math.Abs(sums[g]-w)/w > 0.02 {
			t.Errorf("group %d: %g, want %g", g, sums[g], w)
		}
	}
	if sums[1] != 0 || math.Abs(sums[0]+sums[2]-total) > 1e-9*total {
		t.Errorf("sums %v do not split the total %g", sums, total)
	}
	for name, call := range map[string]func() error{
		"short groups":    func() error { _, err := c.SumBy(m.Verts, group[:5], sums); return err },
		"group past sums": func() error { _, err := c.SumBy(m.Verts, group, sums[:2]); return err },
		"short positions": func() error { _, err := c.SumBy(m.Verts[:5], group, sums); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestFrameErrorAndStretch(t *testing.T) {
	a := []geom.Vec3{{}, {X: 1}}
	b := []geom.Vec3{{Y: 3}, {X: 1, Y: 4}}
	e, err := FrameError(b, a)
	if err != nil || e.Mean != 3.5 || e.Max != 4 || math.Abs(e.RMS-math.Sqrt(12.5)) > 1e-12 {
		t.Errorf("FrameError = %+v, %v", e, err)
	}
	if _, err := FrameError(a, b[:1]); err == nil {
		t.Error("length mismatch: no error")
	}
	g := mesh.Grid(1, 1, 2, 2)
	x := make([]geom.Vec3, len(g.Verts))
	for i, v := range g.Verts {
		x[i] = geom.V(v.X*1.1, v.Y, 0)
	}
	if s := MaxStretch(g, x); math.Abs(s-0.1) > 1e-9 {
		t.Errorf("stretch %g, want 0.1", s)
	}
}
