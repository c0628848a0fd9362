package wrinkle

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// rotInterp is wang2010's rotational interpolation (Eq. 1): the point
// between p0 and p1 at t ∈ [0, 1] found by turning e0 = p0 − c towards
// e1 = p1 − c about n̂ = ê0 × ê1 by t·θ (θ the angle between them) while
// the distance to the joint centre c goes linearly from |e0| to |e1|:
//
//	p(t) = c + ((1−t)|e0| + t|e1|) R(n̂, tθ) ê0.
//
// R(n̂, φ)ê0 = ê0 cos φ + (n̂ × ê0) sin φ with n̂ × ê0 = (ê1 − cos θ ê0)/sin θ.
// Where the arc is undefined (a point at the centre, or ê0 ∥ ê1) it falls
// back to the chord, which is then the arc's limit or as good as any.
// t = 0 and t = 1 return p0 and p1 exactly.
func rotInterp(c, p0, p1 geom.Vec3, t float64) geom.Vec3 {
	if t == 0 {
		return p0
	}
	if t == 1 {
		return p1
	}
	e0, e1 := p0.Sub(c), p1.Sub(c)
	l0, l1 := e0.Len(), e1.Len()
	if l0 < 1e-9 || l1 < 1e-9 {
		return p0.Lerp(p1, t)
	}
	u0, u1 := e0.Scale(1/l0), e1.Scale(1/l1)
	sn, cs := u0.Cross(u1).Len(), u0.Dot(u1)
	if sn < 1e-7 {
		return p0.Lerp(p1, t)
	}
	s, co := math.Sincos(t * math.Atan2(sn, cs))
	perp := u1.Sub(u0.Scale(cs)).Scale(1 / sn)
	return c.Add(u0.Scale(co).Add(perp.Scale(s)).Scale((1-t)*l0 + t*l1))
}

// screwInterp is wang2010's screw interpolation for twist (Eqs. 2–3)
// about the bone axis through c with unit direction n: the projections
// q0, q1 of p0, p1 on the axis are interpolated linearly (Eq. 2), and the
// radial vectors e0 = p0 − q0, e1 = p1 − q1 by turning e0 about n by t·θ
// (θ the signed angle from e0 to e1 about n) with a linear radius:
//
//	p(t) = q(t) + ((1−t)|e0| + t|e1|) R(n, tθ) ê0.    (Eq. 3)
//
// Points on the axis fall back to the chord; t = 0 and t = 1 return p0
// and p1 exactly.
func screwInterp(c, n, p0, p1 geom.Vec3, t float64) geom.Vec3 {
	if t == 0 {
		return p0
	}
	if t == 1 {
		return p1
	}
	q0 := c.Add(n.Scale(p0.Sub(c).Dot(n)))
	q1 := c.Add(n.Scale(p1.Sub(c).Dot(n)))
	e0, e1 := p0.Sub(q0), p1.Sub(q1)
	l0, l1 := e0.Len(), e1.Len()
	if l0 < 1e-9 || l1 < 1e-9 {
		return p0.Lerp(p1, t)
	}
	u0, u1 := e0.Scale(1/l0), e1.Scale(1/l1)
	theta := math.Atan2(u0.Cross(u1).Dot(n), u0.Dot(u1))
	s, co := math.Sincos(t * theta)
	dir := u0.Scale(co).Add(n.Cross(u0).Scale(s))
	return q0.Lerp(q1, t).Add(dir.Scale((1-t)*l0 + t*l1))
}

// locate finds angle x (radians) on range r: the cell's lower sample i
// and the fraction t ∈ [0, 1] towards sample i+1 (i+1 is i when the range
// has one sample). Angles outside the range are clamped; clamped reports
// it (beyond a 1e-9 rad tolerance).
func (r Range) locate(x float64) (i int, t float64, clamped bool) {
	n := r.Len()
	lo, hi := r.Angle(0), r.Angle(n-1)
	switch {
	case x <= lo:
		return 0, 0, x < lo-1e-9
	case x >= hi:
		if n == 1 {
			return 0, 0, x > hi+1e-9
		}
		return n - 2, 1, x > hi+1e-9
	}
	step := r.StepDeg * math.Pi / 180
	i = int((x - lo) / step)
	if i > n-2 {
		i = n - 2
	}
	a0, a1 := r.Angle(i), r.Angle(i+1)
	return i, math.Min(1, math.Max(0, (x-a0)/(a1-a0))), false
}
