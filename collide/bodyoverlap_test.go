package collide

import (
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
