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
// quaternion) and S symmetric, by Higham's scaled Newton iteration
// X ← (γX + X⁻ᵀ/γ)/2, γ = (‖X⁻¹‖_F/‖X‖_F)^½, which converges
// quadratically to the orthogonal factor U. When det F < 0 (an inverted
// triangle) U is a reflection; R = −U is then a rotation and S = Rᵀ·F, so
// that R·S = F still holds. A singular F gives R = I and S = sym(F).
func polar(f geom.Mat3) (geom.Quat, sym6) {
	x := f
	det := f.Det()
	if !(math.Abs(det) > 1e-30) {
		return geom.QuatIdentity(), symOf(f)
	}
	for it := 0; it < 30; it++ {
		inv, ok := x.Inverse()
		if !ok {
			return geom.QuatIdentity(), symOf(f)
		}
		it := inv.T()
		g := math.Sqrt(math.Sqrt(frob2(inv) / frob2(x)))
		next := x.Scale(g / 2).Add(it.Scale(1 / (2 * g)))
		d := frob2(next.Add(x.Scale(-1)))
		x = next
		if d < 1e-24 {
			break
		}
	}
	if det < 0 {
		x = x.Scale(-1)
	}
	q := geom.QuatFromMat3(x).Normalize()
	return q, symOf(q.Mat3().T().Mul(f))
}

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
// (axis·angle/2), with q taken on the hemisphere w ≥ 0.
func quatLog(q geom.Quat) geom.Vec3 {
	if q.W < 0 {
		q = q.Scale(-1)
	}
	v := geom.Vec3{X: q.X, Y: q.Y, Z: q.Z}
	s := v.Len()
	if s < 1e-12 {
		return v
	}
	return v.Scale(math.Atan2(s, q.W) / s)
}

// quatExp is the inverse of quatLog.
func quatExp(v geom.Vec3) geom.Quat {
	a := v.Len()
	if a < 1e-12 {
		return geom.Quat{W: 1, X: v.X, Y: v.Y, Z: v.Z}.Normalize()
	}
	s := math.Sin(a) / a
	return geom.Quat{W: math.Cos(a), X: v.X * s, Y: v.Y * s, Z: v.Z * s}
}
