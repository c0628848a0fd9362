package geom

import "math"

// Vec3 is a 3-vector: a point or a direction.
type Vec3 struct{ X, Y, Z float64 }

// V is shorthand for Vec3{x, y, z}.
func V(x, y, z float64) Vec3 { return Vec3{x, y, z} }

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

// Sub returns a-b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }

// Neg returns -a.
func (a Vec3) Neg() Vec3 { return Vec3{-a.X, -a.Y, -a.Z} }

// Mul returns the component-wise product of a and b.
func (a Vec3) Mul(b Vec3) Vec3 { return Vec3{a.X * b.X, a.Y * b.Y, a.Z * b.Z} }

// AddScaled returns a + s·b (an axpy).
func (a Vec3) AddScaled(s float64, b Vec3) Vec3 {
	return Vec3{a.X + s*b.X, a.Y + s*b.Y, a.Z + s*b.Z}
}

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float64 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Cross returns a×b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
}

// Len returns |a| = sqrt(a·a).
func (a Vec3) Len() float64 { return math.Sqrt(a.Dot(a)) }

// Len2 returns |a|² = a·a.
func (a Vec3) Len2() float64 { return a.Dot(a) }

// Dist returns |a-b|.
func (a Vec3) Dist(b Vec3) float64 { return a.Sub(b).Len() }

// Dist2 returns |a-b|².
func (a Vec3) Dist2(b Vec3) float64 { return a.Sub(b).Len2() }

// Unit returns a/|a|. The zero vector gives the zero vector (not NaN), so
// callers that need to detect it should test Len first.
func (a Vec3) Unit() Vec3 {
	l := a.Len()
	if l == 0 {
		return Vec3{}
	}
	return a.Scale(1 / l)
}

// Lerp returns (1-t)·a + t·b.
func (a Vec3) Lerp(b Vec3, t float64) Vec3 { return a.Add(b.Sub(a).Scale(t)) }

// Min returns the component-wise minimum.
func (a Vec3) Min(b Vec3) Vec3 {
	return Vec3{math.Min(a.X, b.X), math.Min(a.Y, b.Y), math.Min(a.Z, b.Z)}
}

// Max returns the component-wise maximum.
func (a Vec3) Max(b Vec3) Vec3 {
	return Vec3{math.Max(a.X, b.X), math.Max(a.Y, b.Y), math.Max(a.Z, b.Z)}
}

// At returns component i (0=X, 1=Y, 2=Z). It panics for other i.
func (a Vec3) At(i int) float64 {
	switch i {
	case 0:
		return a.X
	case 1:
		return a.Y
	case 2:
		return a.Z
	}
	panic("geom: Vec3 index out of range")
}

// IsFinite reports whether no component is NaN or ±Inf.
func (a Vec3) IsFinite() bool {
	return !math.IsNaN(a.X) && !math.IsNaN(a.Y) && !math.IsNaN(a.Z) &&
		!math.IsInf(a.X, 0) && !math.IsInf(a.Y, 0) && !math.IsInf(a.Z, 0)
}

// Angle returns the unsigned angle between a and b in radians, computed with
// atan2(|a×b|, a·b), which stays accurate near 0 and π.
func (a Vec3) Angle(b Vec3) float64 { return math.Atan2(a.Cross(b).Len(), a.Dot(b)) }

// AnyPerp returns a unit vector perpendicular to a (a need not be unit).
func (a Vec3) AnyPerp() Vec3 {
	ax, ay, az := math.Abs(a.X), math.Abs(a.Y), math.Abs(a.Z)
	var o Vec3
	switch {
	case ax <= ay && ax <= az:
		o = Vec3{1, 0, 0}
	case ay <= az:
		o = Vec3{0, 1, 0}
	default:
		o = Vec3{0, 0, 1}
	}
	return a.Cross(o).Unit()
}

// TriangleArea returns the area of triangle (a, b, c): |(b-a)×(c-a)|/2.
func TriangleArea(a, b, c Vec3) float64 { return b.Sub(a).Cross(c.Sub(a)).Len() / 2 }

// TriangleNormal returns the unnormalised normal (b-a)×(c-a), whose length is
// twice the area; counter-clockwise triangles face the viewer.
func TriangleNormal(a, b, c Vec3) Vec3 { return b.Sub(a).Cross(c.Sub(a)) }
