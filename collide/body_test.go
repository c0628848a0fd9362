package collide

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

func randPoint(rng *rand.Rand, s float64) geom.Vec3 {
	return geom.V(s*(2*rng.Float64()-1), s*(2*rng.Float64()-1), s*(2*rng.Float64()-1))
}

func TestSignedDistanceSphere(t *testing.T) {
	const r = 0.3
	const nLat, nLon = 16, 32
	b := mustBody(mesh.UVSphere(r, nLat, nLon))
	// The polyhedron lies between r·cos²(π/nLat) (roughly) and r; points
	// outside that shell have a known side.
	rin := r * math.Cos(math.Pi/nLat) * math.Cos(math.Pi/nLon) * 0.999
	rng := rand.New(rand.NewPCG(1, 1))
	for k := 0; k < 4000; k++ {
		p := randPoint(rng, 0.5)
		l := p.Len()
		if l > rin && l < r*1.001 {
			continue
		}
		c := b.SignedDistance(p)
		if (c.Dist < 0) != (l < rin) {
			t.Fatalf("p=%v |p|=%.4f: dist %.4f (feature %d)", p, l, c.Dist, c.Feature)
		}
		// |Dist| is the true distance: check against the closest vertex
		// bound and the normal's direction.
		if got := p.Sub(c.Point).Len(); math.Abs(got-math.Abs(c.Dist)) > 1e-12 {
			t.Fatalf("|Dist| %g != |p−c| %g", math.Abs(c.Dist), got)
		}
		if math.Abs(c.Normal.Len()-1) > 1e-9 {
			t.Fatalf("normal not unit: %v", c.Normal)
		}
		// Moving along the normal by the signed distance lands on the point.
		if q := p.AddScaled(-c.Dist, c.Normal); q.Dist(c.Point) > 1e-9 {
			t.Fatalf("p − d·n = %v, closest %v", q, c.Point)
		}
	}
	// Points exactly at vertices, on edges: the sign comes from the
	// vertex/edge pseudo-normal.
	for _, v := range []int{0, 5, 100} {
		p := b.Positions()[v]
		out := b.SignedDistance(p.Scale(1.01))
		in := b.SignedDistance(p.Scale(0.99))
		if out.Dist <= 0 || in.Dist >= 0 {
			t.Errorf("vertex %d: outside %g inside %g", v, out.Dist, in.Dist)
		}
		if out.Feature != FeatureVertex {
			t.Errorf("vertex %d: feature %d, want vertex", v, out.Feature)
		}
	}
}

// boxSDF is the exact signed distance to an axis-aligned box.
func boxSDF(p, lo, hi geom.Vec3) float64 {
	c := lo.Add(hi).Scale(0.5)
	e := hi.Sub(lo).Scale(0.5)
	q := geom.V(math.Abs(p.X-c.X)-e.X, math.Abs(p.Y-c.Y)-e.Y, math.Abs(p.Z-c.Z)-e.Z)
	out := geom.V(max(q.X, 0), max(q.Y, 0), max(q.Z, 0)).Len()
	return out + min(max(q.X, q.Y, q.Z), 0)
}

func TestSignedDistanceBox(t *testing.T) {
	lo, hi := geom.V(-0.2, -0.1, -0.3), geom.V(0.3, 0.2, 0.1)
	b := mustBody(box(lo, hi))
	rng := rand.New(rand.NewPCG(1, 2))
	feats := [3]int{}
	for k := 0; k < 5000; k++ {
		p := randPoint(rng, 0.6)
		c := b.SignedDistance(p)
		want := boxSDF(p, lo, hi)
		// Tolerance: both are exact up to rounding of O(1e-16·size).
		if math.Abs(c.Dist-want) > 1e-12 {
			t.Fatalf("p=%v: dist %.15g, exact %.15g (feature %d)", p, c.Dist, want, c.Feature)
		}
		feats[c.Feature]++
	}
	// Outside corners and edges are reached by vertex and edge features.
	if feats[FeatureEdge] == 0 || feats[FeatureVertex] == 0 {
		t.Errorf("features seen %v, want all kinds", feats)
	}
}

// TestSignedDistanceOpenSphere removes a polar cap: points inside away from
// the hole stay inside, points outside and above the hole are outside.
func TestSignedDistanceOpenSphere(t *testing.T) {
	const r = 0.3
	full := mesh.UVSphere(r, 16, 32)
	m := &mesh.Mesh{Verts: full.Verts}
	for _, tr := range full.Tris {
		if full.Verts[tr[0]].Y > 0.85*r && full.Verts[tr[1]].Y > 0.85*r && full.Verts[tr[2]].Y > 0.85*r {
			continue
		}
		m.Tris = append(m.Tris, tr)
	}
	// Drop the now unused pole vertex by keeping it (isolated vertices are
	// allowed); just make sure a hole exists.
	b := mustBody(m)
	if b.Topology().IsClosed() {
		t.Fatal("mesh still closed")
	}
	rng := rand.New(rand.NewPCG(1, 3))
	for k := 0; k < 3000; k++ {
		p := randPoint(rng, 0.5)
		l := p.Len()
		c := b.SignedDistance(p)
		switch {
		case l < 0.85*r && p.Y < 0.4*r:
			if c.Dist >= 0 {
				t.Fatalf("inside point %v (|p| %.3f) got %g", p, l, c.Dist)
			}
		case l > 1.01*r:
			if c.Dist <= 0 {
				t.Fatalf("outside point %v got %g (boundary %v)", p, c.Dist, c.Boundary)
			}
		}
	}
	// Above the rim's plane (y = r·cos 22.5° ≈ 0.277) over the hole: the
	// closest feature is the rim and the point is outside.
	for _, y := range []float64{0.29, 0.35, 0.5} {
		c := b.SignedDistance(geom.V(0, y, 0))
		if !c.Boundary || c.Dist <= 0 {
			t.Errorf("y=%g above hole: dist %g boundary %v", y, c.Dist, c.Boundary)
		}
	}
}

func TestBodyFramesInterpolate(t *testing.T) {
	m := mesh.UVSphere(0.3, 8, 12)
	b := mustBody(m)
	next := make([]geom.Vec3, len(m.Verts))
	off := geom.V(0.1, 0, 0)
	for i, p := range m.Verts {
		next[i] = p.Add(off)
	}
	b.SetFrames(m.Verts, next, 1, 1.5)
	b.Update(1.25)
	c := b.SignedDistance(geom.V(0.05+0.5, 0, 0))
	if math.Abs(c.Dist-0.2) > 1e-9 {
		t.Errorf("distance at half-way %g, want 0.2", c.Dist)
	}
	if v := b.VelocityAt(&c); v.Dist(geom.V(0.2, 0, 0)) > 1e-12 {
		t.Errorf("velocity %v, want (0.2,0,0)", v)
	}
	if got := b.PointAt(c.Tri, c.Bary, geom.Vec3{}, 1.25); got.Dist(c.Point) > 1e-12 {
		t.Errorf("PointAt %v, closest %v", got, c.Point)
	}
}

// TestBodyFramesSubstepEnds steps a moving body through frames the way
// sim.Run does, times summed from substeps: the last substep of a frame must
// end exactly on its next positions, so that the following frame (prev =
// those positions) starts without moving the body or refitting its BVH.
func TestBodyFramesSubstepEnds(t *testing.T) {
	m := mesh.UVSphere(0.3, 8, 12)
	b := mustBody(m)
	const fps, nsub = 30.0, 3
	pos := func(f int) []geom.Vec3 {
		x := make([]geom.Vec3, len(m.Verts))
		for i, p := range m.Verts {
			x[i] = p.Add(geom.V(0.01*float64(f*f), 0, 0))
		}
		return x
	}
	tm := 0.0
	for f := 1; f <= 20; f++ {
		prev, next := pos(f-1), pos(f)
		b.SetFrames(prev, next, tm, tm+1/fps)
		b.Update(tm)
		moved := b.moved
		if f > 1 && moved != 0 {
			t.Fatalf("frame %d: the body moved by %g m at its start", f, moved)
		}
		for k := 0; k < nsub; k++ {
			tm += 1 / fps / nsub
			b.Update(tm)
		}
		for i, p := range b.Positions() {
			if p != next[i] {
				t.Fatalf("frame %d ends at t=%.17g with vertex %d at %v, want %v", f, tm, i, p, next[i])
			}
		}
		b.moved = 0
	}
}

// TestBodyMovedBound: Update's displacement bookkeeping (moved, which the
// colliders' skip tests subtract from their distance bounds) is never less
// than the largest vertex displacement, and only slightly more, both for a
// body on its own and for group members; an Update to the same positions
// adds nothing.
func TestBodyMovedBound(t *testing.T) {
	m := mesh.UVSphere(0.3, 8, 12)
	rng := rand.New(rand.NewPCG(3, 4))
	next := make([]geom.Vec3, len(m.Verts))
	for i, p := range m.Verts {
		next[i] = p.Add(geom.V(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(0.04))
	}
	own := mustBody(m)
	members := []*Body{mustBody(m), mustBody(m)}
	g, err := NewBodyGroup(members...)
	if err != nil {
		t.Fatal(err)
	}
	own.SetFrames(m.Verts, next, 0, 1)
	g.SetFrames(m.Verts, next, 0, 1)
	for _, b := range []*Body{own, members[0]} {
		b.Update(0)
		last := slices.Clone(b.Positions())
		for _, tt := range []float64{0.3, 0.3000001, 0.9, 0.2, 1, 1.5} {
			before := b.moved
			b.Update(tt)
			exact := 0.0
			for i, p := range b.Positions() {
				exact = max(exact, p.Dist(last[i]))
			}
			got := b.moved - before
			if got < exact || got > exact*(1+1e-9)+1e-9 {
				t.Errorf("t=%g: moved %.17g, largest displacement %.17g", tt, got, exact)
			}
			last = slices.Clone(b.Positions())
		}
	}
}

// TestQueryHintAndWorkers checks that QueryHint finds Query's distance
// from any hint (none, a far triangle, out of range) and that a body
// refitted on several workers answers like one refitted on one.
func TestQueryHintAndWorkers(t *testing.T) {
	m := mesh.UVSphere(0.3, 80, 120) // above refitParallelBelow triangles
	if len(m.Tris) < refitParallelBelow {
		t.Fatalf("%d triangles: too few to refit in parallel", len(m.Tris))
	}
	a, b := mustBody(m), mustBody(m)
	b.Workers = 4
	moved := make([]geom.Vec3, len(m.Verts))
	for i, v := range m.Verts {
		moved[i] = geom.V(v.X*1.3, v.Y+0.2*v.X*v.X, v.Z)
	}
	a.SetFrame(moved)
	b.SetFrame(moved)
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 500; k++ {
		p := randPoint(rng, 0.5)
		ca, oka := a.Query(p, 0.1)
		cb, okb := b.Query(p, 0.1)
		if oka != okb || ca != cb {
			t.Fatalf("p=%v: refitted on 4 workers %+v, on one %+v", p, cb, ca)
		}
		for _, h := range []int32{-1, 0, int32(k % len(m.Tris)), int32(len(m.Tris) + 5), ca.Tri} {
			ch, okh := a.QueryHint(p, 0.1, h)
			if okh != oka || (oka && ch.Dist != ca.Dist) {
				t.Fatalf("p=%v hint %d: %v %+v, Query %v %+v", p, h, okh, ch, oka, ca)
			}
		}
	}
}

// TestNewBodies checks that NewBodies gives bodies that answer as NewBody's
// and move apart: each is moved to its own frame, and after all have moved
// each is queried against a body made by NewBody and moved the same way.
func TestNewBodies(t *testing.T) {
	m := mesh.UVSphere(0.3, 12, 24)
	bs, err := NewBodies(m, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 {
		t.Fatalf("%d bodies, want 3", len(bs))
	}
	refs := make([]*Body, len(bs))
	for k, b := range bs {
		refs[k] = mustBody(m)
		// Body k translated by k·10 cm and scaled by 1 + k/10 over [0, 1].
		next := make([]geom.Vec3, len(m.Verts))
		for i, p := range m.Verts {
			next[i] = p.Scale(1 + 0.1*float64(k)).Add(geom.V(0.1*float64(k), 0, 0))
		}
		for _, c := range []*Body{b, refs[k]} {
			c.SetFrames(m.Verts, next, 0, 1)
			c.Update(0.5)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for k, b := range bs {
		for range 200 {
			p := randPoint(rng, 0.6)
			got, want := b.SignedDistance(p), refs[k].SignedDistance(p)
			if got != want {
				t.Fatalf("body %d at %v: %+v, NewBody's %+v", k, p, got, want)
			}
		}
	}
}
