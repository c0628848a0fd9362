package layers

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// TestPushOut: cloth between an own skin plane (normal +Y through the
// origin) and another part's plane is pushed out of the other part without
// being driven into its own, and where the two leave no room for twice the
// thickness it goes to the middle of the gap.
func TestPushOut(t *testing.T) {
	const thick = 0.003
	own, po := geom.V(0, 1, 0), geom.Vec3{}
	for _, c := range []struct {
		name string
		q    geom.Vec3
		n, p geom.Vec3 // the other part's plane: normal and a point
		// wantOwn and wantOther are the distances to the two planes after
		wantOwn, wantOther float64
	}{
		// facing planes 2 cm apart: plain push out of the other part
		{"room", geom.V(0, 0.019, 0), geom.V(0, -1, 0), geom.V(0, 0.02, 0), 0.017, thick},
		// facing planes 4 mm apart, the cloth 1 mm inside the other part:
		// 2 mm from each
		{"squeezed", geom.V(0, 0.005, 0), geom.V(0, -1, 0), geom.V(0, 0.004, 0), 0.002, 0.002},
		// facing planes at 150°, 4 mm apart along the own normal: equal clearances
		{"squeezed at an angle", geom.V(0, 0.003, 0), geom.V(0.5, -math.Sqrt(3)/2, 0), geom.V(0, 0.004, 0), -1, -1},
		// the other part sinks 5 mm into the own one: the cloth stays the
		// thickness outside its own part (on the surface nearest to it)
		{"overlap", geom.V(0, 0.004, 0), geom.V(0, -1, 0), geom.V(0, -0.005, 0), thick, -0.008},
		// planes at right angles: slide along the own plane
		{"corner", geom.V(0.001, 0.005, 0), geom.V(1, 0, 0), geom.V(0.002, 0, 0), 0.005, thick},
	} {
		s := c.q.Sub(c.p).Dot(c.n) - thick
		got := pushOut(c.q, s, c.n, po, own, thick)
		do, dn := got.Sub(po).Dot(own), got.Sub(c.p).Dot(c.n)
		if c.wantOwn < 0 { // equal clearances, both outside
			if math.Abs(do-dn) > 1e-9 || do <= 0 {
				t.Errorf("%s: %v: own %.2f mm, other %.2f mm, want equal and positive", c.name, got, do*1000, dn*1000)
			}
			continue
		}
		if math.Abs(do-c.wantOwn) > 1e-9 || math.Abs(dn-c.wantOther) > 1e-9 {
			t.Errorf("%s: %v: own %.2f mm, other %.2f mm, want %.2f, %.2f", c.name, got, do*1000, dn*1000, c.wantOwn*1000, c.wantOther*1000)
		}
	}
}
