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

// slerpTerms is the number of terms of the slerp series (slerpCoef).
const slerpTerms = 16

// slerpEps bounds the series' truncation error relative to the radius:
// 2⁻³⁰ ≈ 9.3e-10, under a nanometre at a metre from the joint, below the
// float32 rounding of the stored samples (6e-8) and five orders below the
// database's quantum (0.1 mm). A tighter bound would take the sixteen-term
// series or the trigonometric form for most of a 30° grid step.
const slerpEps = 0x1p-30

// slerpCoef evaluates the turn of Eqs. 1 and 3 without trigonometry, for
// one fraction t shared by every vertex of a frame. Turning the unit
// vector û0 towards û1 by t·θ (θ the angle between them, < π) is the
// spherical linear interpolation
//
//	R(n̂, tθ)û0 = û0 sin((1−t)θ)/sin θ + û1 sin(tθ)/sin θ,
//
// and sin(tθ)/sin θ is a power series in d = cos θ − 1 (Eberly 2011, "A
// fast and accurate algorithm for computing SLERP", JGT 15(3)):
//
//	sin(tθ)/sin θ = Σᵢ bᵢ(t) dⁱ,  b₀ = t,  bᵢ = bᵢ₋₁ (t² − i²) / (i(2i+1)).
//
// The terms have one sign for d ≤ 0 and their ratio is below |d|/2, so
// the remainder after slerpTerms terms is under |b_N| |d|^N / (1 − |d|/2);
// set picks dMin, the most negative d for which that is under slerpEps
// (θ up to about 60°). Beyond it, the caller uses the trigonometric form.
// The result agrees with the trigonometric one to slerpEps.
//
// Near θ = 0 (the vertices a DoF hardly moves) half the terms reach the
// same bound: for d ≥ dHalf the series stops after slerpTerms/2.
type slerpCoef struct {
	t           float64
	b0, b1      [slerpTerms]float64 // series of sin((1−t)θ)/sin θ and sin(tθ)/sin θ
	dMin, dHalf float64
}

func (c *slerpCoef) set(t float64) {
	c.t = t
	next := 0.0 // the largest first omitted term's coefficient
	for k, u := range [2]float64{1 - t, t} {
		b := &c.b0
		if k == 1 {
			b = &c.b1
		}
		b[0] = u
		for i := 1; i <= slerpTerms; i++ {
			fi := float64(i)
			bi := b[i-1] * (u*u - fi*fi) / (fi * (2*fi + 1))
			if i == slerpTerms {
				next = math.Max(next, math.Abs(bi))
				break
			}
			b[i] = bi
		}
	}
	c.dMin = -1
	if next > 0 {
		c.dMin = -math.Min(1, math.Pow(slerpEps/(2*next), 1.0/slerpTerms))
	}
	const h = slerpTerms / 2
	half := math.Max(math.Abs(c.b0[h]), math.Abs(c.b1[h]))
	c.dHalf = 0
	if half > 0 {
		c.dHalf = -math.Min(1, math.Pow(slerpEps/(2*half), 1.0/h))
	}
}

// turn returns R(n̂, tθ)û0 for unit vectors u0, u1; ok is false when
// they are too far apart for the series.
func (c *slerpCoef) turn(u0, u1 geom.Vec3) (dir geom.Vec3, ok bool) {
	// d = cos θ − 1 = −|û0 − û1|²/2, without cancellation near θ = 0.
	w := u0.Sub(u1)
	g0, g1, ok := c.coefs(-0.5 * w.Dot(w))
	if !ok {
		return geom.Vec3{}, false
	}
	return geom.Vec3{X: u0.X*g0 + u1.X*g1, Y: u0.Y*g0 + u1.Y*g1, Z: u0.Z*g0 + u1.Z*g1}, true
}

// coefs returns sin((1−t)θ)/sin θ and sin(tθ)/sin θ for d = cos θ − 1;
// ok is false where the series does not reach.
func (c *slerpCoef) coefs(d float64) (g0, g1 float64, ok bool) {
	if d < c.dMin {
		return 0, 0, false
	}
	d2 := d * d
	d4 := d2 * d2
	if d >= c.dHalf {
		return estrin8(&c.b0, d, d2, d4), estrin8(&c.b1, d, d2, d4), true
	}
	d8 := d4 * d4
	return estrin16(&c.b0, d, d2, d4, d8), estrin16(&c.b1, d, d2, d4, d8), true
}

// estrin8 is estrin16 of the first eight terms.
func estrin8(b *[slerpTerms]float64, d, d2, d4 float64) float64 {
	a0, a1, a2, a3 := b[0]+b[1]*d, b[2]+b[3]*d, b[4]+b[5]*d, b[6]+b[7]*d
	return (a0 + a1*d2) + (a2+a3*d2)*d4
}

// estrin16 returns Σ b[i] dⁱ by Estrin's scheme (pairs, then pairs of
// pairs with d², d⁴, d⁸): four dependent steps instead of Horner's
// fifteen, the same operation count.
func estrin16(b *[slerpTerms]float64, d, d2, d4, d8 float64) float64 {
	a0, a1, a2, a3 := b[0]+b[1]*d, b[2]+b[3]*d, b[4]+b[5]*d, b[6]+b[7]*d
	a4, a5, a6, a7 := b[8]+b[9]*d, b[10]+b[11]*d, b[12]+b[13]*d, b[14]+b[15]*d
	lo := (a0 + a1*d2) + (a2+a3*d2)*d4
	hi := (a4 + a5*d2) + (a6+a7*d2)*d4
	return lo + hi*d8
}

// rotRel is rotFast about the origin for points e0, e1 of known lengths
// l0 = |e0|, l1 = |e1| (the joint centre subtracted), returning the
// interpolated point and its length. With k = 1/(l0 l1), cos θ − 1 =
// k e0·e1 − 1 and ûᵢ = eᵢ/lᵢ, so the turn costs one division; the result's
// length is the interpolated radius L = (1−t) l0 + t l1 (the turned unit
// vector's norm is 1 to the series' accuracy), which the next DoF's step
// reuses. Its error in d from the cancellation near θ = 0 is ~1e-16, which
// moves the coefficients by ~1e-17.
func rotRel(e0 geom.Vec3, l0 float64, e1 geom.Vec3, l1 float64, c *slerpCoef) (geom.Vec3, float64) {
	if l0 < 1e-9 || l1 < 1e-9 {
		p := rotFast(geom.Vec3{}, e0, e1, c)
		return p, p.Len()
	}
	k := 1 / (l0 * l1)
	d := (e0.X*e1.X+e0.Y*e1.Y+e0.Z*e1.Z)*k - 1
	if d < c.dHalf {
		p := rotFast(geom.Vec3{}, e0, e1, c)
		return p, p.Len()
	}
	d2 := d * d
	d4 := d2 * d2
	g0, g1 := estrin8(&c.b0, d, d2, d4), estrin8(&c.b1, d, d2, d4)
	l := (1-c.t)*l0 + c.t*l1
	k0, k1 := l*g0*l1*k, l*g1*l0*k // L g0/l0, L g1/l1
	return geom.Vec3{X: e0.X*k0 + e1.X*k1, Y: e0.Y*k0 + e1.Y*k1, Z: e0.Z*k0 + e1.Z*k1}, l
}

// rotFast is rotInterp (Eq. 1) at c.t ∈ (0, 1) with the turn of
// slerpCoef, falling back to rotInterp where the series does not reach.
func rotFast(center, p0, p1 geom.Vec3, c *slerpCoef) geom.Vec3 {
	e0, e1 := p0.Sub(center), p1.Sub(center)
	l0, l1 := e0.Len(), e1.Len()
	if l0 < 1e-9 || l1 < 1e-9 {
		return p0.Lerp(p1, c.t)
	}
	dir, ok := c.turn(e0.Scale(1/l0), e1.Scale(1/l1))
	if !ok {
		return rotInterp(center, p0, p1, c.t)
	}
	return center.Add(dir.Scale((1-c.t)*l0 + c.t*l1))
}

// axisFrame is a ball joint's twist axis at one swing grid point: the
// line through the joint centre C along the unit bone direction N, with
// unit A, B completing a right-handed frame.
type axisFrame struct{ C, N, A, B geom.Vec3 }

func newAxisFrame(c, n geom.Vec3) axisFrame {
	a := n.AnyPerp()
	return axisFrame{C: c, N: n, A: a, B: n.Cross(a)}
}

// Stored samples (float32, four per vertex): about a ball joint's twist
// axis, the cylindrical coordinates (h, l, ua, ub) of p = C + h N +
// l (ua A + ub B), l ≥ 0 and (ua, ub) a unit vector; about a hinge's
// centre C, the polar form (l, ux, uy, uz) of p = C + l û. Eqs. 1–3 need
// exactly these lengths and directions, so a frame reads them instead of
// recomputing them for every sample (projections, square roots,
// divisions). Float32 rounds them to ~6e-8 relative, as it rounded the
// positions.

// cylinder returns p's stored coordinates about frame f.
func (f *axisFrame) cylinder(p geom.Vec3) [4]float32 {
	e := p.Sub(f.C)
	h := e.Dot(f.N)
	e = e.Sub(f.N.Scale(h))
	l := e.Len()
	ua, ub := 1.0, 0.0
	if l > 0 {
		ua, ub = e.Dot(f.A)/l, e.Dot(f.B)/l
	}
	return [4]float32{float32(h), float32(l), float32(ua), float32(ub)}
}

// point returns the position of stored cylindrical coordinates s.
func (f *axisFrame) point(s *[4]float32) geom.Vec3 {
	h, l, ua, ub := float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3])
	return geom.Vec3{
		X: f.C.X + f.N.X*h + (f.A.X*ua+f.B.X*ub)*l,
		Y: f.C.Y + f.N.Y*h + (f.A.Y*ua+f.B.Y*ub)*l,
		Z: f.C.Z + f.N.Z*h + (f.A.Z*ua+f.B.Z*ub)*l,
	}
}

// screw is screwInterp (Eqs. 2–3) at c.t ∈ (0, 1) between stored
// cylindrical coordinates s0, s1 about f: the axial coordinate and the
// radius go linearly, the radial direction turns by slerpCoef. It falls
// back to screwInterp where the series does not reach.
func (f *axisFrame) screw(s0, s1 *[4]float32, c *slerpCoef) geom.Vec3 {
	h0, l0, a0, b0 := float64(s0[0]), float64(s0[1]), float64(s0[2]), float64(s0[3])
	h1, l1, a1, b1 := float64(s1[0]), float64(s1[1]), float64(s1[2]), float64(s1[3])
	if l0 < 1e-9 || l1 < 1e-9 {
		return f.point(s0).Lerp(f.point(s1), c.t)
	}
	da, db := a0-a1, b0-b1
	g0, g1, ok := c.coefs(-0.5 * (da*da + db*db))
	if !ok {
		return screwInterp(f.C, f.N, f.point(s0), f.point(s1), c.t)
	}
	h := h0 + (h1-h0)*c.t
	l := (1-c.t)*l0 + c.t*l1
	ua, ub := (g0*a0+g1*a1)*l, (g0*b0+g1*b1)*l
	return geom.Vec3{
		X: f.C.X + f.N.X*h + f.A.X*ua + f.B.X*ub,
		Y: f.C.Y + f.N.Y*h + f.A.Y*ua + f.B.Y*ub,
		Z: f.C.Z + f.N.Z*h + f.A.Z*ua + f.B.Z*ub,
	}
}

// screwRel is screw relative to the joint centre f.C: it returns
// p − f.C and |p − f.C| = √(h² + l²) (N ⟂ A, B and the turned radial
// direction is a unit vector to the series' accuracy), with the series
// cut at its first eight terms (see slerpCoef); other cases go to screw.
func (f *axisFrame) screwRel(s0, s1 *[4]float32, c *slerpCoef) (geom.Vec3, float64) {
	h0, l0, a0, b0 := float64(s0[0]), float64(s0[1]), float64(s0[2]), float64(s0[3])
	h1, l1, a1, b1 := float64(s1[0]), float64(s1[1]), float64(s1[2]), float64(s1[3])
	da, db := a0-a1, b0-b1
	d := -0.5 * (da*da + db*db)
	if l0 < 1e-9 || l1 < 1e-9 || d < c.dHalf {
		p := f.screw(s0, s1, c).Sub(f.C)
		return p, p.Len()
	}
	d2 := d * d
	d4 := d2 * d2
	g0, g1 := estrin8(&c.b0, d, d2, d4), estrin8(&c.b1, d, d2, d4)
	h := h0 + (h1-h0)*c.t
	l := (1-c.t)*l0 + c.t*l1
	ua, ub := (g0*a0+g1*a1)*l, (g0*b0+g1*b1)*l
	return geom.Vec3{
		X: f.N.X*h + f.A.X*ua + f.B.X*ub,
		Y: f.N.Y*h + f.A.Y*ua + f.B.Y*ub,
		Z: f.N.Z*h + f.A.Z*ua + f.B.Z*ub,
	}, math.Sqrt(h*h + l*l)
}

// polar returns p's stored polar coordinates about centre c.
func polar(c, p geom.Vec3) [4]float32 {
	e := p.Sub(c)
	l := e.Len()
	u := geom.Vec3{X: 1}
	if l > 0 {
		u = e.Scale(1 / l)
	}
	return [4]float32{float32(l), float32(u.X), float32(u.Y), float32(u.Z)}
}

// polarPoint returns the position of stored polar coordinates s.
func polarPoint(c geom.Vec3, s *[4]float32) geom.Vec3 {
	l := float64(s[0])
	return geom.Vec3{X: c.X + float64(s[1])*l, Y: c.Y + float64(s[2])*l, Z: c.Z + float64(s[3])*l}
}

// rotPolar is rotInterp (Eq. 1) at c.t ∈ (0, 1) between stored polar
// coordinates s0, s1 about centre center.
func rotPolar(center geom.Vec3, s0, s1 *[4]float32, c *slerpCoef) geom.Vec3 {
	l0, l1 := float64(s0[0]), float64(s1[0])
	if l0 < 1e-9 || l1 < 1e-9 {
		return polarPoint(center, s0).Lerp(polarPoint(center, s1), c.t)
	}
	u0 := geom.Vec3{X: float64(s0[1]), Y: float64(s0[2]), Z: float64(s0[3])}
	u1 := geom.Vec3{X: float64(s1[1]), Y: float64(s1[2]), Z: float64(s1[3])}
	dir, ok := c.turn(u0, u1)
	if !ok {
		return rotInterp(center, polarPoint(center, s0), polarPoint(center, s1), c.t)
	}
	return center.Add(dir.Scale((1-c.t)*l0 + c.t*l1))
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
