package sim

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func TestRigidFit(t *testing.T) {
	rot := geom.QuatAxisAngle(geom.V(0.3, 1, -0.2), 0.7)
	tr := geom.V(0.1, -0.4, 2)
	var p, q []geom.Vec3
	for k := 0; k < 12; k++ { // a planar loop
		a := 2 * math.Pi * float64(k) / 12
		x := geom.V(0.15*math.Cos(a), 0.9, 0.1*math.Sin(a))
		p = append(p, x)
		q = append(q, rot.Rotate(x).Add(tr))
	}
	r, d := rigidFit(p, q)
	for k := range p {
		if e := r.Rotate(p[k]).Add(d).Dist(q[k]); e > 1e-9 {
			t.Fatalf("point %d off by %g", k, e)
		}
	}
}
