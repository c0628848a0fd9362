package resynth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// triSkin is a triangle's skinning: up to four joints and weights (the
// average of its vertices' weights, largest first, normalised).
type triSkin struct {
	j [4]int32
	w [4]float64
}

// triSkins returns each triangle's skinning from the vertex weights.
func triSkins(tris [][3]int32, w skel.Weights) []triSkin {
	out := make([]triSkin, len(tris))
	acc := map[int32]float64{}
	for t, tri := range tris {
		clear(acc)
		for _, v := range tri {
			js, ws := w.Influences(int(v))
			for k := range js {
				acc[js[k]] += float64(ws[k])
			}
		}
		var ts triSkin
		for k := range ts.j {
			ts.j[k] = -1
		}
		for j, x := range acc {
			// Insert by weight (ties by joint id, so the order does not
			// depend on map iteration).
			for k := range ts.j {
				if ts.j[k] < 0 || x > ts.w[k] || (x == ts.w[k] && j < ts.j[k]) {
					copy(ts.j[k+1:], ts.j[k:3])
					copy(ts.w[k+1:], ts.w[k:3])
					ts.j[k], ts.w[k] = j, x
					break
				}
			}
		}
		sum := ts.w[0] + ts.w[1] + ts.w[2] + ts.w[3]
		if ts.j[0] < 0 || !(sum > 0) {
			ts = triSkin{j: [4]int32{0, -1, -1, -1}, w: [4]float64{1}}
		} else {
			for k := range ts.w {
				ts.w[k] /= sum
			}
		}
		out[t] = ts
	}
	return out
}

// rotation returns the triangle's frame: the normalised blend of its
// joints' skinning rotations, each on the hemisphere of the first (as in
// dual-quaternion skinning).
func (ts *triSkin) rotation(skin []geom.Rigid) geom.Quat {
	q0 := skin[ts.j[0]].R
	q := q0.Scale(ts.w[0])
	for k := 1; k < 4 && ts.j[k] >= 0; k++ {
		r := skin[ts.j[k]].R
		if r.Dot(q0) < 0 {
			r = r.Scale(-1)
		}
		q = q.Add(r.Scale(ts.w[k]))
	}
	return q.Normalize()
}

// edgeMatrix returns [x1−x0, x2−x0, n/√|n|] with n = (x1−x0)×(x2−x0): the
// triangle's edges and its normal scaled as Sumner and Popović (2004) do,
// so that F = edgeMatrix(deformed)·edgeMatrix(rest)⁻¹ (Eq. G1) is defined
// for a triangle.
func edgeMatrix(x0, x1, x2 geom.Vec3) geom.Mat3 {
	e1, e2 := x1.Sub(x0), x2.Sub(x0)
	n := e1.Cross(e2)
	l := n.Len()
	if l > 0 {
		n = n.Scale(1 / math.Sqrt(l))
	}
	return geom.Cols(e1, e2, n)
}

// sym6 is a symmetric 3×3 matrix: xx, yy, zz, xy, xz, yz.
type sym6 [6]float64

func (s *sym6) mat() geom.Mat3 {
	return geom.Mat3{{s[0], s[3], s[4]}, {s[3], s[1], s[5]}, {s[4], s[5], s[2]}}
}

func symOf(m geom.Mat3) sym6 {
	return sym6{m[0][0], m[1][1], m[2][2], (m[0][1] + m[1][0]) / 2, (m[0][2] + m[2][0]) / 2, (m[1][2] + m[2][1]) / 2}
}

// polar returns the polar decomposition F = R·S, R a rotation (as a unit
// quaternion) and S symmetric, by Higham's Newton iteration
// X ← (γX + X⁻ᵀ/γ)/2 (γ = |det X|^(−1/3) for the first steps while det X
// is far from 1, then 1),
// which converges quadratically to the orthogonal factor U; X⁻ᵀ is the
// cofactor matrix over the determinant. When det F < 0 (an inverted
// triangle) U is a reflection; R = −U is then a rotation and S = Rᵀ·F, so
// that R·S = F still holds. A singular F gives R = I and S = sym(F).
func polar(f geom.Mat3) (geom.Quat, sym6) {
	a, b, c := f[0][0], f[0][1], f[0][2]
	d, e, g := f[1][0], f[1][1], f[1][2]
	h, k, l := f[2][0], f[2][1], f[2][2]
	det0 := 0.0
	for it := 0; it < 40; it++ {
		c00, c01, c02 := e*l-g*k, g*h-d*l, d*k-e*h
		c10, c11, c12 := c*k-b*l, a*l-c*h, b*h-a*k
		c20, c21, c22 := b*g-c*e, c*d-a*g, a*e-b*d
		det := a*c00 + b*c01 + c*c02
		if it == 0 {
			det0 = det
		}
		if !(math.Abs(det) > 1e-30) {
			return geom.QuatIdentity(), symOf(f)
		}
		gm := 1.0
		if it < 3 && !(det > 0.7 && det < 1.4) {
			gm = 1 / math.Cbrt(math.Abs(det))
		}
		s, t := gm/2, 1/(2*gm*det)
		na, nb, nc := s*a+t*c00, s*b+t*c01, s*c+t*c02
		nd, ne, ng := s*d+t*c10, s*e+t*c11, s*g+t*c12
		nh, nk, nl := s*h+t*c20, s*k+t*c21, s*l+t*c22
		ch := sq(na-a) + sq(nb-b) + sq(nc-c) + sq(nd-d) + sq(ne-e) + sq(ng-g) + sq(nh-h) + sq(nk-k) + sq(nl-l)
		a, b, c, d, e, g, h, k, l = na, nb, nc, nd, ne, ng, nh, nk, nl
		if ch < 1e-16 { // the error after this step is about ch (quadratic)
			break
		}
	}
	u := geom.Mat3{{a, b, c}, {d, e, g}, {h, k, l}}
	if det0 < 0 {
		u = u.Scale(-1)
	}
	q := geom.QuatFromMat3(u).Normalize()
	return q, symOf(q.Mat3().T().Mul(f))
}

func sq(x float64) float64 { return x * x }

func frob2(m geom.Mat3) float64 {
	s := 0.0
	for i := range m {
		for j := range m[i] {
			s += m[i][j] * m[i][j]
		}
	}
	return s
}

// quatLog returns log(q) for a unit quaternion: the rotation vector halved
// (axis·angle/2), with q taken on the hemisphere w ≥ 0. It does not
// depend on |q|, so q need not be normalised. Small rotations (|v| <
// 0.01, the usual case between neighbouring frames) use the series of
// atan(x)/x to r² (r = (|v|/w)²), accurate to 1e-9 relative; rotations
// up to about 23° (r < 0.04, common between the frames of a transition
// window) the series Σ (−r)ⁿ/(2n+1) to n = 11 (truncation below 1e-17
// relative), which costs less than math.Atan2.
func quatLog(q geom.Quat) geom.Vec3 {
	if q.W < 0 {
		q = q.Scale(-1)
	}
	v := geom.Vec3{X: q.X, Y: q.Y, Z: q.Z}
	s2 := v.Len2()
	if s2 < 1e-4 && q.W > 0.5 {
		r := s2 / (q.W * q.W)
		return v.Scale((1 - r/3 + r*r/5) / q.W)
	}
	if q.W > 0.5 && s2 < 0.04*q.W*q.W {
		r := s2 / (q.W * q.W)
		p := atanSeries[len(atanSeries)-1]
		for n := len(atanSeries) - 2; n >= 0; n-- {
			p = atanSeries[n] - r*p
		}
		return v.Scale(p / q.W)
	}
	s := math.Sqrt(s2)
	return v.Scale(math.Atan2(s, q.W) / s)
}

// quatExp is the inverse of quatLog. Small angles (< 0.01) use the series
// of sin a / a and cos a to a⁴, accurate to 1e-15; angles below 0.5 the
// series to a¹⁶ (truncation below 1e-19).
func quatExp(v geom.Vec3) geom.Quat {
	a2 := v.Len2()
	if a2 < 1e-4 {
		s := 1 - a2/6 + a2*a2/120
		c := 1 - a2/2 + a2*a2/24
		return geom.Quat{W: c, X: v.X * s, Y: v.Y * s, Z: v.Z * s}
	}
	if a2 < 0.25 {
		// Horner in a²: sin a / a = Σ (−a²)ⁿ/(2n+1)!, cos a = Σ (−a²)ⁿ/(2n)!.
		s, c := sinSeries[len(sinSeries)-1], cosSeries[len(cosSeries)-1]
		for n := len(sinSeries) - 2; n >= 0; n-- {
			s = sinSeries[n] - a2*s
			c = cosSeries[n] - a2*c
		}
		return geom.Quat{W: c, X: v.X * s, Y: v.Y * s, Z: v.Z * s}
	}
	a := math.Sqrt(a2)
	s := math.Sin(a) / a
	return geom.Quat{W: math.Cos(a), X: v.X * s, Y: v.Y * s, Z: v.Z * s}
}

// Series coefficients: atan(x)/x = Σ (−1)ⁿ rⁿ/(2n+1) (r = x²),
// sin a / a = Σ (−1)ⁿ a²ⁿ/(2n+1)!, cos a = Σ (−1)ⁿ a²ⁿ/(2n)!; the signs
// are applied by the Horner steps p = cₙ − r·p.
var (
	atanSeries = [...]float64{1, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23}
	sinSeries  = [...]float64{1, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880, 1.0 / 39916800, 1.0 / 6227020800, 1.0 / 1307674368000, 1.0 / 355687428096000}
	cosSeries  = [...]float64{1, 1.0 / 2, 1.0 / 24, 1.0 / 720, 1.0 / 40320, 1.0 / 3628800, 1.0 / 479001600, 1.0 / 87178291200, 1.0 / 20922789888000}
)
