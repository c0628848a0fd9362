package layers

import (
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func TestClosestOnTri(t *testing.T) {
	a, b, c := geom.Vec3{}, geom.Vec3{X: 1}, geom.Vec3{Y: 1}
	for _, tc := range []struct {
		name    string
		p, want geom.Vec3
	}{
		{"face", geom.Vec3{X: 0.25, Y: 0.25, Z: 1}, geom.Vec3{X: 0.25, Y: 0.25}},
		{"corner a", geom.Vec3{X: -1, Y: -1, Z: 0.5}, a},
		{"corner b", geom.Vec3{X: 2, Y: -0.5}, b},
		{"corner c", geom.Vec3{X: -0.5, Y: 2}, c},
		{"edge ab", geom.Vec3{X: 0.5, Y: -1}, geom.Vec3{X: 0.5}},
		{"edge ac", geom.Vec3{X: -1, Y: 0.5}, geom.Vec3{Y: 0.5}},
		{"edge bc", geom.Vec3{X: 1, Y: 1, Z: -2}, geom.Vec3{X: 0.5, Y: 0.5}},
	} {
		if got := closestOnTri(tc.p, a, b, c); got.Dist(tc.want) > 1e-12 {
			t.Errorf("%s: closestOnTri(%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}
