package cloth

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// tube returns an open cylinder of radius r and height h around +Y (nθ×nh
// quads, the seam vertices shared) with texture-atlas UVs: U runs around the
// tube over [0.2, 0.7], V up it over [0.1, 0.4], per corner so that the seam
// has two UVs.
func tube(r, h float64, nt, nh int) *mesh.Mesh {
	m := &mesh.Mesh{}
	for j := 0; j <= nh; j++ {
		for i := 0; i < nt; i++ {
			a := 2 * math.Pi * float64(i) / float64(nt)
			m.Verts = append(m.Verts, geom.V(r*math.Cos(a), h*float64(j)/float64(nh), -r*math.Sin(a)))
		}
	}
	for j := 0; j <= nh; j++ {
		for i := 0; i <= nt; i++ {
			m.UVs = append(m.UVs, geom.Vec2{X: 0.2 + 0.5*float64(i)/float64(nt), Y: 0.1 + 0.3*float64(j)/float64(nh)})
		}
	}
	vid := func(i, j int) int32 { return int32(j*nt + i%nt) }
	uid := func(i, j int) int32 { return int32(j*(nt+1) + i) }
	for j := 0; j < nh; j++ {
		for i := 0; i < nt; i++ {
			m.Tris = append(m.Tris, [3]int32{vid(i, j), vid(i+1, j), vid(i+1, j+1)}, [3]int32{vid(i, j), vid(i+1, j+1), vid(i, j+1)})
			m.UVTris = append(m.UVTris, [3]int32{uid(i, j), uid(i+1, j), uid(i+1, j+1)}, [3]int32{uid(i, j), uid(i+1, j+1), uid(i, j+1)})
		}
	}
	return m
}

func TestRestFromMesh(t *testing.T) {
	for _, model := range []Model{WeftWarp, MassSpring} {
		m := tube(0.1, 0.3, 24, 8)
		c, err := NewCloth(m, Material{Model: model, Fabric: Denim()}, Options{NoGravity: true, RestFromMesh: true})
		if err != nil {
			t.Fatal(err)
		}
		// At rest every internal force vanishes. Scale: stiffness × edge
		// length ≈ 1000 N/m × 0.026 m = 26 N; rounding leaves ~1e-14 of it.
		c.assemble(c.X, c.V, false, 0, 0, nil)
		fmax := 0.0
		for _, f := range c.work.f {
			fmax = math.Max(fmax, f.Len())
		}
		if fmax > 1e-9 {
			t.Errorf("model %d: largest force at rest %.3g N", model, fmax)
		}
		if model == WeftWarp {
			// The weft follows increasing U: around the tube, ⟂ the axis.
			for i := range c.tris {
				e := &c.tris[i]
				x := c.X
				U := x[e.v[0]].Scale(e.ru[0]).AddScaled(e.ru[1], x[e.v[1]]).AddScaled(e.ru[2], x[e.v[2]])
				V := x[e.v[0]].Scale(e.rv[0]).AddScaled(e.rv[1], x[e.v[1]]).AddScaled(e.rv[2], x[e.v[2]])
				if math.Abs(U.Len()-1) > 1e-12 || math.Abs(V.Len()-1) > 1e-12 || math.Abs(U.Y) > 1e-12 || math.Abs(U.Dot(V)) > 1e-12 {
					t.Fatalf("triangle %d: rest weft %v, warp %v", i, U, V)
				}
			}
		}
		for k := 0; k < 30; k++ {
			if _, err := c.Step(1.0 / 30); err != nil {
				t.Fatal(err)
			}
		}
		moved := 0.0
		for i := range c.X {
			moved = math.Max(moved, c.X[i].Dist(m.Verts[i]))
		}
		// 1 µm: only the force rounding above acts.
		if moved > 1e-6 {
			t.Errorf("model %d: tube moved %.3g m at rest", model, moved)
		}
		// Flat rest angles make the tube want to unroll.
		c2, err := NewCloth(m, Material{Model: model, Fabric: Denim()}, Options{NoGravity: true, RestFromMesh: true, FlatRestAngles: true})
		if err != nil {
			t.Fatal(err)
		}
		c2.assemble(c2.X, c2.V, false, 0, 0, nil)
		f2 := 0.0
		for _, f := range c2.work.f {
			f2 = math.Max(f2, f.Len())
		}
		t.Logf("model %d: largest force at rest %.3g N (mesh rest angles), %.3g N (flat rest angles)", model, fmax, f2)
		if model == WeftWarp && !(f2 > 1e3*fmax && f2 > 1e-9) {
			t.Errorf("model %d: flat rest angles give force %.3g N, want bending forces", model, f2)
		}
	}
}

func TestFlattenWeft(t *testing.T) {
	// A triangle in the plane x+y+z=0 whose U increases along (1,−1,0)/√2.
	a, b, c := geom.V(0, 0, 0), geom.V(1, 0, -1), geom.V(0, 1, -1)
	dir := geom.V(1, -1, 0).Scale(1 / math.Sqrt2)
	uv := [3]geom.Vec2{{X: a.Dot(dir), Y: 7}, {X: b.Dot(dir), Y: 3}, {X: c.Dot(dir), Y: 5}}
	p := flattenWeft(a, b, c, &uv)
	for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 0}} {
		x := []geom.Vec3{a, b, c}
		l3 := x[e[0]].Dist(x[e[1]])
		l2 := math.Sqrt(len2(p[e[0]].Sub(p[e[1]])))
		if math.Abs(l3-l2) > 1e-12 {
			t.Errorf("edge %v: 3D length %g, flat %g", e, l3, l2)
		}
		// U is a linear function along the first axis: du = dX.
		du := uv[e[1]].X - uv[e[0]].X
		if dx := p[e[1]].X - p[e[0]].X; math.Abs(du-dx) > 1e-12 {
			t.Errorf("edge %v: ΔU %g, ΔX %g", e, du, dx)
		}
	}
	// Degenerate UVs fall back to the first edge.
	same := [3]geom.Vec2{{X: 0.5}, {X: 0.5}, {X: 0.5}}
	if q := flattenWeft(a, b, c, &same); q != flatten(a, b, c) {
		t.Errorf("degenerate UVs: %v, want %v", q, flatten(a, b, c))
	}
}
