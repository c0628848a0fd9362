package collide

import (
	"fmt"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// twoLayers returns one mesh made of two horizontal sheets: a lower w×w
// sheet at y = 0 (vertices [0, nLow)) and a smaller upper sheet, offset by
// a fraction of a cell, at height gap.
func twoLayers(w float64, n int, upperScale, gap float64) (m *mesh.Mesh, nLow int) {
	lo := sheet(w, w, n, n, 0)
	up := sheet(w*upperScale, w*upperScale, n, n, gap)
	off := geom.V(0.37*w/float64(n), 0, 0.21*w/float64(n))
	m = &mesh.Mesh{Verts: append([]geom.Vec3(nil), lo.Verts...), Tris: append([][3]int32(nil), lo.Tris...)}
	nLow = len(lo.Verts)
	for _, p := range up.Verts {
		m.Verts = append(m.Verts, p.Add(off))
	}
	for _, t := range up.Tris {
		m.Tris = append(m.Tris, [3]int32{t[0] + int32(nLow), t[1] + int32(nLow), t[2] + int32(nLow)})
	}
	m.UVs = append(append([]geom.Vec2(nil), lo.UVs...), up.UVs...)
	m.UVTris = make([][3]int32, len(m.Tris))
	copy(m.UVTris, m.Tris)
	return m, nLow
}

// dropLayers drops the upper layer of twoLayers from 2 cm onto the pinned
// lower one for 0.4 s and returns the final positions and the hook (nil
// without self-collision).
func dropLayers(t testing.TB, self bool, workers int) ([]geom.Vec3, int, *SelfCollider) {
	return dropLayersFrom(t, self, workers, 0.02, 0)
}

// dropLayersFrom is dropLayers from height gap with initial downward speed
// v0 (m/s).
func dropLayersFrom(t testing.TB, self bool, workers int, gap, v0 float64) ([]geom.Vec3, int, *SelfCollider) {
	m, nLow := twoLayers(0.3, 30, 0.6, gap)
	c, err := cloth.NewCloth(m, material(), cloth.Options{Workers: 2, RestFromMesh: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range nLow {
		c.Pin(i)
	}
	for i := nLow; i < len(c.V); i++ {
		c.V[i] = geom.V(0, -v0, 0)
	}
	var sc *SelfCollider
	if self {
		sc, err = NewSelfCollider(m, SelfParams{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		c.Hooks = append(c.Hooks, sc)
	}
	for range 24 {
		if _, err := c.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	return c.X, nLow, sc
}

func TestSelfCollisionLayers(t *testing.T) {
	const th = 0.002
	x, nLow, sc := dropLayers(t, true, 0)
	minY := math.Inf(1)
	for _, p := range x[nLow:] {
		minY = min(minY, p.Y)
	}
	st := sc.Stats()
	t.Logf("with self-collision: upper layer min y %.4g m, pairs %d, impulses %d", minY, st.Pairs, st.Impulses)
	if minY < th/2 {
		t.Errorf("upper layer at min y %.4g m, want >= %.4g", minY, th/2)
	}
	if st.Pairs == 0 || st.Impulses == 0 {
		t.Errorf("no contacts: %+v", st)
	}
	x, nLow, _ = dropLayers(t, false, 0)
	maxY := math.Inf(-1)
	for _, p := range x[nLow:] {
		maxY = max(maxY, p.Y)
	}
	t.Logf("without: upper layer max y %.4g m", maxY)
	if maxY > -0.05 {
		t.Errorf("without self-collision the upper layer should fall through (max y %.4g)", maxY)
	}
}

func TestSelfCollisionDeterministic(t *testing.T) {
	x1, _, s1 := dropLayers(t, true, 1)
	x1 = append([]geom.Vec3(nil), x1...)
	x3, _, s3 := dropLayers(t, true, 3)
	for i := range x1 {
		if x1[i] != x3[i] {
			t.Fatalf("vertex %d: %v with 1 worker, %v with 3", i, x1[i], x3[i])
		}
	}
	if s1.Stats() != s3.Stats() {
		t.Errorf("stats differ: %+v vs %+v", s1.Stats(), s3.Stats())
	}
}

// TestSelfCollisionCatchesCrossing drops the upper layer from 3 mm at
// 0.6 m/s: its first substep (1/60 s) takes it 1 cm down, through the lower
// layer, which the start-of-substep side detects and undoes.
func TestSelfCollisionCatchesCrossing(t *testing.T) {
	x, nLow, sc := dropLayersFrom(t, true, 0, 0.003, 0.6)
	minY := math.Inf(1)
	for _, p := range x[nLow:] {
		minY = min(minY, p.Y)
	}
	t.Logf("upper layer min y %.4g m, %+v", minY, sc.Stats())
	if minY < 0.001 {
		t.Errorf("upper layer at min y %.4g m, want >= 0.001", minY)
	}
}

// TestSelfCollisionExcludesNeighbours checks that a crumpled-free flat
// sheet finds no pairs (every vertex is within Thickness only of its own
// triangles and its 1-ring's).
func TestSelfCollisionExcludesNeighbours(t *testing.T) {
	m := sheet(0.1, 0.1, 50, 50, 0) // 2 mm edges, = Thickness
	c, err := cloth.NewCloth(m, material(), cloth.Options{RestFromMesh: true, NoGravity: true})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := NewSelfCollider(m, SelfParams{})
	if err != nil {
		t.Fatal(err)
	}
	c.Hooks = append(c.Hooks, sc)
	if _, err := c.Step(1.0 / 60); err != nil {
		t.Fatal(err)
	}
	if st := sc.Stats(); st.Pairs != 0 {
		t.Errorf("flat sheet: %d pairs, want 0", st.Pairs)
	}
}

// BenchmarkSelfCollision times Begin+End of one substep for a 25k-vertex
// garment of two overlapping sheets 1.5 mm apart (every upper vertex in
// contact).
func BenchmarkSelfCollision(b *testing.B) {
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			m, _ := twoLayers(1, 111, 0.9, 0.0015) // 2×12544 vertices
			c, err := cloth.NewCloth(m, material(), cloth.Options{Workers: workers, RestFromMesh: true})
			if err != nil {
				b.Fatal(err)
			}
			for i := range c.V {
				c.V[i] = geom.V(0, -0.01, 0)
			}
			sc, err := NewSelfCollider(m, SelfParams{Workers: workers})
			if err != nil {
				b.Fatal(err)
			}
			const h = 1.0 / 240
			x0 := append([]geom.Vec3(nil), c.X...)
			v0 := append([]geom.Vec3(nil), c.V...)
			c.Hooks = append(c.Hooks, cloth.HookFuncs{BeginFunc: func(ctx *cloth.StepContext) error {
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					copy(ctx.X, x0)
					copy(ctx.V, v0)
					b.StartTimer()
					ctx.Dt = h
					if err := sc.Begin(ctx); err != nil {
						return err
					}
					if err := sc.End(ctx); err != nil {
						return err
					}
				}
				b.StopTimer()
				copy(ctx.X, x0)
				copy(ctx.V, v0)
				return nil
			}})
			if _, err := c.Step(h); err != nil {
				b.Fatal(err)
			}
			st := sc.Stats()
			b.ReportMetric(float64(st.Pairs)/float64(b.N), "pairs/op")
			b.ReportMetric(float64(st.Impulses)/float64(b.N), "impulses/op")
		})
	}
}
