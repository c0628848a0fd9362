package collide

import (
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// squeezeHex puts a hexagonal outer tube (circumradius 0.102 m, apothem
// 0.088 m) over a pinned round inner tube of radius 0.095 m, squeezed
// inward: its corners are outside the inner tube but the middle of its faces
// is not. Vertex-against-triangle collisions of the outer vertices see
// nothing wrong, and the inner tube stays through the faces. It returns the
// largest distance of an inner vertex outside the outer tube at the end of
// a frame, over the last 10 frames.
func squeezeHex(t *testing.T, overlap bool) float64 {
	t.Helper()
	im := tube(0.095, -0.15, 0.15, 32, 8)
	om := tube(0.102, -0.1, 0.1, 6, 4)
	opts := cloth.Options{NoGravity: true, AirDrag: 0.5}
	inner, err := cloth.NewCloth(im, material(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for v := range inner.X {
		inner.Attach(cloth.Attachment{Vertex: v})
	}
	outer, err := cloth.NewCloth(om, material(), opts)
	if err != nil {
		t.Fatal(err)
	}
	outer.Hooks = append(outer.Hooks, cloth.HookFuncs{BeginFunc: func(s *cloth.StepContext) error {
		for i, p := range s.X {
			r := geom.V(p.X, 0, p.Z).Unit()
			s.AddForce(i, r.Scale(-5*s.Mass(i)))
		}
		return nil
	}})
	gs, ms := []*cloth.Cloth{inner, outer}, []*mesh.Mesh{im, om}
	p := Params{Thickness: 0.002}
	if _, err := Layers(gs, ms, p, false); err != nil {
		t.Fatal(err)
	}
	var ovs []*Overlap
	if overlap {
		var err error
		ovs, err = Overlaps(gs, ms, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(ovs) != 1 {
			t.Fatalf("%d overlap hooks, want 1", len(ovs))
		}
	}
	check := mustBody(&mesh.Mesh{Verts: outer.X, Tris: om.Tris})
	worst := 0.0
	for f := 0; f < 30; f++ {
		if _, err := inner.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		if _, err := outer.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		check.SetFrame(outer.X)
		for _, q := range inner.X {
			c, ok := check.Query(q, 0.02)
			if f >= 20 && ok && !c.Boundary && c.Dist > worst {
				worst = c.Dist
			}
		}
	}
	return worst
}

// TestOverlapHexagon: the inner tube pokes through the faces of the
// hexagonal outer tube without Overlap (7.6 mm), much less with it (2.7 mm
// measured with one pass, 4 mm per substep against denim's hoop stiffness;
// 0 with three passes).
func TestOverlapHexagon(t *testing.T) {
	without := squeezeHex(t, false)
	with := squeezeHex(t, true)
	t.Logf("inner vertices at most %.1f mm outside the outer tube without Overlap, %.1f mm with", without*1000, with*1000)
	if without < 0.003 {
		t.Fatalf("the scene does not poke through without Overlap (%.1f mm): the test checks nothing", without*1000)
	}
	if with > 0.004 || with > without/2 {
		t.Errorf("inner vertices up to %.1f mm outside the outer tube with Overlap", with*1000)
	}
}
