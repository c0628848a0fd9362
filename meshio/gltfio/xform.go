package gltfio

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// mat4 is a 4x4 affine matrix in column-major order (glTF's layout):
// element (row r, column c) is m[4*c+r].
type mat4 [16]float64

var ident4 = mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}

func (a mat4) mul(b mat4) mat4 {
	var m mat4
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			s := 0.0
			for k := 0; k < 4; k++ {
				s += a[4*k+r] * b[4*c+k]
			}
			m[4*c+r] = s
		}
	}
	return m
}

// linear returns the upper-left 3x3 block (row-major geom.Mat3).
func (a mat4) linear() geom.Mat3 {
	return geom.Mat3{{a[0], a[4], a[8]}, {a[1], a[5], a[9]}, {a[2], a[6], a[10]}}
}

func (a mat4) point(p geom.Vec3) geom.Vec3 {
	return a.linear().MulVec(p).Add(geom.Vec3{X: a[12], Y: a[13], Z: a[14]})
}

func (a mat4) finite() bool {
	for _, x := range a {
		if !finite(x) {
			return false
		}
	}
	return true
}

// trs returns T·R·S for translation t, unit rotation q and scale s.
func trs(t geom.Vec3, q geom.Quat, s geom.Vec3) mat4 {
	r := q.Mat3()
	return mat4{
		r[0][0] * s.X, r[1][0] * s.X, r[2][0] * s.X, 0,
		r[0][1] * s.Y, r[1][1] * s.Y, r[2][1] * s.Y, 0,
		r[0][2] * s.Z, r[1][2] * s.Z, r[2][2] * s.Z, 0,
		t.X, t.Y, t.Z, 1,
	}
}

// simTol is the relative tolerance for calling a scale uniform and a
// matrix affine: float32 data round-trips through several products, and
// exporters write scales like 0.0099999998.
const simTol = 1e-4

// similarity splits an affine m = T·(s·R) into a positive uniform scale s,
// rotation R and translation T. ok is false for a projective bottom row,
// a non-positive determinant (collapse or mirror) or non-uniform scale or
// shear beyond simTol.
func (a mat4) similarity() (s float64, r geom.Rigid, ok bool) {
	if math.Abs(a[3]) > simTol || math.Abs(a[7]) > simTol || math.Abs(a[11]) > simTol || math.Abs(a[15]-1) > simTol {
		return 0, r, false
	}
	l := a.linear()
	det := l.Det()
	if !(det > 0) || !finite(det) {
		return 0, r, false
	}
	s = math.Cbrt(det)
	rot := l.Scale(1 / s)
	// RᵀR must be the identity.
	g := rot.T().Mul(rot)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g[i][j]-want) > 2*simTol {
				return 0, r, false
			}
		}
	}
	return s, geom.Rigid{R: geom.QuatFromMat3(rot), T: geom.Vec3{X: a[12], Y: a[13], Z: a[14]}}, true
}

// inverseAffine returns the inverse of an affine matrix, false if singular.
func (a mat4) inverseAffine() (mat4, bool) {
	li, ok := a.linear().Inverse()
	if !ok {
		return mat4{}, false
	}
	t := li.MulVec(geom.Vec3{X: a[12], Y: a[13], Z: a[14]}).Neg()
	return mat4{
		li[0][0], li[1][0], li[2][0], 0,
		li[0][1], li[1][1], li[2][1], 0,
		li[0][2], li[1][2], li[2][2], 0,
		t.X, t.Y, t.Z, 1,
	}, true
}

func rigidMat(r geom.Rigid) mat4 { return mat4(r.Mat4()) }
