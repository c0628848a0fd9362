package collide

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

func TestSqueeze(t *testing.T) {
	const step = 0.003
	for _, tc := range []struct {
		name    string
		alpha   float64 // half-angle of the wedge, rad
		maxMove float64
		want    float64 // length of the move
	}{
		{"15° walls", math.Pi / 12, 1, step * math.Sin(math.Pi/6)},
		{"45° walls", math.Pi / 4, 1, step},
		{"capped", math.Pi / 4, 0.001, 0.001},
		{"parallel walls", 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A wedge opening towards +X with its apex at the origin:
			// wall 1 along (cos α, sin α), wall 2 along (cos α, −sin α),
			// both normals pointing into the wedge.
			s, c := math.Sincos(tc.alpha)
			n1, n2 := geom.V(s, -c, 0), geom.V(s, c, 0)
			got := squeeze(n1, n2, step, tc.maxMove)
			if d := math.Abs(got.Len() - tc.want); d > 1e-12 {
				t.Fatalf("move %v has length %g, want %g", got, got.Len(), tc.want)
			}
			if tc.want == 0 {
				return
			}
			// Along wall 1 (tangent to the contact), towards the opening.
			if n := got.Dot(n1); math.Abs(n) > 1e-12 {
				t.Errorf("move %v has a normal component %g", got, n)
			}
			if got.X <= 0 {
				t.Errorf("move %v points into the wedge's apex", got)
			}
		})
	}
}

// vWalls returns two planes of width 0.4 m (along Z) and the given
// length, sharing their edge on the Z axis, with half-angle alpha between
// them, opening upwards (+Y), their normals pointing into the V.
func vWalls(alpha, length float64) *mesh.Mesh {
	s, c := math.Sincos(alpha)
	l, r := geom.V(-s*length, c*length, 0), geom.V(s*length, c*length, 0)
	z := geom.V(0, 0, 0.2)
	m := &mesh.Mesh{Verts: []geom.Vec3{z.Neg(), z, l.Add(z), l.Sub(z), r.Add(z), r.Sub(z)}}
	m.Tris = [][3]int32{{0, 2, 1}, {0, 3, 2}, {0, 1, 4}, {0, 4, 5}}
	return m
}

// TestSqueezeFoldsOpensCrease lays a narrow strip of cloth in the bottom
// of a V-shaped crease with walls 15° from the vertical, where the gap is
// narrower than twice the safety distance: with SqueezeFolds the strip
// moves up out of the narrow gap, against gravity; without, the colliders
// hold it in the gap (the normal corrections alone lift it part way).
func TestSqueezeFoldsOpensCrease(t *testing.T) {
	rise := func(squeeze bool) float64 {
		m := sheet(0.002, 0.1, 1, 10, 0.004)
		c, err := cloth.NewCloth(m, material(), cloth.Options{AirDrag: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		body := mustBody(vWalls(math.Pi/12, 0.1))
		if d := body.SignedDistance(geom.V(0, 0.05, 0)).Dist; !(d > 0) {
			t.Fatalf("the V's middle is at signed distance %g from its walls", d)
		}
		col := NewCollider(body, Params{SqueezeFolds: squeeze})
		c.Hooks = append(c.Hooks, col)
		for f := 0; f < 30; f++ {
			if _, err := c.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		y := 0.0
		for _, p := range c.X {
			y += p.Y
		}
		return y / float64(len(c.X))
	}
	held, squeezed := rise(false), rise(true)
	t.Logf("mean height: held %.2f mm, squeezed %.2f mm", held*1000, squeezed*1000)
	// The gap is 2·Target wide at this height.
	open := targetFactor * 0.003 / math.Tan(math.Pi/12)
	if squeezed < open {
		t.Errorf("squeezed strip at %.2f mm, below the narrow gap's top %.2f mm", squeezed*1000, open*1000)
	}
	if held > open-0.002 {
		t.Errorf("held strip at %.2f mm: the test no longer needs the squeeze (narrow gap up to %.2f mm)", held*1000, open*1000)
	}
}
