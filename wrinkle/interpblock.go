package wrinkle

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// The interpolation of a role's listed vertices runs one step of Eqs. 1–3
// at a time over blocks of offBlock vertices (offsets): the twist step for
// each swing corner, then the second and the first swing step, each a
// loop without calls over flat slices of the block. Each kernel is the
// fast path of screwRel, rotRel or rotPolar written out, with the same
// operations in the same order, so the results are theirs bit for bit;
// the rare cases those functions hand on (a point on the axis, an angle
// beyond the eight-term series) call them.

// offBlock is the number of vertices an interpolation step runs over at
// a time: four corners' points and lengths of a block (8 KiB) stay in the
// L1 cache between steps.
const offBlock = 64

// offScratch holds a block's partial results: y[c][j], yl[c][j] are the
// point relative to the joint centre and its length at swing corner c
// (i0·2+i1) for the block's vertex j.
type offScratch struct {
	y  [4][offBlock]geom.Vec3
	yl [4][offBlock]float64
}

// screwBlock sets y[j], yl[j] to f.screwRel(&s0[j], &s1[j], c) for every j,
// in two passes that each keep fewer values live (the frame's axes only
// in the second): the cylindrical result (h, L·ua, L·ub) and the length,
// then its position along the axes. A vertex screwRel's fast path does
// not cover is marked by a length of −1 in the first pass.
func screwBlock(f *axisFrame, s0, s1 [][4]float32, c *slerpCoef, y []geom.Vec3, yl []float64) {
	s1, y, yl = s1[:len(s0)], y[:len(s0)], yl[:len(s0)]
	t, u, dh := c.t, 1-c.t, c.dHalf
	for j := range s0 {
		p0, p1 := &s0[j], &s1[j]
		h0, l0, a0, b0 := float64(p0[0]), float64(p0[1]), float64(p0[2]), float64(p0[3])
		h1, l1, a1, b1 := float64(p1[0]), float64(p1[1]), float64(p1[2]), float64(p1[3])
		da, db := a0-a1, b0-b1
		d := -0.5 * (da*da + db*db)
		if l0 < 1e-9 || l1 < 1e-9 || d < dh {
			yl[j] = -1
			continue
		}
		d2 := d * d
		d4 := d2 * d2
		g0, g1 := estrin8(&c.b0, d, d2, d4), estrin8(&c.b1, d, d2, d4)
		h := h0 + (h1-h0)*t
		l := u*l0 + t*l1
		y[j] = geom.Vec3{X: h, Y: (g0*a0 + g1*a1) * l, Z: (g0*b0 + g1*b1) * l}
		yl[j] = math.Sqrt(h*h + l*l)
	}
	n, a, b := f.N, f.A, f.B
	for j := range y {
		if yl[j] < 0 {
			y[j], yl[j] = f.screwRel(&s0[j], &s1[j], c)
			continue
		}
		h, ua, ub := y[j].X, y[j].Y, y[j].Z
		y[j] = geom.Vec3{
			X: n.X*h + a.X*ua + b.X*ub,
			Y: n.Y*h + a.Y*ua + b.Y*ub,
			Z: n.Z*h + a.Z*ua + b.Z*ub,
		}
	}
}

// pointBlock sets y[j] to f.point(&s[j]) − f.C and yl[j] to its length.
func pointBlock(f *axisFrame, s [][4]float32, y []geom.Vec3, yl []float64) {
	y, yl = y[:len(s)], yl[:len(s)]
	c, n, a, b := f.C, f.N, f.A, f.B
	for j := range s {
		p := &s[j]
		h, l, ua, ub := float64(p[0]), float64(p[1]), float64(p[2]), float64(p[3])
		x := c.X + n.X*h + (a.X*ua+b.X*ub)*l - c.X
		yy := c.Y + n.Y*h + (a.Y*ua+b.Y*ub)*l - c.Y
		z := c.Z + n.Z*h + (a.Z*ua+b.Z*ub)*l - c.Z
		y[j] = geom.Vec3{X: x, Y: yy, Z: z}
		yl[j] = math.Sqrt(x*x + yy*yy + z*z)
	}
}

// rotBlock sets y0[j], l0[j] to rotRel(y0[j], l0[j], y1[j], l1[j], c)
// for every j.
func rotBlock(y0 []geom.Vec3, l0 []float64, y1 []geom.Vec3, l1 []float64, c *slerpCoef) {
	l0, y1, l1 = l0[:len(y0)], y1[:len(y0)], l1[:len(y0)]
	t, u, dh := c.t, 1-c.t, c.dHalf
	for j := range y0 {
		e0, e1 := y0[j], y1[j]
		m0, m1 := l0[j], l1[j]
		if m0 < 1e-9 || m1 < 1e-9 {
			y0[j], l0[j] = rotRel(e0, m0, e1, m1, c)
			continue
		}
		k := 1 / (m0 * m1)
		d := (e0.X*e1.X+e0.Y*e1.Y+e0.Z*e1.Z)*k - 1
		if d < dh {
			y0[j], l0[j] = rotRel(e0, m0, e1, m1, c)
			continue
		}
		d2 := d * d
		d4 := d2 * d2
		g0, g1 := estrin8(&c.b0, d, d2, d4), estrin8(&c.b1, d, d2, d4)
		l := u*m0 + t*m1
		k0, k1 := l*g0*m1*k, l*g1*m0*k
		y0[j] = geom.Vec3{X: e0.X*k0 + e1.X*k1, Y: e0.Y*k0 + e1.Y*k1, Z: e0.Z*k0 + e1.Z*k1}
		l0[j] = l
	}
}

// polarBlock sets y[j] to rotPolar(center, &s0[j], &s1[j], c) for every
// j (relative to nothing: the centre is added, as rotPolar does).
func polarBlock(center geom.Vec3, s0, s1 [][4]float32, c *slerpCoef, y []geom.Vec3) {
	s1, y = s1[:len(s0)], y[:len(s0)]
	t, u := c.t, 1-c.t
	for j := range s0 {
		p0, p1 := &s0[j], &s1[j]
		m0, m1 := float64(p0[0]), float64(p1[0])
		ux, uy, uz := float64(p0[1]), float64(p0[2]), float64(p0[3])
		vx, vy, vz := float64(p1[1]), float64(p1[2]), float64(p1[3])
		wx, wy, wz := ux-vx, uy-vy, uz-vz
		d := -0.5 * (wx*wx + wy*wy + wz*wz)
		if m0 < 1e-9 || m1 < 1e-9 || d < c.dHalf {
			y[j] = rotPolar(center, p0, p1, c)
			continue
		}
		d2 := d * d
		d4 := d2 * d2
		g0, g1 := estrin8(&c.b0, d, d2, d4), estrin8(&c.b1, d, d2, d4)
		l := u*m0 + t*m1
		y[j] = geom.Vec3{
			X: center.X + (ux*g0+vx*g1)*l,
			Y: center.Y + (uy*g0+vy*g1)*l,
			Z: center.Z + (uz*g0+vz*g1)*l,
		}
	}
}
