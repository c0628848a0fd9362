package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// MoveVerts gives the same positions and query answers as SetFrame of the
// whole moved frame and Update, round after round (a patch moved, moved
// again, put back).
func TestBodyMoveVerts(t *testing.T) {
	m := mesh.UVSphere(0.2, 16, 24)
	moving, err := NewBody(m)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NewBody(m)
	if err != nil {
		t.Fatal(err)
	}
	moving.Update(0)
	x := append([]geom.Vec3(nil), m.Verts...)
	var patch []int32
	for v := 40; v < 90; v++ {
		patch = append(patch, int32(v))
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	queries := make([]geom.Vec3, 500)
	for i := range queries {
		queries[i] = geom.V(rnd.Float64()-0.5, rnd.Float64()-0.5, rnd.Float64()-0.5).Scale(0.6)
	}
	for round, shift := range []float64{0.03, -0.05, 0} {
		pos := make([]geom.Vec3, len(patch))
		for k, v := range patch {
			pos[k] = m.Verts[v].Scale(1 + shift)
			x[v] = pos[k]
		}
		if err := moving.MoveVerts(patch, pos); err != nil {
			t.Fatal(err)
		}
		ref.SetFrame(x)
		ref.Update(0)
		for i, q := range queries {
			a, aok := moving.Query(q, 0.5)
			b, bok := ref.Query(q, 0.5)
			if a != b || aok != bok {
				t.Fatalf("round %d query %d: MoveVerts %+v, SetFrame %+v", round, i, a, b)
			}
		}
	}
}

// MoveVerts refuses bad ids and positions, and a body not at rest, and
// then leaves the body as it was.
func TestBodyMoveVertsRefusals(t *testing.T) {
	m := mesh.UVSphere(0.2, 8, 12)
	b, err := NewBody(m)
	if err != nil {
		t.Fatal(err)
	}
	p := m.Verts[0].Scale(1.5)
	if err := b.MoveVerts([]int32{0}, []geom.Vec3{p}); err == nil {
		t.Error("MoveVerts before Update: no error")
	}
	b.Update(0)
	cases := []struct {
		name string
		idx  []int32
		pos  []geom.Vec3
	}{
		{"count", []int32{0, 1}, []geom.Vec3{p}},
		{"negative id", []int32{-1}, []geom.Vec3{p}},
		{"id past the end", []int32{int32(len(m.Verts))}, []geom.Vec3{p}},
		{"not finite", []int32{0}, []geom.Vec3{geom.V(0, math.NaN(), 0)}},
	}
	for _, c := range cases {
		if err := b.MoveVerts(c.idx, c.pos); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if b.x[0] != m.Verts[0] {
		t.Errorf("a refused MoveVerts moved vertex 0 to %v", b.x[0])
	}
	b.SetFrames(m.Verts, m.Verts, 0, 1)
	b.Update(0.5)
	if err := b.MoveVerts([]int32{0}, []geom.Vec3{p}); err == nil {
		t.Error("MoveVerts between two frames: no error")
	}
}
