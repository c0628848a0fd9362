package cloth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// assemble evaluates the forces f(x, v) into w.f. With jac it also fills the
// system matrix A = M − cD·∂f/∂v − cK·∂f/∂x (constraints not applied) and,
// when dx is non-nil, w.kdx = (∂f/∂x)·dx.
//
// Jacobians are made negative semi-definite, so that A is symmetric positive
// definite and CG applies (Choi and Ko 2002 §4 drop the same terms):
//   - stretch: the geometric term σ/|U|·(I − U*U*ᵀ) is kept only in tension;
//   - shear: only the Gauss–Newton term σ'·∇E∇Eᵀ is kept;
//   - bending: only k·∇θ∇θᵀ is kept;
//   - springs: the transverse term s/l·(I − ddᵀ) is kept only in tension.
func (c *Cloth) assemble(x, v []geom.Vec3, jac bool, cD, cK float64, dx []geom.Vec3) {
	w := &c.work
	n := len(x)
	f, kdx := w.f, w.kdx
	haveDx := jac && dx != nil
	k := &c.k
	k.x, k.v, k.jac, k.cD, k.cK, k.dx = x, v, jac, cD, cK, dx
	if !jac {
		k.dx = nil
	}
	c.pool.run(n, chunkSize, k.kClearF)
	if jac {
		c.pool.run(len(c.sys.val), 4*chunkSize, k.kClearVal)
	}
	const elemChunk = 256
	for cl := 0; cl+1 < len(c.tcol); cl++ {
		k.off = c.tcol[cl]
		c.pool.run(c.tcol[cl+1]-k.off, elemChunk, k.kTri)
	}
	for cl := 0; cl+1 < len(c.hcol); cl++ {
		k.off = c.hcol[cl]
		c.pool.run(c.hcol[cl+1]-k.off, elemChunk, k.kHinge)
	}
	for cl := 0; cl+1 < len(c.scol); cl++ {
		k.off = c.scol[cl]
		c.pool.run(c.scol[cl+1]-k.off, elemChunk, k.kSpr)
	}
	// Per-vertex terms: inertia, gravity, air drag.
	c.pool.run(n, chunkSize, k.kVert)
	// Soft attachments: zero-length springs to the targets.
	for k := range c.att {
		a := &c.att[k]
		if a.Stiffness == 0 {
			continue
		}
		i := a.Vertex
		t := w.attTarget[k]
		f[i] = f[i].AddScaled(-a.Stiffness, x[i].Sub(t)).AddScaled(-a.Damping, v[i].Sub(w.attVel[k]))
		if jac {
			d := &c.sys.val[c.sys.diag[i]]
			s := cK*a.Stiffness + cD*a.Damping
			d[0][0] += s
			d[1][1] += s
			d[2][2] += s
			if haveDx {
				kdx[i] = kdx[i].AddScaled(-a.Stiffness, dx[i])
			}
		}
	}
	// External forces and Jacobians from hooks.
	for _, i := range w.extList {
		f[i] = f[i].Add(w.extF[i])
		if jac {
			d := &c.sys.val[c.sys.diag[i]]
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					d[r][q] -= cK*w.extK[i][r][q] + cD*w.extD[i][r][q]
				}
			}
			if haveDx {
				kdx[i] = kdx[i].Add(mulVec(&w.extK[i], dx[i]))
			}
		}
	}
}

// triForce adds the membrane forces of triangle i (volino-cordier Eqs. 3–4)
// with exact strain gradients:
//
//	U = Σ Ru_k x_k, V = Σ Rv_k x_k                       (Eq. 3a)
//	Euu = |U|−1, Evv = |V|−1, Euv = U·V/(|U||V|)
//	∂Euu/∂x_k = Ru_k U*, ∂Evv/∂x_k = Rv_k V*
//	∂Euv/∂x_k = Ru_k a + Rv_k b, a = (V*−Euv U*)/|U|, b = (U*−Euv V*)/|V|
//	f_k = −A (Ru_k (Suu U* + Suv a) + Rv_k (Svv V* + Suv b))   (Eq. 4)
//
// where A is the rest area (½|D| of Eq. 2) and S are the stresses: curve
// value at the elastic strain (strain minus plastic strain) plus viscosity
// times the strain rate (Eq. 3b). Eq. 4 is the small-shear form of the same
// expression (a ≈ V*, b ≈ U*).
func (c *Cloth) triForce(i int, x, v []geom.Vec3, jac bool, cD, cK float64, dx []geom.Vec3) {
	e := &c.tris[i]
	ia, ib, ic := e.v[0], e.v[1], e.v[2]
	xa, xb, xc := x[ia], x[ib], x[ic]
	ru, rv := &e.ru, &e.rv
	U := xa.Scale(ru[0]).AddScaled(ru[1], xb).AddScaled(ru[2], xc)
	V := xa.Scale(rv[0]).AddScaled(rv[1], xb).AddScaled(rv[2], xc)
	lu, lv := U.Len(), V.Len()
	if lu < 1e-12 || lv < 1e-12 {
		return // collapsed triangle: no defined direction
	}
	Us, Vs := U.Scale(1/lu), V.Scale(1/lv)
	cs := Us.Dot(Vs)
	a := Vs.AddScaled(-cs, Us).Scale(1 / lu)
	b := Us.AddScaled(-cs, Vs).Scale(1 / lv)
	va, vb, vc := v[ia], v[ib], v[ic]
	Ud := va.Scale(ru[0]).AddScaled(ru[1], vb).AddScaled(ru[2], vc) // Eq. 3b
	Vd := va.Scale(rv[0]).AddScaled(rv[1], vb).AddScaled(rv[2], vc)
	p := &c.plast[i]
	su, ku := c.weft.eval(lu - 1 - p[0])
	sv, kv := c.warp.eval(lv - 1 - p[1])
	ss, ks := c.shear.eval(cs - p[2])
	fab := &c.mat.Fabric
	etaU, etaV, etaS := fab.ViscWeft, fab.ViscWarp, fab.ViscShear
	Su := su + etaU*Us.Dot(Ud)
	Sv := sv + etaV*Vs.Dot(Vd)
	Ss := ss + etaS*(a.Dot(Ud)+b.Dot(Vd))
	A := e.area
	Fu := Us.Scale(Su).AddScaled(Ss, a).Scale(-A)
	Fv := Vs.Scale(Sv).AddScaled(Ss, b).Scale(-A)
	f := c.work.f
	f[ia] = f[ia].Add(Fu.Scale(ru[0]).AddScaled(rv[0], Fv))
	f[ib] = f[ib].Add(Fu.Scale(ru[1]).AddScaled(rv[1], Fv))
	f[ic] = f[ic].Add(Fu.Scale(ru[2]).AddScaled(rv[2], Fv))
	if !jac {
		return
	}
	// −∂f/∂x = A Σ (coefficient pairs) H, −∂f/∂v likewise with G:
	//   Huu = ku U*U*ᵀ + max(su,0)/|U| (I−U*U*ᵀ) + ks aaᵀ, Hvv alike,
	//   Huv = ks abᵀ;  Guu = ηu U*U*ᵀ + ηs aaᵀ, Gvv alike, Guv = ηs abᵀ.
	var Cuu, Cvv, Cuv, Huu, Hvv, Huv geom.Mat3
	gu := math.Max(su, 0) / lu
	gv := math.Max(sv, 0) / lv
	addOuter(&Huu, ku-gu, Us, Us)
	addOuter(&Huu, ks, a, a)
	addOuter(&Hvv, kv-gv, Vs, Vs)
	addOuter(&Hvv, ks, b, b)
	addOuter(&Huv, ks, a, b)
	for r := 0; r < 3; r++ {
		Huu[r][r] += gu
		Hvv[r][r] += gv
	}
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			Cuu[r][q] = cK * Huu[r][q]
			Cvv[r][q] = cK * Hvv[r][q]
			Cuv[r][q] = cK * Huv[r][q]
		}
	}
	addOuter(&Cuu, cD*etaU, Us, Us)
	addOuter(&Cuu, cD*etaS, a, a)
	addOuter(&Cvv, cD*etaV, Vs, Vs)
	addOuter(&Cvv, cD*etaS, b, b)
	addOuter(&Cuv, cD*etaS, a, b)
	val := c.sys.val
	for k := 0; k < 3; k++ {
		for l := 0; l < 3; l++ {
			cuu, cvv := A*ru[k]*ru[l], A*rv[k]*rv[l]
			cuv, cvu := A*ru[k]*rv[l], A*rv[k]*ru[l]
			blk := &val[e.slot[3*k+l]]
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					blk[r][q] += cuu*Cuu[r][q] + cvv*Cvv[r][q] + cuv*Cuv[r][q] + cvu*Cuv[q][r]
				}
			}
		}
	}
	if dx != nil {
		da, db, dc := dx[ia], dx[ib], dx[ic]
		dU := da.Scale(ru[0]).AddScaled(ru[1], db).AddScaled(ru[2], dc)
		dV := da.Scale(rv[0]).AddScaled(rv[1], db).AddScaled(rv[2], dc)
		// Restore the compressive geometric terms dropped from the matrix
		// (exact Jacobian on the right-hand side, as in springForce; the
		// shear Hessian stays approximate).
		if su < 0 {
			addOuter(&Huu, -su/lu, Us, Us)
			for r := 0; r < 3; r++ {
				Huu[r][r] += su / lu
			}
		}
		if sv < 0 {
			addOuter(&Hvv, -sv/lv, Vs, Vs)
			for r := 0; r < 3; r++ {
				Hvv[r][r] += sv / lv
			}
		}
		gU := mulVec(&Huu, dU).Add(mulVec(&Huv, dV)).Scale(-A)
		gV := mulTVec(&Huv, dU).Add(mulVec(&Hvv, dV)).Scale(-A)
		kdx := c.work.kdx
		kdx[ia] = kdx[ia].Add(gU.Scale(ru[0]).AddScaled(rv[0], gV))
		kdx[ib] = kdx[ib].Add(gU.Scale(ru[1]).AddScaled(rv[1], gV))
		kdx[ic] = kdx[ic].Add(gU.Scale(ru[2]).AddScaled(rv[2], gV))
	}
}

// hingeGrad returns the dihedral angle θ of the hinge (x0, x1 opposite
// vertices, x2→x3 the shared edge; 0 when flat) and its gradient ∂θ/∂x_k
// (Bridson, Marino and Fedkiw 2003, "Simulation of clothing with folds and
// wrinkles", §4). ok is false for a degenerate hinge.
func hingeGrad(x0, x1, x2, x3 geom.Vec3) (theta float64, u [4]geom.Vec3, ok bool) {
	E := x3.Sub(x2)
	N1 := x0.Sub(x2).Cross(x0.Sub(x3))
	N2 := x1.Sub(x3).Cross(x1.Sub(x2))
	le := E.Len()
	n1, n2 := N1.Len2(), N2.Len2()
	if le < 1e-12 || n1 < 1e-30 || n2 < 1e-30 {
		return 0, u, false
	}
	ie := 1 / le
	N1s, N2s := N1.Scale(1/n1), N2.Scale(1/n2)
	u[0] = N1s.Scale(le)
	u[1] = N2s.Scale(le)
	u[2] = N1s.Scale(x0.Sub(x3).Dot(E)*ie).AddScaled(x1.Sub(x3).Dot(E)*ie, N2s)
	u[3] = N1s.Scale(-x0.Sub(x2).Dot(E)*ie).AddScaled(-x1.Sub(x2).Dot(E)*ie, N2s)
	h1, h2 := N1.Scale(1/math.Sqrt(n1)), N2.Scale(1/math.Sqrt(n2))
	theta = math.Atan2(h2.Cross(h1).Dot(E)*ie, h1.Dot(h2))
	return theta, u, true
}

func hingeAngle(x0, x1, x2, x3 geom.Vec3) (float64, bool) {
	th, _, ok := hingeGrad(x0, x1, x2, x3)
	return th, ok
}

// hingeForce adds the bending forces of hinge i: energy ½k(θ−θ0)², viscous
// moment kd·dθ/dt, forces along the hinge's rotation gradients — the
// couple-of-momentums construction of volino-cordier Eq. 5 written for an
// element pair.
func (c *Cloth) hingeForce(i int, x, v []geom.Vec3, jac bool, cD, cK float64, dx []geom.Vec3) {
	e := &c.hinges[i]
	th, u, ok := hingeGrad(x[e.v[0]], x[e.v[1]], x[e.v[2]], x[e.v[3]])
	if !ok {
		return
	}
	thd := 0.0
	for k := 0; k < 4; k++ {
		thd += u[k].Dot(v[e.v[k]])
	}
	s := -(e.k*(th-e.theta0) + e.kd*thd)
	f := c.work.f
	for k := 0; k < 4; k++ {
		f[e.v[k]] = f[e.v[k]].AddScaled(s, u[k])
	}
	if !jac {
		return
	}
	cc := cK*e.k + cD*e.kd
	val := c.sys.val
	for k := 0; k < 4; k++ {
		for l := 0; l < 4; l++ {
			addOuter(&val[e.slot[4*k+l]], cc, u[k], u[l])
		}
	}
	if dx != nil {
		ud := 0.0
		for k := 0; k < 4; k++ {
			ud += u[k].Dot(dx[e.v[k]])
		}
		kdx := c.work.kdx
		for k := 0; k < 4; k++ {
			kdx[e.v[k]] = kdx[e.v[k]].AddScaled(-e.k*ud, u[k])
		}
	}
}

// springScalar returns the scalar force s(l) of spring e (positive pulls the
// ends together) and ds/dl ≥ 0. Tension is linear. Compression follows Choi
// and Ko 2002: the smaller of the linear response and the buckling response
// F_b(l) = (B·w/L²)·g(l/L) of a spring that bends into a circular arc of
// its rest length instead of shortening.
func (c *Cloth) springScalar(e *springEl, l float64) (s, ds float64) {
	L := e.rest
	if l >= L {
		if e.bend {
			return 0, 0
		}
		return e.k * (l - L), e.k
	}
	lin := e.k * (L - l)
	if c.ms.NoBuckling {
		return -lin, e.k
	}
	if e.buck == 0 {
		if e.bend {
			return 0, 0
		}
		return -lin, e.k
	}
	g, dg := buckle(l / L)
	if fb := e.buck * g; fb < lin {
		return -fb, -e.buck * dg / L
	}
	return -lin, e.k
}

// springForce adds the forces of spring i (stretch or bending).
func (c *Cloth) springForce(i int, x, v []geom.Vec3, jac bool, cD, cK float64, dx []geom.Vec3) {
	e := &c.sprs[i]
	a, b := e.v[0], e.v[1]
	d := x[b].Sub(x[a])
	l := d.Len()
	if l < 1e-12 {
		return
	}
	d = d.Scale(1 / l)
	s, ds := c.springScalar(e, l)
	kd := e.kd
	if e.bend && l >= e.rest {
		kd = 0
	}
	sd := kd * v[b].Sub(v[a]).Dot(d)
	fa := d.Scale(s + sd)
	f := c.work.f
	f[a] = f[a].Add(fa)
	f[b] = f[b].Sub(fa)
	if !jac || e.explicit {
		return
	}
	// −∂f_a/∂x_a = ds·ddᵀ + max(s,0)/l·(I − ddᵀ); −∂f_a/∂v_a = kd·ddᵀ.
	var K geom.Mat3
	t := math.Max(s, 0) / l
	addOuter(&K, ds-t, d, d)
	K[0][0] += t
	K[1][1] += t
	K[2][2] += t
	var C geom.Mat3
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			C[r][q] = cK * K[r][q]
		}
	}
	addOuter(&C, cD*kd, d, d)
	val := c.sys.val
	for k := 0; k < 4; k++ {
		blk := &val[e.slot[k]]
		if k == 0 || k == 3 {
			addMat(blk, &C)
		} else {
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					blk[r][q] -= C[r][q]
				}
			}
		}
	}
	if dx != nil {
		// The right-hand side uses the exact Jacobian, including the
		// transverse term dropped from the matrix in compression: the
		// projection then only perturbs Δv at O(h²) and BDF2 keeps its order.
		if s < 0 {
			K = geom.Mat3{}
			addOuter(&K, ds-s/l, d, d)
			K[0][0] += s / l
			K[1][1] += s / l
			K[2][2] += s / l
		}
		g := mulVec(&K, dx[a].Sub(dx[b]))
		kdx := c.work.kdx
		kdx[a] = kdx[a].Sub(g)
		kdx[b] = kdx[b].Add(g)
	}
}

// Choi–Ko buckling curve. A spring of rest length L bent into a circular arc
// of curvature κ has chord l = L·sin(φ)/φ with φ = κL/2 and bending energy
// ½·B·w·L·κ²; the force along the chord is −dE/dl = (B·w/L²)·g with
// g(φ) = 4φ³/(sin φ − φ cos φ), from g = 12 at l = L (the buckling load) to
// 4π² at l = 0. buckle tabulates g against r = l/L.
const buckleN = 512

var buckleTab = func() (t [buckleN + 1]float64) {
	for k := 0; k <= buckleN; k++ {
		r := float64(k) / buckleN
		// Solve sin(φ)/φ = r for φ ∈ [0, π] by bisection.
		lo, hi := 0.0, math.Pi
		for it := 0; it < 80; it++ {
			m := 0.5 * (lo + hi)
			if math.Sin(m)/m > r {
				lo = m
			} else {
				hi = m
			}
		}
		phi := 0.5 * (lo + hi)
		switch {
		case k == buckleN:
			t[k] = 12
		case k == 0:
			t[k] = 4 * math.Pi * math.Pi
		default:
			t[k] = 4 * phi * phi * phi / (math.Sin(phi) - phi*math.Cos(phi))
		}
	}
	return
}()

// buckleFoldSlope is |dg/dr| at r = 1/2, a spring bent into an arc of
// 2φ ≈ 218° (sin φ/φ = 1/2): the steepest part of the buckling response short
// of a fold collapsed flat (|dg/dr| grows to 118 as r → 0, from 7.2 at the
// onset of buckling and 17 at r = 1/2).
var buckleFoldSlope = func() float64 {
	_, dg := buckle(0.5)
	return -dg
}()

// buckle returns g(r) and dg/dr (≤ 0) by linear interpolation of the table.
func buckle(r float64) (g, dg float64) {
	if r <= 0 {
		r = 0
	}
	s := r * buckleN
	k := int(s)
	if k >= buckleN {
		k = buckleN - 1
	}
	fr := s - float64(k)
	g0, g1 := buckleTab[k], buckleTab[k+1]
	return g0 + (g1-g0)*fr, (g1 - g0) * buckleN
}
