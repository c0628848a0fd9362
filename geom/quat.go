package geom

import "math"

// Quat is a quaternion W + Xi + Yj + Zk. Rotation quaternions are unit length.
type Quat struct{ W, X, Y, Z float64 }

// QuatIdentity returns the identity rotation.
func QuatIdentity() Quat { return Quat{W: 1} }

// QuatAxisAngle returns the rotation by angle radians about axis (normalised
// here; a zero axis gives the identity). Positive angles turn counter-clockwise
// when looking down the axis towards the origin (right-hand rule).
func QuatAxisAngle(axis Vec3, angle float64) Quat {
	a := axis.Unit()
	if a == (Vec3{}) {
		return QuatIdentity()
	}
	s, c := math.Sincos(angle / 2)
	return Quat{c, a.X * s, a.Y * s, a.Z * s}
}

// QuatBetween returns the shortest rotation taking direction a onto direction b.
func QuatBetween(a, b Vec3) Quat {
	a, b = a.Unit(), b.Unit()
	d := a.Dot(b)
	if d < -1+1e-12 {
		return QuatAxisAngle(a.AnyPerp(), math.Pi)
	}
	c := a.Cross(b)
	return Quat{1 + d, c.X, c.Y, c.Z}.Normalize()
}

// Vec returns the vector part (X, Y, Z).
func (q Quat) Vec() Vec3 { return Vec3{q.X, q.Y, q.Z} }

// Mul returns the Hamilton product q·r (apply r first, then q).
func (q Quat) Mul(r Quat) Quat {
	return Quat{
		q.W*r.W - q.X*r.X - q.Y*r.Y - q.Z*r.Z,
		q.W*r.X + q.X*r.W + q.Y*r.Z - q.Z*r.Y,
		q.W*r.Y - q.X*r.Z + q.Y*r.W + q.Z*r.X,
		q.W*r.Z + q.X*r.Y - q.Y*r.X + q.Z*r.W,
	}
}

// Conj returns the conjugate (the inverse of a unit quaternion).
func (q Quat) Conj() Quat { return Quat{q.W, -q.X, -q.Y, -q.Z} }

// Dot returns the 4D dot product.
func (q Quat) Dot(r Quat) float64 { return q.W*r.W + q.X*r.X + q.Y*r.Y + q.Z*r.Z }

// Scale returns s·q.
func (q Quat) Scale(s float64) Quat { return Quat{q.W * s, q.X * s, q.Y * s, q.Z * s} }

// Add returns q+r.
func (q Quat) Add(r Quat) Quat { return Quat{q.W + r.W, q.X + r.X, q.Y + r.Y, q.Z + r.Z} }

// Len returns the 4D norm.
func (q Quat) Len() float64 { return math.Sqrt(q.Dot(q)) }

// Normalize returns q/|q|; the zero quaternion gives the identity.
func (q Quat) Normalize() Quat {
	l := q.Len()
	if l == 0 {
		return QuatIdentity()
	}
	return q.Scale(1 / l)
}

// Rotate returns q v q* for a unit q.
func (q Quat) Rotate(v Vec3) Vec3 {
	// v' = v + 2w(u×v) + 2u×(u×v), u = vector part.
	u := q.Vec()
	t := u.Cross(v).Scale(2)
	return v.Add(t.Scale(q.W)).Add(u.Cross(t))
}

// Mat3 returns the rotation matrix of a unit q.
func (q Quat) Mat3() Mat3 {
	w, x, y, z := q.W, q.X, q.Y, q.Z
	return Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

// QuatFromMat3 returns the unit quaternion of a rotation matrix (Shepperd's
// method, choosing the largest diagonal term for stability).
func QuatFromMat3(m Mat3) Quat {
	tr := m.Trace()
	var q Quat
	switch {
	case tr > 0:
		s := math.Sqrt(tr+1) * 2
		q = Quat{0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s}
	case m[0][0] > m[1][1] && m[0][0] > m[2][2]:
		s := math.Sqrt(1+m[0][0]-m[1][1]-m[2][2]) * 2
		q = Quat{(m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s}
	case m[1][1] > m[2][2]:
		s := math.Sqrt(1+m[1][1]-m[0][0]-m[2][2]) * 2
		q = Quat{(m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s}
	default:
		s := math.Sqrt(1+m[2][2]-m[0][0]-m[1][1]) * 2
		q = Quat{(m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s}
	}
	return q.Normalize()
}

// AxisAngle returns the rotation axis (unit) and angle in [0, π] of a unit q.
// The identity returns axis +X and angle 0.
func (q Quat) AxisAngle() (Vec3, float64) {
	if q.W < 0 {
		q = q.Scale(-1)
	}
	s := q.Vec().Len()
	if s < 1e-15 {
		return Vec3{1, 0, 0}, 0
	}
	return q.Vec().Scale(1 / s), 2 * math.Atan2(s, q.W)
}

// Slerp interpolates unit quaternions along the shorter arc; t in [0, 1].
func Slerp(a, b Quat, t float64) Quat {
	d := a.Dot(b)
	if d < 0 {
		b, d = b.Scale(-1), -d
	}
	if d > 0.9995 {
		return a.Add(b.Sub(a).Scale(t)).Normalize()
	}
	th := math.Acos(d)
	s := math.Sin(th)
	return a.Scale(math.Sin((1-t)*th) / s).Add(b.Scale(math.Sin(t*th) / s))
}

// Sub returns q-r.
func (q Quat) Sub(r Quat) Quat { return Quat{q.W - r.W, q.X - r.X, q.Y - r.Y, q.Z - r.Z} }

// SwingTwist splits a unit rotation q into q = swing·twist, where twist is a
// rotation about axis (unit) and swing is a rotation about an axis
// perpendicular to it. It returns both quaternions and the signed twist angle
// in (-π, π]. Used to express ball joints as two swing angles plus a twist
// about the bone, and hinges by one flexion angle.
func SwingTwist(q Quat, axis Vec3) (swing, twist Quat, twistAngle float64) {
	a := axis.Unit()
	p := a.Scale(q.Vec().Dot(a))
	twist = Quat{q.W, p.X, p.Y, p.Z}
	if twist.Len() < 1e-15 {
		// A rotation of π about an axis perpendicular to a: no twist.
		twist = QuatIdentity()
	} else {
		twist = twist.Normalize()
	}
	swing = q.Mul(twist.Conj())
	twistAngle = 2 * math.Atan2(twist.Vec().Dot(a), twist.W)
	if twistAngle > math.Pi {
		twistAngle -= 2 * math.Pi
	} else if twistAngle <= -math.Pi {
		twistAngle += 2 * math.Pi
	}
	return swing, twist, twistAngle
}

// IsFinite reports whether no component is NaN or ±Inf.
func (q Quat) IsFinite() bool {
	return Vec3{q.X, q.Y, q.Z}.IsFinite() && !math.IsNaN(q.W) && !math.IsInf(q.W, 0)
}
