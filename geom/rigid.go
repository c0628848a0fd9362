package geom

// Vec2 is a 2-vector, used for texture and fabric (pattern) coordinates.
type Vec2 struct{ X, Y float64 }

// Add returns a+b.
func (a Vec2) Add(b Vec2) Vec2 { return Vec2{a.X + b.X, a.Y + b.Y} }

// Sub returns a-b.
func (a Vec2) Sub(b Vec2) Vec2 { return Vec2{a.X - b.X, a.Y - b.Y} }

// Scale returns s·a.
func (a Vec2) Scale(s float64) Vec2 { return Vec2{a.X * s, a.Y * s} }

// Rigid is a rigid transform p ↦ R·p + T (rotation R as a unit quaternion,
// translation T in metres).
type Rigid struct {
	R Quat
	T Vec3
}

// RigidIdentity returns the identity transform.
func RigidIdentity() Rigid { return Rigid{R: QuatIdentity()} }

// Apply returns R·p + T.
func (a Rigid) Apply(p Vec3) Vec3 { return a.R.Rotate(p).Add(a.T) }

// ApplyDir returns R·d (no translation).
func (a Rigid) ApplyDir(d Vec3) Vec3 { return a.R.Rotate(d) }

// Mul returns the composition a∘b: apply b first, then a.
func (a Rigid) Mul(b Rigid) Rigid {
	return Rigid{R: a.R.Mul(b.R).Normalize(), T: a.R.Rotate(b.T).Add(a.T)}
}

// Inverse returns the inverse transform.
func (a Rigid) Inverse() Rigid {
	ri := a.R.Conj()
	return Rigid{R: ri, T: ri.Rotate(a.T).Neg()}
}

// Mat4 returns the 4x4 homogeneous matrix in column-major order (glTF's layout).
func (a Rigid) Mat4() [16]float64 {
	m := a.R.Mat3()
	return [16]float64{
		m[0][0], m[1][0], m[2][0], 0,
		m[0][1], m[1][1], m[2][1], 0,
		m[0][2], m[1][2], m[2][2], 0,
		a.T.X, a.T.Y, a.T.Z, 1,
	}
}
