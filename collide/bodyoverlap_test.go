package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// squeezeHexBody puts a hexagonal tube of cloth (circumradius 0.102 m,
// apothem 0.088 m) over a closed round body of radius 0.095 m, squeezed
// inward: a Collider keeps its vertices out of the body, but the middle of
// its faces is 7 mm inside it, so the body comes through between them. It
// returns the deepest body vertex through the cloth (Through) over the
// last 10 of 30 frames, and the cloth's final positions.
func squeezeHexBody(t *testing.T, overlap bool, workers int) (float64, []geom.Vec3) {
	t.Helper()
	bm := cylinder(0.095, -0.15, 0.15, 32, 8)
	om := tube(0.102, -0.1, 0.1, 6, 4)
	c, err := cloth.NewCloth(om, material(), cloth.Options{NoGravity: true, AirDrag: 0.5, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	c.Hooks = append(c.Hooks, cloth.HookFuncs{BeginFunc: func(s *cloth.StepContext) error {
		for i, p := range s.X {
			r := geom.V(p.X, 0, p.Z).Unit()
			s.AddForce(i, r.Scale(-5*s.Mass(i)))
		}
		return nil
	}})
	body := mustBody(bm)
	p := Params{Thickness: 0.002, Workers: workers}
	if overlap {
		bo, err := NewBodyOverlap(body, c, om, p)
		if err != nil {
			t.Fatal(err)
		}
		c.Hooks = append(c.Hooks, bo)
	}
	c.Hooks = append(c.Hooks, NewCollider(body, p))
	th, err := NewThrough([]*mesh.Mesh{om})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for f := 0; f < 30; f++ {
		if _, err := c.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		if f >= 20 {
			worst = max(worst, th.Measure([][]geom.Vec3{c.X}, bm.Verts, bm.Tris).MaxThrough)
		}
	}
	return worst, c.X
}

// TestBodyOverlapHexagon: the body comes 7 mm through the faces of the
// hexagonal cloth tube with the body collider alone, and not through it
// with BodyOverlap; one and three workers agree bit for bit.
func TestBodyOverlapHexagon(t *testing.T) {
	without, _ := squeezeHexBody(t, false, 1)
	with, x1 := squeezeHexBody(t, true, 1)
	_, x3 := squeezeHexBody(t, true, 3)
	t.Logf("body vertices at most %.1f mm through the cloth without BodyOverlap, %.1f mm with", without*1000, with*1000)
	if without < 0.004 {
		t.Fatalf("the body does not come through the cloth without BodyOverlap (%.1f mm): the test checks nothing", without*1000)
	}
	if with > 0.001 {
		t.Errorf("body vertices up to %.1f mm through the cloth with BodyOverlap", with*1000)
	}
	for i := range x1 {
		if x1[i] != x3[i] {
			t.Fatalf("vertex %d: %v with one worker, %v with three", i, x1[i], x3[i])
		}
	}
}

// TestCoverSide checks coverSide against the rule it stands for, the sign
// of c = ng·n_b when |c| ≥ coverCos (0 otherwise), on a jittered closed
// cylinder and a nearly flat sheet (whose triangle normals lie within
// about 1e-3 rad of each other, so that the angle-free test meets cases
// within its margin): cloth normals drawn at random and drawn within
// 1e-3 rad of the 60° cone where the rule changes, both signs.
func TestCoverSide(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	jitter := func(m *mesh.Mesh, s float64) *mesh.Mesh {
		for i := range m.Verts {
			m.Verts[i] = m.Verts[i].Add(geom.V(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(s))
		}
		return m
	}
	for _, m := range []*mesh.Mesh{jitter(cylinder(0.1, -0.1, 0.1, 12, 6), 0.02), jitter(sheet(0.2, 0.2, 8, 8, 0), 2e-5)} {
		coverSideCases(t, rng, m)
	}
}

func coverSideCases(t *testing.T, rng *rand.Rand, m *mesh.Mesh) {
	t.Helper()
	top, err := mesh.NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	unit := func() geom.Vec3 {
		for {
			u := geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
			if l := u.Len(); l > 1e-3 {
				return u.Scale(1 / l)
			}
		}
	}
	fast, n := 0, 0
	for v := range m.Verts {
		nb := vertexNormal(top, m.Verts, m.Tris, int32(v))
		for range 200 {
			ng := unit()
			if rng.IntN(2) == 0 {
				// Near the cone: angle 60° ± 1e-3 rad from ±n_b.
				u := ng.AddScaled(-ng.Dot(nb), nb)
				u = u.Scale(1 / u.Len())
				a := math.Pi/3 + (rng.Float64()-0.5)*2e-3
				ng = nb.Scale(math.Cos(a)).AddScaled(math.Sin(a), u)
				if rng.IntN(2) == 0 {
					ng = ng.Neg()
				}
			}
			want := 0
			if c := ng.Dot(nb); math.Abs(c) >= coverCos {
				want = 1
				if c < 0 {
					want = -1
				}
			}
			if got := coverSide(top, m.Verts, m.Tris, int32(v), ng); got != want {
				t.Fatalf("vertex %d, ng %v: coverSide %d, want %d (c = %.17g)", v, ng, got, want, ng.Dot(nb))
			}
			n++
			if want != 0 && allFacesBeyond(top, m, int32(v), ng) {
				fast++
			}
		}
	}
	if fast == 0 || fast == n {
		t.Errorf("%d of %d cases decided without angles: the test covers one path only", fast, n)
	}
}

// allFacesBeyond reports whether every triangle normal at v is within the
// cone of coverSide's angle-free test around ±ng.
func allFacesBeyond(top *mesh.Topology, m *mesh.Mesh, v int32, ng geom.Vec3) bool {
	pos, neg := true, true
	for _, t := range top.VertTriangles(v) {
		tr := m.Tris[t]
		c := geom.TriangleNormal(m.Verts[tr[0]], m.Verts[tr[1]], m.Verts[tr[2]])
		g := c.Dot(ng) / c.Len()
		pos = pos && g >= coverCos+coverMargin
		neg = neg && g <= -coverCos-coverMargin
	}
	return pos || neg
}
