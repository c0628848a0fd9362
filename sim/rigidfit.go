package sim

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// rigidFit returns the rotation q and translation t of the rigid motion
// that best maps the points p onto q (least squares, equal weights): Horn's
// closed form ("Closed-form solution of absolute orientation using unit
// quaternions", JOSA A 4(4), 1987), the quaternion being the eigenvector of
// the largest eigenvalue of a symmetric 4×4 matrix built from the
// cross-covariance. It handles planar point sets (a waistband loop).
func rigidFit(p, q []geom.Vec3) (geom.Quat, geom.Vec3) {
	n := float64(len(p))
	if n == 0 {
		return geom.QuatIdentity(), geom.Vec3{}
	}
	var cp, cq geom.Vec3
	for i := range p {
		cp, cq = cp.Add(p[i]), cq.Add(q[i])
	}
	cp, cq = cp.Scale(1/n), cq.Scale(1/n)
	var s [3][3]float64 // Σ (p−cp)(q−cq)ᵀ
	for i := range p {
		a, b := p[i].Sub(cp), q[i].Sub(cq)
		av, bv := [3]float64{a.X, a.Y, a.Z}, [3]float64{b.X, b.Y, b.Z}
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				s[r][c] += av[r] * bv[c]
			}
		}
	}
	xx, xy, xz := s[0][0], s[0][1], s[0][2]
	yx, yy, yz := s[1][0], s[1][1], s[1][2]
	zx, zy, zz := s[2][0], s[2][1], s[2][2]
	m := [4][4]float64{
		{xx + yy + zz, yz - zy, zx - xz, xy - yx},
		{yz - zy, xx - yy - zz, xy + yx, zx + xz},
		{zx - xz, xy + yx, -xx + yy - zz, yz + zy},
		{xy - yx, zx + xz, yz + zy, -xx - yy + zz},
	}
	vals, vecs := jacobiEigen4(m)
	best := 0
	for k := 1; k < 4; k++ {
		if vals[k] > vals[best] {
			best = k
		}
	}
	rot := geom.Quat{W: vecs[0][best], X: vecs[1][best], Y: vecs[2][best], Z: vecs[3][best]}.Normalize()
	return rot, cq.Sub(rot.Rotate(cp))
}

// jacobiEigen4 diagonalises a symmetric 4×4 matrix by cyclic Jacobi
// rotations: eigenvalues and eigenvectors (columns).
func jacobiEigen4(a [4][4]float64) ([4]float64, [4][4]float64) {
	var v [4][4]float64
	for i := range v {
		v[i][i] = 1
	}
	for sweep := 0; sweep < 50; sweep++ {
		off := 0.0
		for i := 0; i < 4; i++ {
			for j := i + 1; j < 4; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := 0; p < 4; p++ {
			for q := p + 1; q < 4; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < 4; k++ {
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := 0; k < 4; k++ {
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := 0; k < 4; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	return [4]float64{a[0][0], a[1][1], a[2][2], a[3][3]}, v
}
