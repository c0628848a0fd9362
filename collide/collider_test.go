package collide

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// minDist returns the smallest signed distance of x to b.
func minDist(b *Body, x []geom.Vec3) float64 {
	m := math.Inf(1)
	for _, p := range x {
		m = min(m, b.SignedDistance(p).Dist)
	}
	return m
}

// tol is the slack of the "never inside the safety distance" checks: End
// projects to exactly Thickness up to rounding (~1e-16 m), the 1e-9
// relative acceptance of End and the 1e-6 m the task allows.
const tol = 1e-6

func dropOnSphere(t testing.TB, workers int, frames int) (*cloth.Cloth, *Body, *Collider) {
	m := sheet(1, 1, 16, 16, 0.36)
	c, err := cloth.NewCloth(m, material(), cloth.Options{Workers: workers, AirDrag: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	body := mustBody(mesh.UVSphere(0.3, 16, 32))
	col := NewCollider(body, Params{Workers: workers})
	c.Hooks = append(c.Hooks, col)
	for f := 0; f < frames; f++ {
		if _, err := c.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		if d := minDist(body, c.X); d < col.Params.withDefaults().Thickness-tol {
			t.Fatalf("frame %d: vertex at distance %g", f, d)
		}
	}
	return c, body, col
}

func TestSheetOntoSphere(t *testing.T) {
	c, body, col := dropOnSphere(t, 0, 30)
	// The sheet's centre rests on the pole at about 1.2·Thickness.
	centre := c.X[8*17+8]
	d := body.SignedDistance(centre).Dist
	if d > 0.01 || d < 0.003-tol {
		t.Errorf("centre at distance %g from the sphere", d)
	}
	if s := col.Stats(); s.Contacts == 0 {
		t.Errorf("no contacts at rest: %+v", s)
	}
	// The skirt hangs below the equator.
	low := math.Inf(1)
	for _, p := range c.X {
		low = min(low, p.Y)
	}
	if low > 0 {
		t.Errorf("sheet did not drape: lowest y %g", low)
	}
}

func TestSheetOntoBox(t *testing.T) {
	m := sheet(0.6, 0.6, 12, 12, 0.25)
	c, err := cloth.NewCloth(m, material(), cloth.Options{AirDrag: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	body := mustBody(box(geom.V(-0.15, -0.3, -0.15), geom.V(0.15, 0.2, 0.15)))
	col := NewCollider(body, Params{})
	c.Hooks = append(c.Hooks, col)
	for f := 0; f < 30; f++ {
		if _, err := c.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		if d := minDist(body, c.X); d < 0.003-tol {
			t.Fatalf("frame %d: vertex at distance %g", f, d)
		}
	}
}

func TestParallelEqualsSerial(t *testing.T) {
	a, _, _ := dropOnSphere(t, 1, 10)
	b, _, _ := dropOnSphere(t, 4, 10)
	for i := range a.X {
		if a.X[i] != b.X[i] || a.V[i] != b.V[i] {
			t.Fatalf("vertex %d differs: %v vs %v", i, a.X[i], b.X[i])
		}
	}
}

// TestMovingSpherePushesCloth lifts a sphere at 1.5 m/s into a sheet
// pinned at its corners: the sheet is carried up without any vertex
// passing into the sphere.
func TestMovingSpherePushesCloth(t *testing.T) {
	m := sheet(1, 1, 16, 16, 0)
	c, err := cloth.NewCloth(m, material(), cloth.Options{NoGravity: true, AirDrag: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	c.Pin(0, 16, 16*17, 16*17+16)
	sm := mesh.UVSphere(0.2, 12, 24)
	body := mustBody(sm)
	col := NewCollider(body, Params{})
	c.Hooks = append(c.Hooks, col)
	at := func(y float64) []geom.Vec3 { return translated(sm.Verts, geom.V(0, y, 0)) }
	const dt, speed = 1.0 / 30, 1.5
	y0 := -0.21
	for f := 0; f < 6; f++ {
		y1 := y0 + speed*dt
		body.SetFrames(at(y0), at(y1), c.Time, c.Time+dt)
		if _, err := c.Step(dt); err != nil {
			t.Fatal(err)
		}
		body.Update(c.Time)
		if d := minDist(body, c.X); d < 0.003-tol {
			t.Fatalf("frame %d: vertex at distance %g", f, d)
		}
		y0 = y1
	}
	// The sphere top is at y0+0.2 ≈ 0.29; the centre rides on it.
	if cy := c.X[8*17+8].Y; cy < y0+0.2 {
		t.Errorf("centre at y=%g, sphere top %g", cy, y0+0.2)
	}
}

// slideOnIncline places a small cloth at rest on a 20° slope and returns
// how far it moved in 0.5 s.
func slideOnIncline(t *testing.T, p Params) float64 {
	const theta = 20 * math.Pi / 180
	plane := incline(theta)
	body := mustBody(plane)
	m := sheet(0.2, 0.2, 6, 6, 0.0036)
	s, co := math.Sincos(-theta)
	for i, q := range m.Verts {
		m.Verts[i] = geom.V(co*q.X-s*q.Y, s*q.X+co*q.Y, q.Z)
	}
	c, err := cloth.NewCloth(m, material(), cloth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Hooks = append(c.Hooks, NewCollider(body, p))
	x0 := c.X[24]
	for f := 0; f < 15; f++ {
		if _, err := c.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		if d := minDist(body, c.X); d < 0.003-tol {
			t.Fatalf("frame %d: vertex at distance %g", f, d)
		}
	}
	return c.X[24].Dist(x0)
}

func TestFriction(t *testing.T) {
	// tan 20° ≈ 0.36: μs = 0.8 holds the cloth, μ = 0 lets it slide
	// ½·g·sin20°·t² ≈ 0.42 m in 0.5 s.
	stick := slideOnIncline(t, Params{StaticFriction: 0.8, DynamicFriction: 0.6})
	slide := slideOnIncline(t, Params{Frictionless: true})
	if stick > 0.005 {
		t.Errorf("μs=0.8: moved %g m, want stuck", stick)
	}
	if want := 0.5 * 9.81 * math.Sin(20*math.Pi/180) * 0.25; math.Abs(slide-want) > 0.15*want {
		t.Errorf("μ=0: moved %g m, want ≈ %g", slide, want)
	}
	// Dynamic friction below tan θ slows the slide: a = g(sinθ − μd cosθ).
	dyn := slideOnIncline(t, Params{StaticFriction: 0.2, DynamicFriction: 0.2})
	if want := 0.5 * 9.81 * (math.Sin(20*math.Pi/180) - 0.2*math.Cos(20*math.Pi/180)) * 0.25; math.Abs(dyn-want) > 0.25*want {
		t.Errorf("μd=0.2: moved %g m, want ≈ %g", dyn, want)
	}
}

// TestPenaltyContacts drops the sheet on the sphere with soft contacts
// (Params.Penalty): it comes to rest on the pole near the target distance
// like the hard contacts do, never ends a substep inside the safety
// distance (End still projects). (A gain of 3 lets the sheet sink 9 mm
// into the sphere.)
func TestPenaltyContacts(t *testing.T) {
	for _, pen := range []float64{10, 30} {
		m := sheet(1, 1, 16, 16, 0.36)
		c, err := cloth.NewCloth(m, material(), cloth.Options{AirDrag: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		body := mustBody(mesh.UVSphere(0.3, 16, 32))
		col := NewCollider(body, Params{Penalty: pen})
		c.Hooks = append(c.Hooks, col)
		for f := 0; f < 30; f++ {
			if _, err := c.Step(1.0 / 30); err != nil {
				t.Fatal(err)
			}
			if d := minDist(body, c.X); d < 0.003-tol {
				t.Fatalf("penalty %g, frame %d: vertex at distance %g", pen, f, d)
			}
		}
		d := body.SignedDistance(c.X[8*17+8]).Dist
		if d > 0.01 {
			t.Errorf("penalty %g: centre at distance %g from the sphere, not resting on it", pen, d)
		}
		if s := col.Stats(); s.Contacts == 0 {
			t.Errorf("penalty %g: no contacts at rest: %+v", pen, s)
		}
		if ke := c.KineticEnergy(); ke > 1e-3 {
			t.Errorf("penalty %g: kinetic energy %g J after 1 s", pen, ke)
		}
	}
}

// TestFarVerticesNotSearched: vertices that the body's top boxes prove far
// away are not searched, even while a fast body part (here the whole
// sphere, sliding sideways at 6 m/s) makes the distance bound run out
// every substep; the cloth is untouched by contacts.
func TestFarVerticesNotSearched(t *testing.T) {
	m := sheet(0.5, 0.5, 8, 8, 2)
	c, err := cloth.NewCloth(m, material(), cloth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sphere := mesh.UVSphere(0.3, 8, 16)
	body := mustBody(sphere)
	col := NewCollider(body, Params{})
	c.Hooks = append(c.Hooks, col)
	at := func(x float64) []geom.Vec3 { return translated(sphere.Verts, geom.V(x, 0, 0)) }
	for f := 0; f < 5; f++ {
		body.SetFrames(at(0.2*float64(f)), at(0.2*float64(f+1)), c.Time, c.Time+1.0/30)
		if _, err := c.Step(1.0 / 30); err != nil {
			t.Fatal(err)
		}
		if s := col.Stats(); s.Queried != 0 || s.Contacts != 0 {
			t.Errorf("frame %d: %d vertices searched, %d contacts, 1.4 m above the body", f, s.Queried, s.Contacts)
		}
	}
}
