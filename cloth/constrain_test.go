package cloth

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// Two contact planes facing each other (a vertex pinched between two
// surfaces) must not combine into a Line whose prescribed Δv runs off
// along the line of the planes; planes at an ordinary angle still do.
func TestConstrainTwoPlanes(t *testing.T) {
	var w work
	w.init(2)
	th := 150 * math.Pi / 180 // planes 150° apart, both pushing 0.5 m/s
	n1 := geom.Vec3{X: 1}
	n2 := geom.Vec3{X: math.Cos(th), Y: math.Sin(th)}
	w.constrain(0, Plane, n1, n1.Scale(0.5), false)
	w.constrain(0, Plane, n2, n2.Scale(0.5), false)
	if ConstraintKind(w.kind[0]) != Plane || w.z[0].Len() > 0.5+1e-12 {
		t.Errorf("opposed planes: kind %d, |z| = %.3g m/s (want one plane, ≤ 0.5)", w.kind[0], w.z[0].Len())
	}
	// 60° apart: a Line meeting both.
	th = 60 * math.Pi / 180
	n2 = geom.Vec3{X: math.Cos(th), Y: math.Sin(th)}
	w.constrain(1, Plane, n1, n1.Scale(0.5), false)
	w.constrain(1, Plane, n2, n2.Scale(0.5), false)
	if ConstraintKind(w.kind[1]) != Line || math.Abs(w.z[1].Dot(n1)-0.5) > 1e-12 || math.Abs(w.z[1].Dot(n2)-0.5) > 1e-12 {
		t.Errorf("60°: kind %d, z %v", w.kind[1], w.z[1])
	}
}
