package wrinkle

import "github.com/pleat-dev/pleat/geom"

// rot3 is a 3×3 rotation matrix, row-major: the per-vertex and per-joint
// rotations of Synthesize are applied as matrices (9 products) rather
// than quaternions (about twice as many).
type rot3 [9]float64

// quatRot3 returns the rotation of q/|q| for any non-zero q, without a
// square root: with s = 2/|q|², R = I − s·(y²+z², …) + s·(xy − wz, …),
// the unit quaternion's matrix with 2 replaced by s. A zero q gives the
// identity (as geom.Quat.Normalize does).
func quatRot3(q geom.Quat) rot3 {
	var m rot3
	m.setQuat(q)
	return m
}

// setQuat sets m to quatRot3(q) in place (a 72-byte result is otherwise
// copied through the stack).
func (m *rot3) setQuat(q geom.Quat) {
	n := q.Dot(q)
	if n == 0 {
		*m = rot3{0: 1, 4: 1, 8: 1}
		return
	}
	s := 2 / n
	w, x, y, z := q.W, q.X, q.Y, q.Z
	xs, ys, zs := x*s, y*s, z*s
	wx, wy, wz := w*xs, w*ys, w*zs
	xx, xy, xz := x*xs, x*ys, x*zs
	yy, yz, zz := y*ys, y*zs, z*zs
	m[0], m[1], m[2] = 1-(yy+zz), xy-wz, xz+wy
	m[3], m[4], m[5] = xy+wz, 1-(xx+zz), yz-wx
	m[6], m[7], m[8] = xz-wy, yz+wx, 1-(xx+yy)
}

// apply returns m·v.
func (m *rot3) apply(v geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: m[0]*v.X + m[1]*v.Y + m[2]*v.Z,
		Y: m[3]*v.X + m[4]*v.Y + m[5]*v.Z,
		Z: m[6]*v.X + m[7]*v.Y + m[8]*v.Z,
	}
}
