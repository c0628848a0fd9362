package wrinkle

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// TestRot3 checks the square-root-free rotations against the normalised
// quaternion's: quatRot3(q)·x and rotateInv(q, x) for unit and non-unit
// q, and the identity for a zero q.
func TestRot3(t *testing.T) {
	x := geom.V(0.3, -1.2, 0.7)
	for _, tc := range []struct {
		name string
		q    geom.Quat
	}{
		{"identity", geom.QuatIdentity()},
		{"unit", geom.QuatAxisAngle(geom.V(1, 2, -0.5), 1.1)},
		{"scaled", geom.QuatAxisAngle(geom.V(-0.3, 0.2, 1), 2.9).Scale(0.37)},
		{"blend", geom.QuatIdentity().Scale(0.6).Add(geom.QuatAxisAngle(geom.V(0, 1, 0), 0.8).Scale(0.4))},
		{"zero", geom.Quat{}},
	} {
		u := tc.q.Normalize()
		m := quatRot3(tc.q)
		if d := m.apply(x).Dist(u.Rotate(x)); d > 1e-15 || math.IsNaN(d) {
			t.Errorf("%s: quatRot3·x = %v, want %v", tc.name, m.apply(x), u.Rotate(x))
		}
		if d := rotateInv(tc.q, x).Dist(u.Conj().Rotate(x)); d > 1e-15 || math.IsNaN(d) {
			t.Errorf("%s: rotateInv = %v, want %v", tc.name, rotateInv(tc.q, x), u.Conj().Rotate(x))
		}
	}
}
