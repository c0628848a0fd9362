package mesh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/geom"
)

func bvhRandVec(rnd *rand.Rand, lo, hi float64) geom.Vec3 {
	return geom.V(lo+(hi-lo)*rnd.Float64(), lo+(hi-lo)*rnd.Float64(), lo+(hi-lo)*rnd.Float64())
}

// bvhSoup returns n random triangles of size up to s in the unit cube.
func bvhSoup(rnd *rand.Rand, n int, s float64) ([]geom.Vec3, [][3]int32) {
	var verts []geom.Vec3
	var tris [][3]int32
	for i := 0; i < n; i++ {
		c := bvhRandVec(rnd, 0, 1)
		k := int32(len(verts))
		for range 3 {
			verts = append(verts, c.Add(bvhRandVec(rnd, -s, s)))
		}
		tris = append(tris, [3]int32{k, k + 1, k + 2})
	}
	return verts, tris
}

// bvhOracle is an independent closest point on a triangle: the projection
// onto the plane if it falls inside, else the best of the three edges.
func bvhOracle(p, a, b, c geom.Vec3) geom.Vec3 {
	seg := func(a, b geom.Vec3) geom.Vec3 {
		d := b.Sub(a)
		t := math.Max(0, math.Min(1, p.Sub(a).Dot(d)/d.Dot(d)))
		return a.Add(d.Scale(t))
	}
	bc := sdBary(a, b, c, p)
	if bc[0] >= 0 && bc[1] >= 0 && bc[2] >= 0 {
		return a.Scale(bc[0]).Add(b.Scale(bc[1])).Add(c.Scale(bc[2]))
	}
	best := seg(a, b)
	for _, q := range []geom.Vec3{seg(b, c), seg(c, a)} {
		if q.Dist2(p) < best.Dist2(p) {
			best = q
		}
	}
	return best
}

func TestClosestOnTri(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20000; i++ {
		a, b, c := bvhRandVec(rnd, -1, 1), bvhRandVec(rnd, -1, 1), bvhRandVec(rnd, -1, 1)
		p := bvhRandVec(rnd, -2, 2)
		q, bc := bvhClosestOnTri(p, a, b, c)
		want := bvhOracle(p, a, b, c)
		// Tolerance: both are O(1)-sized computations with a few roundings;
		// 1e-9 leaves room for the oracle's normal equations on slivers.
		if d := q.Dist(want); d > 1e-9 {
			t.Fatalf("case %d: got %v, oracle %v (off %g)", i, q, want, d)
		}
		bvhCheckBary(t, q, bc, a, b, c)
	}
}

func bvhCheckBary(t *testing.T, q geom.Vec3, bc [3]float64, a, b, c geom.Vec3) {
	t.Helper()
	if s := bc[0] + bc[1] + bc[2]; math.Abs(s-1) > 1e-14 || bc[0] < 0 || bc[1] < 0 || bc[2] < 0 {
		t.Fatalf("bary %v (sum %v)", bc, s)
	}
	if r := a.Scale(bc[0]).Add(b.Scale(bc[1])).Add(c.Scale(bc[2])); r.Dist(q) > 1e-12 {
		t.Fatalf("bary %v gives %v, point %v", bc, r, q)
	}
}

func TestClosestOnTriDegenerate(t *testing.T) {
	o, x, y := geom.V(0, 0, 0), geom.V(1, 0, 0), geom.V(2, 0, 0)
	for _, tc := range []struct {
		name    string
		a, b, c geom.Vec3
		p, want geom.Vec3
	}{
		{"collinear, middle", o, x, y, geom.V(1.5, 1, 0), geom.V(1.5, 0, 0)},
		{"collinear, beyond", o, y, x, geom.V(3, 0, 1), y},
		{"a == b", o, o, y, geom.V(0.5, 0, 2), geom.V(0.5, 0, 0)},
		{"b == c", x, y, y, geom.V(0, 1, 0), x},
		{"a == c", o, y, o, geom.V(1, -1, 0), x},
		{"all equal", x, x, x, geom.V(0, 0, 0), x},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, bc := bvhClosestOnTri(tc.p, tc.a, tc.b, tc.c)
			if q.Dist(tc.want) > 1e-15 {
				t.Errorf("got %v, want %v", q, tc.want)
			}
			bvhCheckBary(t, q, bc, tc.a, tc.b, tc.c)
		})
	}
}

// bvhBrute is the closest point over all triangles by a linear scan.
func bvhBrute(p geom.Vec3, verts []geom.Vec3, tris [][3]int32) (float64, int32) {
	best, bt := math.Inf(1), int32(-1)
	for i, tr := range tris {
		q, _ := bvhClosestOnTri(p, verts[tr[0]], verts[tr[1]], verts[tr[2]])
		if d := q.Dist2(p); d < best {
			best, bt = d, int32(i)
		}
	}
	return best, bt
}

// bvhCheckTree checks that every node box contains its children's boxes and
// its triangles' corners, and that every triangle sits in exactly one leaf.
func bvhCheckTree(t *testing.T, b *BVH) {
	t.Helper()
	inside := func(n *bvhNode, p geom.Vec3) bool {
		return p.X >= n.min.X && p.Y >= n.min.Y && p.Z >= n.min.Z && p.X <= n.max.X && p.Y <= n.max.Y && p.Z <= n.max.Z
	}
	seen := make([]int, len(b.tris))
	for i := range b.nodes {
		n := &b.nodes[i]
		if n.count > 0 {
			for s := n.idx; s < n.idx+n.count; s++ {
				seen[s]++
				for _, v := range b.tris[s] {
					p := b.vx[v]
					if !inside(n, p) {
						t.Fatalf("leaf %d does not contain corner %v", i, p)
					}
				}
			}
			continue
		}
		for _, c := range []int32{int32(i) + 1, n.idx} {
			if !inside(n, b.nodes[c].min) || !inside(n, b.nodes[c].max) {
				t.Fatalf("node %d does not contain child %d", i, c)
			}
		}
	}
	for s, k := range seen {
		if k != 1 {
			t.Fatalf("leaf slot %d in %d leaves", s, k)
		}
	}
}

func TestBVHClosestPoint(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	sphere := UVSphere(1, 16, 24)
	grid := Grid(2, 1, 10, 5)
	sv, st := bvhSoup(rnd, 300, 0.1)
	dup := Grid(1, 1, 2, 2) // every triangle twice: ties everywhere
	dup.Tris = append(dup.Tris, dup.Tris...)
	for _, tc := range []struct {
		name   string
		verts  []geom.Vec3
		tris   [][3]int32
		lo, hi float64
	}{
		{"sphere", sphere.Verts, sphere.Tris, -1.5, 1.5},
		{"sphere near surface", sphere.Verts, sphere.Tris, -1.02, 1.02},
		{"grid", grid.Verts, grid.Tris, -0.5, 2.5},
		{"soup", sv, st, -0.2, 1.2},
		{"duplicate tris", dup.Verts, dup.Tris, -0.5, 1.5},
		{"single tri", grid.Verts, grid.Tris[:1], -1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBVH(tc.verts, tc.tris)
			bvhCheckTree(t, b)
			for i := 0; i < 1000; i++ {
				p := bvhRandVec(rnd, tc.lo, tc.hi)
				want, _ := bvhBrute(p, tc.verts, tc.tris)
				h := b.ClosestPoint(p)
				// Same per-triangle arithmetic as the scan: exact match.
				if h.Dist2 != want {
					t.Fatalf("p %v: Dist2 %v, brute force %v", p, h.Dist2, want)
				}
				tr := tc.tris[h.Tri]
				q, _ := bvhClosestOnTri(p, tc.verts[tr[0]], tc.verts[tr[1]], tc.verts[tr[2]])
				if q != h.Point || h.Point.Dist2(p) != h.Dist2 {
					t.Fatalf("p %v: point %v not the closest on tri %d (%v)", p, h.Point, h.Tri, q)
				}
				bvhCheckBary(t, h.Point, h.Bary, tc.verts[tr[0]], tc.verts[tr[1]], tc.verts[tr[2]])
				// One triangle: the query's bits for the triangle it picked.
				if q, w := ClosestOnTriangle(p, tc.verts[tr[0]], tc.verts[tr[1]], tc.verts[tr[2]]); q != h.Point || w != h.Bary {
					t.Fatalf("p %v: on tri %d: %v %v, query %v", p, h.Tri, q, w, h)
				}

				r := math.Sqrt(want)
				if hw, ok := b.ClosestPointWithin(p, r*(1+1e-9)); !ok || hw != h {
					t.Fatalf("p %v: within %v: %v %v, want %v", p, r, hw, ok, h)
				}
				if hw, ok := b.ClosestPointWithin(p, r*(1-1e-9)); ok || hw.Tri != -1 {
					t.Fatalf("p %v: within %v found %v", p, r*(1-1e-9), hw)
				}

				// Started from a hint: the closest triangle, a random
				// one, an out-of-range one; within the distance and just
				// short of it. The distance is exact; among equally close
				// triangles the hint wins.
				for _, hint := range []int32{h.Tri, rnd.Int32N(int32(len(tc.tris))), -1, int32(len(tc.tris))} {
					hf, ok := b.ClosestPointFrom(p, r*(1+1e-9), hint)
					if !ok || hf.Dist2 != h.Dist2 {
						t.Fatalf("p %v from %d: %v %v, want Dist2 %v", p, hint, hf, ok, h.Dist2)
					}
					tr := tc.tris[hf.Tri]
					if q, _ := bvhClosestOnTri(p, tc.verts[tr[0]], tc.verts[tr[1]], tc.verts[tr[2]]); q != hf.Point {
						t.Fatalf("p %v from %d: point %v not the closest on tri %d (%v)", p, hint, hf.Point, hf.Tri, q)
					}
					if hint >= 0 && int(hint) < len(tc.tris) {
						hr := tc.tris[hint]
						if q, _ := bvhClosestOnTri(p, tc.verts[hr[0]], tc.verts[hr[1]], tc.verts[hr[2]]); q.Dist2(p) == h.Dist2 && hf.Tri != hint {
							t.Fatalf("p %v from %d: tie not given to the hint (got %d)", p, hint, hf.Tri)
						}
					} else if hf != h {
						t.Fatalf("p %v from %d: %v, want %v", p, hint, hf, h)
					}
					if hf, ok := b.ClosestPointFrom(p, r*(1-1e-9), hint); ok || hf.Tri != -1 {
						t.Fatalf("p %v from %d within %v found %v", p, hint, r*(1-1e-9), hf)
					}
					// Given the hint's closest point (as a walk computes
					// it): ClosestPointFrom's result, bit for bit.
					seed := Hit{Tri: hint}
					if hint >= 0 && int(hint) < len(tc.tris) {
						hr := tc.tris[hint]
						seed.Point, seed.Bary = ClosestOnTriangle(p, tc.verts[hr[0]], tc.verts[hr[1]], tc.verts[hr[2]])
						dx, dy, dz := seed.Point.X-p.X, seed.Point.Y-p.Y, seed.Point.Z-p.Z
						seed.Dist2 = dx*dx + dy*dy + dz*dz
					}
					for _, f := range []float64{1 + 1e-9, 1 - 1e-9, 0.5} {
						want, wok := b.ClosestPointFrom(p, r*f, hint)
						if got, ok := b.ClosestPointFromHit(p, r*f, seed); got != want || ok != wok {
							t.Fatalf("p %v from %d's closest point within %v: %v %v, ClosestPointFrom %v %v", p, hint, r*f, got, ok, want, wok)
						}
					}
				}
			}
		})
	}
}

func TestBVHRefit(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	m := UVSphere(1, 14, 20)
	b := NewBVH(m.Verts, m.Tris)
	moved := make([]geom.Vec3, len(m.Verts))
	rot := geom.QuatAxisAngle(geom.V(1, 2, 3).Unit(), 0.7)
	for frame := 0; frame < 3; frame++ {
		// A large deformation: squash, rotate, translate, jitter.
		for i, v := range m.Verts {
			v = geom.V(1.5*v.X, 0.4*v.Y, v.Z+0.3*v.X*v.X)
			moved[i] = rot.Rotate(v).Add(geom.V(0.2, float64(frame), -1)).Add(bvhRandVec(rnd, -0.02, 0.02))
		}
		b.Refit(moved)
		bvhCheckTree(t, b)
		fresh := NewBVH(moved, m.Tris)
		c := geom.BoxOf(moved).Center()
		for i := 0; i < 500; i++ {
			p := c.Add(bvhRandVec(rnd, -2, 2))
			want, _ := bvhBrute(p, moved, m.Tris)
			if h := b.ClosestPoint(p); h.Dist2 != want {
				t.Fatalf("frame %d p %v: refit Dist2 %v, brute force %v", frame, p, h.Dist2, want)
			}
			if h := fresh.ClosestPoint(p); h.Dist2 != want {
				t.Fatalf("frame %d p %v: rebuilt Dist2 %v, brute force %v", frame, p, h.Dist2, want)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Refit with wrong vertex count did not panic")
		}
	}()
	b.Refit(moved[1:])
}

func TestBVHClosestPointsParallel(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	m := UVSphere(1, 20, 30)
	b := NewBVH(m.Verts, m.Tris)
	pts := make([]geom.Vec3, 3000)
	for i := range pts {
		pts[i] = bvhRandVec(rnd, -1.2, 1.2)
	}
	serial := make([]Hit, len(pts))
	for i, p := range pts {
		serial[i] = b.ClosestPoint(p)
	}
	for _, w := range []int{0, 1, 2, 3, 7, 100} {
		if got := b.ClosestPoints(nil, pts, w); !reflect.DeepEqual(got, serial) {
			t.Errorf("workers %d: results differ from serial", w)
		}
	}
	if got := b.ClosestPoints(make([]Hit, 5, 10), nil, 2); len(got) != 0 {
		t.Errorf("no points gave %d hits", len(got))
	}
}

func TestBVHEmpty(t *testing.T) {
	b := NewBVH(nil, nil)
	if h := b.ClosestPoint(geom.V(1, 2, 3)); h.Tri != -1 || !math.IsInf(h.Dist2, 1) {
		t.Errorf("empty ClosestPoint = %v", h)
	}
	if _, ok := b.ClosestPointWithin(geom.V(0, 0, 0), 1); ok {
		t.Error("empty ClosestPointWithin found a hit")
	}
	if _, ok := b.Raycast(geom.V(0, 0, 0), geom.V(1, 0, 0), 10); ok {
		t.Error("empty Raycast found a hit")
	}
	if !b.Bounds().IsEmpty() || b.NumTris() != 0 {
		t.Error("empty bounds or count")
	}
	if lb := b.LowerBound(geom.V(0, 0, 0)); !math.IsInf(lb, 1) {
		t.Errorf("empty LowerBound = %v", lb)
	}
	b.Refit(nil)
}

// TestBVHLowerBound: LowerBound never exceeds the distance to the mesh,
// is zero on it, and proves most of the distance of a far point.
func TestBVHLowerBound(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	sphere := UVSphere(1, 16, 24)
	sv, st := bvhSoup(rnd, 300, 0.1)
	for _, tc := range []struct {
		name  string
		verts []geom.Vec3
		tris  [][3]int32
	}{
		{"sphere", sphere.Verts, sphere.Tris},
		{"soup", sv, st},
		{"single tri", sphere.Verts, sphere.Tris[:1]},
	} {
		b := NewBVH(tc.verts, tc.tris)
		for i := 0; i < 2000; i++ {
			p := bvhRandVec(rnd, -3, 3)
			lb, d := b.LowerBound(p), math.Sqrt(b.ClosestPoint(p).Dist2)
			if lb > d {
				t.Fatalf("%s: p %v: lower bound %v > distance %v", tc.name, p, lb, d)
			}
		}
		for _, v := range tc.tris[0] {
			if lb := b.LowerBound(tc.verts[v]); lb != 0 {
				t.Errorf("%s: lower bound %v at a vertex", tc.name, lb)
			}
		}
	}
	b := NewBVH(sphere.Verts, sphere.Tris)
	if lb := b.LowerBound(geom.V(0, 10, 0)); lb < 8.9 {
		t.Errorf("lower bound %v for a point 9 m off the unit sphere", lb)
	}
}

func TestBVHRaycast(t *testing.T) {
	g := Grid(1, 1, 4, 4)
	gb := NewBVH(g.Verts, g.Tris)
	for _, tc := range []struct {
		name      string
		orig, dir geom.Vec3
		tMax      float64
		hit       bool
		t         float64
		point     geom.Vec3
	}{
		{"down", geom.V(0.3, 0.4, 1), geom.V(0, 0, -1), 10, true, 1, geom.V(0.3, 0.4, 0)},
		{"up from below", geom.V(0.3, 0.4, -2), geom.V(0, 0, 0.5), 10, true, 4, geom.V(0.3, 0.4, 0)},
		{"slanted", geom.V(0, 0, 1), geom.V(0.5, 0.5, -1), 10, true, 1, geom.V(0.5, 0.5, 0)},
		{"on box face", geom.V(0, 0.5, 1), geom.V(0, 0, -1), 10, true, 1, geom.V(0, 0.5, 0)},
		{"too short", geom.V(0.3, 0.4, 1), geom.V(0, 0, -1), 0.5, false, 0, geom.Vec3{}},
		{"away", geom.V(0.3, 0.4, 1), geom.V(0, 0, 1), 10, false, 0, geom.Vec3{}},
		{"outside", geom.V(1.3, 0.4, 1), geom.V(0, 0, -1), 10, false, 0, geom.Vec3{}},
		{"in plane", geom.V(-1, 0.5, 0), geom.V(1, 0, 0), 10, false, 0, geom.Vec3{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := gb.Raycast(tc.orig, tc.dir, tc.tMax)
			if ok != tc.hit {
				t.Fatalf("hit = %v, want %v (%v)", ok, tc.hit, h)
			}
			if !ok {
				return
			}
			tr := g.Tris[h.Tri]
			p := g.Verts[tr[0]].Scale(h.Bary[0]).Add(g.Verts[tr[1]].Scale(h.Bary[1])).Add(g.Verts[tr[2]].Scale(h.Bary[2]))
			if math.Abs(h.T-tc.t) > 1e-12 || p.Dist(tc.point) > 1e-12 || tc.orig.AddScaled(h.T, tc.dir).Dist(tc.point) > 1e-12 {
				t.Errorf("T %v point %v, want %v %v", h.T, p, tc.t, tc.point)
			}
		})
	}

	// Random rays against a sphere and a soup, compared with a linear scan.
	rnd := rand.New(rand.NewPCG(1, 1))
	s := UVSphere(1, 12, 18)
	sv, st := bvhSoup(rnd, 300, 0.1)
	for _, mc := range []struct {
		verts []geom.Vec3
		tris  [][3]int32
	}{{s.Verts, s.Tris}, {sv, st}} {
		b := NewBVH(mc.verts, mc.tris)
		hits := 0
		for i := 0; i < 2000; i++ {
			// Aim at a point inside the mesh's box so many rays hit.
			o := bvhRandVec(rnd, -1.5, 1.5)
			d := bvhRandVec(rnd, 0, 1).Sub(o)
			if i%4 == 0 {
				d.X = 0 // axis-parallel slabs
			}
			want, wt := math.Inf(1), int32(-1)
			for k, tr := range mc.tris {
				if tt, _, _, ok := bvhRayTri(o, d, mc.verts[tr[0]], mc.verts[tr[1]], mc.verts[tr[2]]); ok && tt >= 0 && tt <= 5 && tt < want {
					want, wt = tt, int32(k)
				}
			}
			h, ok := b.Raycast(o, d, 5)
			if ok != (wt >= 0) || (ok && h.T != want) {
				t.Fatalf("ray %v %v: got %v %v, want t %v tri %d", o, d, h, ok, want, wt)
			}
			if ok {
				hits++
			}
		}
		if hits < 100 {
			t.Errorf("only %d hits: test rays too sparse", hits)
		}
	}
}

func ExampleBVH_ClosestPoint() {
	// A 1 m × 1 m sheet in the XY plane.
	g := Grid(1, 1, 2, 2)
	b := NewBVH(g.Verts, g.Tris)
	for _, p := range []geom.Vec3{{X: 0.3, Y: 0.6, Z: 0.25}, {X: 1.5, Y: 0.5, Z: 0}} {
		h := b.ClosestPoint(p)
		fmt.Printf("closest to %v: %.2f, distance %.2f m, bary sum %.0f\n",
			p, h.Point, math.Sqrt(h.Dist2), h.Bary[0]+h.Bary[1]+h.Bary[2])
	}
	// Output:
	// closest to {0.3 0.6 0.25}: {0.30 0.60 0.00}, distance 0.25 m, bary sum 1
	// closest to {1.5 0.5 0}: {1.00 0.50 0.00}, distance 0.50 m, bary sum 1
}

// bvhBody returns the benchmark body: UVSphere(1, 92, 141), 12,744 vertices
// and 25,662 triangles, and 45,906 query points, the vertices of a finer
// sphere of radius 1.01 jittered by up to ±5 mm, like garment vertices
// around a body.
func bvhBody() (*Mesh, []geom.Vec3) {
	body := UVSphere(1, 92, 141)
	rnd := rand.New(rand.NewPCG(1, 1))
	q := UVSphere(1.01, 152, 304).Verts
	for i := range q {
		q[i] = q[i].Add(bvhRandVec(rnd, -0.005, 0.005))
	}
	return body, q
}

func BenchmarkClosestPoint(b *testing.B) {
	body, q := bvhBody()
	bv := NewBVH(body.Verts, body.Tris)
	dst := make([]Hit, len(q))
	// run times batch() over all the points.
	run := func(name string, batch func()) {
		b.Run(fmt.Sprintf("tris=%d/queries=%d/%s", len(body.Tris), len(q), name), func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				batch()
			}
			el := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(el*1e9/float64(len(q)), "ns/query")
			b.ReportMetric(el*1e3, "ms/batch")
		})
	}
	for _, w := range []int{1, 2} {
		run(fmt.Sprintf("workers=%d", w), func() { bv.ClosestPoints(dst, q, w) })
	}
	run("within=2cm", func() {
		for i, p := range q {
			dst[i], _ = bv.ClosestPointWithin(p, 0.02)
		}
	})
	// Hinted queries, as for cloth vertices in contact: each point started
	// from the closest triangle of a point 2 mm away (from ClosestPoint),
	// searched within 2 cm.
	hints := make([]int32, len(q))
	for i, p := range q {
		hints[i] = bv.ClosestPoint(p.Add(geom.V(0.002, 0, 0))).Tri
	}
	run("from=hint", func() {
		for i, p := range q {
			dst[i], _ = bv.ClosestPointFrom(p, 0.02, hints[i])
		}
	})
	// The top-down equivalent: bounded by the hint's distance.
	run("within=hint", func() {
		for i, p := range q {
			t := body.Tris[hints[i]]
			c, _ := bvhClosestOnTri(p, body.Verts[t[0]], body.Verts[t[1]], body.Verts[t[2]])
			dst[i], _ = bv.ClosestPointWithin(p, c.Dist(p))
		}
	})
	bvhHitSink = dst[len(dst)-1]
}

func BenchmarkBVHBuild(b *testing.B) {
	for _, sz := range []struct{ lat, lon int }{{20, 25}, {92, 141}, {200, 250}} {
		m := UVSphere(1, sz.lat, sz.lon)
		b.Run(fmt.Sprintf("tris=%d", len(m.Tris)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bvhSink = NewBVH(m.Verts, m.Tris)
			}
		})
	}
}

func BenchmarkRefit(b *testing.B) {
	for _, sz := range []struct{ lat, lon int }{{20, 25}, {92, 141}, {200, 250}} {
		m := UVSphere(1, sz.lat, sz.lon)
		bv := NewBVH(m.Verts, m.Tris)
		moved := make([]geom.Vec3, len(m.Verts))
		for i, v := range m.Verts {
			moved[i] = v.Scale(1.01)
		}
		b.Run(fmt.Sprintf("tris=%d", len(m.Tris)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bv.Refit(moved)
			}
		})
	}
}

func BenchmarkRaycast(b *testing.B) {
	body, q := bvhBody()
	bv := NewBVH(body.Verts, body.Tris)
	b.Run(fmt.Sprintf("tris=%d/rays=%d", len(body.Tris), len(q)), func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		var h RayHit
		for b.Loop() {
			for _, p := range q {
				h, _ = bv.Raycast(p, p.Neg(), 10) // towards the centre
			}
		}
		b.ReportMetric(time.Since(start).Seconds()*1e9/float64(b.N*len(q)), "ns/ray")
		bvhHitSink.Tri = h.Tri
	})
}

var (
	bvhSink    *BVH
	bvhHitSink Hit
)

// TestBVHClone checks that a clone answers like the original and that
// refitting one leaves the other as it was.
func TestBVHClone(t *testing.T) {
	m := UVSphere(1, 12, 16)
	b := NewBVH(m.Verts, m.Tris)
	c := b.Clone()
	moved := make([]geom.Vec3, len(m.Verts))
	for i, v := range m.Verts {
		moved[i] = v.Scale(2).Add(geom.Vec3{X: 5})
	}
	c.Refit(moved)
	bvhCheckTree(t, c)
	p := geom.Vec3{X: 1.5, Y: 0.2, Z: -0.1}
	if h := b.ClosestPoint(p); math.Abs(math.Sqrt(h.Dist2)-0.5) > 0.05 {
		t.Errorf("original after the clone's refit: distance %.4f, want about 0.5", math.Sqrt(h.Dist2))
	}
	q := p.Scale(2).Add(geom.Vec3{X: 5})
	if h := c.ClosestPoint(q); math.Abs(math.Sqrt(h.Dist2)-1) > 0.1 {
		t.Errorf("clone: distance %.4f, want about 1", math.Sqrt(h.Dist2))
	}
	b.Refit(moved)
	for _, r := range []geom.Vec3{q, {X: 3}, {Y: 4, Z: 1}} {
		if hb, hc := b.ClosestPoint(r), c.ClosestPoint(r); hb != hc {
			t.Errorf("at %v: original %+v, clone %+v", r, hb, hc)
		}
	}
}

// TestRefitParts checks that refitting part by part, in any order, gives
// the tree Refit gives, node for node, and that every box is the tight box
// of the corners below it.
func TestRefitParts(t *testing.T) {
	for _, m := range []*Mesh{UVSphere(1, 3, 4), UVSphere(1, 12, 16), UVSphere(1, 40, 60)} {
		a := NewBVH(m.Verts, m.Tris)
		b := a.Clone()
		moved := make([]geom.Vec3, len(m.Verts))
		for i, v := range m.Verts {
			moved[i] = geom.Vec3{X: v.X * (1 + v.Y*v.Y), Y: v.Y + 0.3*v.Z, Z: v.Z * 0.5}
		}
		a.Refit(moved)
		n := b.RefitParts()
		if n < 1 || n > 1<<bvhPartDepth {
			t.Fatalf("%d triangles: %d parts", len(m.Tris), n)
		}
		for i := n - 1; i >= 0; i-- {
			b.RefitPart(moved, i)
		}
		b.RefitTop()
		bvhCheckTree(t, b)
		if !reflect.DeepEqual(a.nodes, b.nodes) || !reflect.DeepEqual(a.vx, b.vx) {
			t.Errorf("%d triangles, %d parts: refit by parts differs from Refit", len(m.Tris), n)
		}
		for j := range a.nodes {
			lo, hi := geom.Vec3{X: math.Inf(1), Y: math.Inf(1), Z: math.Inf(1)}, geom.Vec3{X: math.Inf(-1), Y: math.Inf(-1), Z: math.Inf(-1)}
			for k := int32(j); k < a.subtreeEnd(int32(j)); k++ {
				if nd := &a.nodes[k]; nd.count > 0 {
					for _, tr := range a.tris[nd.idx : nd.idx+nd.count] {
						for _, v := range tr {
							lo, hi = bvhMin(lo, moved[v]), bvhMax(hi, moved[v])
						}
					}
				}
			}
			if a.nodes[j].min != lo || a.nodes[j].max != hi {
				t.Fatalf("%d triangles: node %d box %v–%v, its corners span %v–%v", len(m.Tris), j, a.nodes[j].min, a.nodes[j].max, lo, hi)
			}
		}
		// Every node is in exactly one part or the top.
		seen := make([]int, len(b.nodes))
		for _, p := range b.parts {
			for j := p[0]; j < p[1]; j++ {
				seen[j]++
			}
		}
		for _, j := range b.top {
			seen[j]++
		}
		for j, c := range seen {
			if c != 1 {
				t.Fatalf("%d triangles: node %d covered %d times", len(m.Tris), j, c)
			}
		}
	}
}
