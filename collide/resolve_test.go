package collide

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

func TestResolveInitial(t *testing.T) {
	body := mustBody(mesh.UVSphere(0.3, 16, 32))
	// A sheet cutting through the top of the sphere: the middle is up to
	// 5 cm inside.
	m := sheet(1, 1, 20, 20, 0.25)
	x := append([]geom.Vec3(nil), m.Verts...)
	const th = 0.003
	before := Penetrations(x, body, th, nil)
	if before.Inside == 0 || before.MaxDepth < 0.04 {
		t.Fatalf("setup: %+v", before)
	}
	rep, err := ResolveInitial(x, m.Tris, body, th, 10)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Inside < before.Inside || math.Abs(rep.MaxDepth-before.MaxDepth) > 1e-12 {
		t.Errorf("report %+v, penetrations before %+v", rep, before)
	}
	after := Penetrations(x, body, th*(1-1e-9), nil)
	if after.WithinThickness != 0 {
		t.Errorf("after: %+v", after)
	}
	// Smoothness: no edge got much longer than the grid spacing (5 cm)
	// plus the push.
	for _, tr := range m.Tris {
		for k := 0; k < 3; k++ {
			if l := x[tr[k]].Dist(x[tr[(k+1)%3]]); l > 0.05*math.Sqrt2*1.6 {
				t.Fatalf("edge stretched to %g m", l)
			}
		}
	}
}

func TestPenetrations(t *testing.T) {
	body := mustBody(box(geom.V(-1, -1, -1), geom.V(1, 1, 1)))
	x := []geom.Vec3{{X: 0, Y: 0.9}, {X: 0.5, Y: 0.98}, {X: 1.002}, {Y: 2}}
	s := Penetrations(x, body, 0.003, nil)
	if s.Inside != 2 || math.Abs(s.MaxDepth-0.1) > 1e-12 || math.Abs(s.MeanDepth-0.06) > 1e-12 || s.WithinThickness != 3 {
		t.Errorf("got %+v", s)
	}
	if s.Deep != 2 {
		t.Errorf("%d deeper than 2 mm, want 2", s.Deep)
	}
	// From hints (one stale, one out of range) and on several workers: the
	// same statistics, and the hints become the closest triangles.
	hint := []int32{0, int32(len(body.tris) + 3), -1, 5}
	body.Workers = 3
	if h := Penetrations(x, body, 0.003, hint); h != s {
		t.Errorf("with hints %+v, without %+v", h, s)
	}
	for i, p := range x {
		c := body.SignedDistance(p)
		if hint[i] < 0 {
			t.Fatalf("point %d: no hint back", i)
		}
		d := math.Sqrt(mesh.NewBVH(body.x, body.tris[hint[i]:hint[i]+1]).ClosestPoint(p).Dist2)
		if math.Abs(d-math.Abs(c.Dist)) > 1e-12 {
			t.Errorf("point %d: hint %d at %g m, the closest triangle %d at %g m", i, hint[i], d, c.Tri, math.Abs(c.Dist))
		}
	}
}

func TestAttachToBody(t *testing.T) {
	bm := cylinder(0.1, -0.5, 0.5, 24, 4)
	body := mustBody(bm)
	// A tube whose top is tight (5 mm from the body) and bottom loose.
	g := tube(0.105, -0.2, 0.2, 24, 4)
	for i, p := range g.Verts {
		if p.Y < 0 {
			g.Verts[i] = geom.V(p.X*1.5, p.Y, p.Z*1.5)
		}
	}
	atts, err := AttachToBody(g, body, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 24 {
		t.Fatalf("%d attachments, want the 24 of the top loop", len(atts))
	}
	for _, a := range atts {
		if g.Verts[a.Vertex].Y != 0.2 {
			t.Fatalf("vertex %d is not on the top loop", a.Vertex)
		}
		if p := a.Target(body, 0); p.Dist(g.Verts[a.Vertex]) > 1e-12 {
			t.Fatalf("target %v, vertex at %v", p, g.Verts[a.Vertex])
		}
	}
	// The body rises 10 cm over a step: the cloth's attached vertices follow.
	c, err := cloth.NewCloth(g, material(), cloth.Options{NoGravity: true})
	if err != nil {
		t.Fatal(err)
	}
	next := make([]geom.Vec3, len(bm.Verts))
	for i, p := range bm.Verts {
		next[i] = p.Add(geom.V(0, 0.1, 0))
	}
	body.SetFrames(bm.Verts, next, 0, 1.0/30)
	Attach(c, body, atts, 0, 0)
	if _, err := c.Step(1.0 / 30); err != nil {
		t.Fatal(err)
	}
	for _, a := range atts {
		if got, want := c.X[a.Vertex], g.Verts[a.Vertex].Add(geom.V(0, 0.1, 0)); got.Dist(want) > 1e-9 {
			t.Fatalf("vertex %d at %v, want %v", a.Vertex, got, want)
		}
	}
}
