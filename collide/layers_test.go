package collide

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TestLayersSqueeze squeezes an outer cloth tube onto an inner one worn on
// a cylindrical body: the outer tube never ends a frame inside the inner.
func TestLayersSqueeze(t *testing.T) {
	// The body leaves the inner tube room (no hoop compression at 3 mm from
	// it) so that it does not fold: across a fold of the inner layer
	// "outside" is ambiguous.
	body := mustBody(cylinder(0.086, -0.3, 0.3, 32, 6))
	im := tube(0.0895, -0.15, 0.15, 32, 8)
	om := tube(0.1, -0.12, 0.12, 32, 8) // shorter: lies over the inner everywhere
	opts := cloth.Options{NoGravity: true, AirDrag: 0.5}
	inner, err := cloth.NewCloth(im, material(), opts)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := cloth.NewCloth(om, material(), opts)
	if err != nil {
		t.Fatal(err)
	}
	inner.Hooks = append(inner.Hooks, NewCollider(body, Params{}))
	// Squeeze: a radial inward acceleration of 10 m/s² on the outer tube.
	outer.Hooks = append(outer.Hooks, cloth.HookFuncs{BeginFunc: func(s *cloth.StepContext) error {
		for i, p := range s.X {
			r := geom.V(p.X, 0, p.Z).Unit()
			s.AddForce(i, r.Scale(-10*s.Mass(i)))
		}
		return nil
	}})
	const th = 0.002
	cols, err := Layers([]*cloth.Cloth{inner, outer}, []*mesh.Mesh{im, om}, Params{Thickness: th}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 1 {
		t.Fatalf("%d colliders, want 1", len(cols))
	}
	check := mustBody(&mesh.Mesh{Verts: inner.X, Tris: im.Tris})
	for f := 0; f < 20; f++ {
		if _, err := inner.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		if _, err := outer.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		check.SetFrame(inner.X)
		for i, p := range outer.X {
			if c := check.SignedDistance(p); c.Dist < th-tol {
				t.Fatalf("frame %d: outer vertex %d at %g from the inner layer", f, i, c.Dist)
			}
		}
		if d := minDist(body, inner.X); d < 0.003-tol {
			t.Fatalf("frame %d: inner vertex %g from the body", f, d)
		}
	}
	// The squeeze closed the gap: the outer tube rests on the inner one.
	r := 0.0
	for _, p := range outer.X {
		r += math.Hypot(p.X, p.Z)
	}
	// The outer tube buckles into lobes; friction between the layers (μs
	// 0.6) holds the lobes where they touch (frictionless: ≈ 0.095).
	if r /= float64(len(outer.X)); r > 0.097 {
		t.Errorf("outer tube mean radius %g: not squeezed towards the inner (from 0.1; denim resists hoop compression)", r)
	}
}
