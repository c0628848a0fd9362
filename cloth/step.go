package cloth

import (
	"errors"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// work holds all per-step buffers, allocated once.
type work struct {
	f, kdx, dx0, rhs        []geom.Vec3
	fprev                   []geom.Vec3
	dv, r, d, q, s          []geom.Vec3
	x0, v0, xprev, vprev    []geom.Vec3
	pinv                    []geom.Mat3
	kind                    []uint8
	pinned                  []bool
	dir, z                  []geom.Vec3
	conList                 []int32
	extF                    []geom.Vec3
	extK, extD              []geom.Mat3
	extMark                 []bool
	extList                 []int32
	attTarget, attVel       []geom.Vec3
	k1x, k1v, k2x, k2v, tmp []geom.Vec3 // RK4
	havePrev                bool
	prevH                   float64
}

func (w *work) init(n int) {
	vec := func() []geom.Vec3 { return make([]geom.Vec3, n) }
	w.f, w.kdx, w.dx0, w.rhs = vec(), vec(), vec(), vec()
	w.fprev = vec()
	w.dv, w.r, w.d, w.q, w.s = vec(), vec(), vec(), vec(), vec()
	w.x0, w.v0, w.xprev, w.vprev = vec(), vec(), vec(), vec()
	w.pinv = make([]geom.Mat3, n)
	w.kind = make([]uint8, n)
	w.pinned = make([]bool, n)
	w.dir, w.z = vec(), vec()
	w.extF = vec()
	w.extK, w.extD = make([]geom.Mat3, n), make([]geom.Mat3, n)
	w.extMark = make([]bool, n)
}

// StepStats reports what Step did.
type StepStats struct {
	// CGIterations is the total number of CG iterations over all substeps.
	CGIterations int
	// Residual is the largest final relative CG residual of the substeps.
	Residual float64
	// Substeps is the number of accepted substeps; Retries the number of
	// substeps rejected (CG failure, NaN, speed or stretch limit) and redone
	// with half the step.
	Substeps, Retries int
	// MinDt is the smallest substep used, s.
	MinDt float64
	// MaxStretch is the largest elongation strain at the end of the step.
	MaxStretch float64
	// MaxSpeed (m/s) and KineticEnergy (J) at the end of the step.
	MaxSpeed, KineticEnergy float64
}

// ErrDiverged is wrapped by the error Step returns when a substep fails even
// at Options.MinDt. The cloth is left in its last good state.
var ErrDiverged = errors.New("cloth: simulation diverged")

// errRetry marks a recoverable substep failure.
type errRetry struct{ why string }

func (e *errRetry) Error() string { return e.why }

// Step advances the simulation by dt seconds, in substeps of at most
// Options.MaxDt, halving a substep (for the rest of this Step) and retrying
// it when it fails. It never leaves NaN in the state: a step that cannot be
// completed returns an error wrapping ErrDiverged with the state rolled back
// to the last accepted substep.
func (c *Cloth) Step(dt float64) (StepStats, error) {
	var st StepStats
	if !(dt > 0) || math.IsInf(dt, 0) {
		panic("cloth: Step needs a positive finite dt")
	}
	o := &c.opts
	nsub := int(math.Ceil(dt/o.MaxDt - 1e-9))
	if nsub < 1 {
		nsub = 1
	}
	h := dt / float64(nsub)
	st.MinDt = h
	t0 := c.Time
	tEnd := t0 + dt
	// Attachment targets move linearly from their start to end positions.
	for k := range c.attState {
		if c.att[k].Target == nil {
			continue
		}
		c.attState[k] = attachState{c.att[k].Target(t0), c.att[k].Target(tEnd)}
	}
	for c.Time < tEnd-1e-12*dt {
		if c.Time+h > tEnd {
			h = tEnd - c.Time
		}
		it, res, err := c.substep(h, t0, dt)
		st.CGIterations += it
		if err != nil {
			var r *errRetry
			if !errors.As(err, &r) {
				return st, err
			}
			st.Retries++
			h /= 2
			if h < o.MinDt {
				return st, fmt.Errorf("%w at t=%.6g s: %s (substep %.3g s < MinDt)", ErrDiverged, c.Time, r.why, h)
			}
			if h < st.MinDt {
				st.MinDt = h
			}
			continue
		}
		st.Residual = math.Max(st.Residual, res)
		st.Substeps++
	}
	for k := range c.attState {
		c.attState[k].from = c.attState[k].to
	}
	c.Time = tEnd
	st.MaxStretch = c.MaxStretch()
	st.KineticEnergy, st.MaxSpeed = c.kinetic()
	return st, nil
}

// attTargets sets the attachment targets and target velocities at time t
// (frame interpolation parameter from t0 over dt).
func (c *Cloth) attTargets(t, t0, dt float64) {
	w := &c.work
	if len(w.attTarget) != len(c.att) {
		w.attTarget = make([]geom.Vec3, len(c.att))
		w.attVel = make([]geom.Vec3, len(c.att))
	}
	for k := range c.att {
		s := c.attState[k]
		a := (t - t0) / dt
		w.attTarget[k] = s.from.Lerp(s.to, a)
		w.attVel[k] = s.to.Sub(s.from).Scale(1 / dt)
	}
}

// substep advances by h with the implicit integrator (or RK4), or returns
// an *errRetry after restoring the state.
func (c *Cloth) substep(h, t0, dt float64) (iters int, res float64, err error) {
	if c.opts.Integrator == ExplicitRK4 {
		return 0, 0, c.rk4(h, t0, dt)
	}
	w := &c.work
	n := len(c.X)
	x, v := c.X, c.V
	copy(w.x0, x)
	copy(w.v0, v)
	// Coefficients: implicit Euler, β = h, dx0 = h·v; BDF2 with an equal
	// previous step, β = 2h/3, dx0 = (x−x₋₁)/3 + β·v (see doc.go).
	bdf := c.opts.Integrator == BDF2 && w.havePrev && math.Abs(w.prevH-h) <= 1e-12*h
	beta := h
	if bdf {
		beta = 2 * h / 3
	}
	dx0 := w.dx0
	c.pool.run(n, chunkSize, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if bdf {
				dx0[i] = x[i].Sub(w.xprev[i]).Scale(1.0/3).AddScaled(beta, v[i])
			} else {
				dx0[i] = v[i].Scale(h)
			}
		}
	})
	w.resetSubstep()
	c.attTargets(c.Time+h, t0, dt)
	// Hard attachments: prescribed Δv so that x(t+h) hits the target.
	for k := range c.att {
		a := &c.att[k]
		if a.Stiffness != 0 {
			continue
		}
		i := a.Vertex
		dvi := w.attTarget[k].Sub(x[i]).Sub(dx0[i]).Scale(1 / beta)
		w.constrain(int32(i), Fixed, geom.Vec3{}, dvi, true)
	}
	for _, i := range c.Info.Isolated {
		w.constrain(int32(i), Fixed, geom.Vec3{}, v[i].Neg(), true)
	}
	ctx := StepContext{c: c, Time: c.Time, Dt: h, X: x, V: v}
	for _, hk := range c.Hooks {
		if err := hk.Begin(&ctx); err != nil {
			return 0, 0, err
		}
	}
	// Soft attachments are evaluated at the end-of-substep target.
	c.assemble(x, v, true, beta, beta*beta, dx0)
	// rhs = β(f + K·dx0) [+ M(v − v₋₁)/3 for BDF2]   (Eqs. 8–10)
	rhs := w.rhs
	c.pool.run(n, chunkSize, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := w.f[i].Add(w.kdx[i]).Scale(beta)
			if bdf {
				r = r.AddScaled(c.Mass[i]/3, v[i].Sub(w.vprev[i]))
			}
			rhs[i] = r
		}
	})
	iters, res, ok := c.pcg()
	if !ok {
		return iters, res, &errRetry{fmt.Sprintf("CG did not converge (residual %.3g after %d iterations)", res, iters)}
	}
	dv := w.dv
	bad := c.pool.maxOf(n, func(lo, hi int) float64 {
		m := 0.0
		for i := lo; i < hi; i++ {
			nv := v[i].Add(dv[i])
			x[i] = x[i].Add(dx0[i]).AddScaled(beta, dv[i])
			v[i] = nv
			s := nv.Len2()
			if s > m || s != s {
				m = s
			}
			if !x[i].IsFinite() {
				m = math.Inf(1)
			}
		}
		return m
	})
	fail := ""
	switch {
	case math.IsNaN(bad) || math.IsInf(bad, 0):
		fail = "non-finite state"
	case bad > c.opts.MaxSpeed*c.opts.MaxSpeed:
		fail = fmt.Sprintf("speed %.3g m/s exceeds MaxSpeed", math.Sqrt(bad))
	default:
		if s := c.MaxStretch(); s > c.opts.MaxStretch || math.IsNaN(s) {
			fail = fmt.Sprintf("stretch %.3g exceeds MaxStretch", s)
		}
	}
	if fail != "" {
		copy(x, w.x0)
		copy(v, w.v0)
		return iters, res, &errRetry{fail}
	}
	ctx.End = true
	for _, hk := range c.Hooks {
		if err := hk.End(&ctx); err != nil {
			copy(x, w.x0)
			copy(v, w.v0)
			return iters, res, err
		}
	}
	copy(w.xprev, w.x0)
	copy(w.vprev, w.v0)
	copy(w.fprev, w.f)
	w.havePrev, w.prevH = true, h
	c.Time += h
	c.plasticity(h)
	return iters, res, nil
}

// pcg solves the filtered system for Δv with the modified preconditioned
// conjugate gradient of Baraff and Witkin 1998 §5.3: Δv starts at the
// prescribed z, and residuals and search directions are filtered by S so that
// the constrained components keep their prescribed values. The
// preconditioner is the inverse of each 3x3 diagonal block (block Jacobi).
func (c *Cloth) pcg() (iters int, rel float64, ok bool) {
	w := &c.work
	A := &c.sys
	n := len(c.X)
	dv, r, d, q, s, b := w.dv, w.r, w.d, w.q, w.s, w.rhs
	kind := w.kind
	// Δv = SΔv₋₁ + z; preconditioner.
	c.pool.run(n, chunkSize, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			// Warm start from the previous substep's Δv (filtered), plus
			// the prescribed part z.
			p := dv[i]
			if kind[i] != 0 {
				p = w.filter1(int32(i), p)
			}
			if !p.IsFinite() {
				p = geom.Vec3{}
			}
			dv[i] = p.Add(w.z[i])
			inv, ok := A.val[A.diag[i]].Inverse()
			if !ok {
				m := math.Max(c.Mass[i], 1e-12)
				inv = geom.Diag3(1/m, 1/m, 1/m)
			}
			w.pinv[i] = inv
		}
	})
	// r = S(b − AΔv); δ0 = (Sb)ᵀP⁻¹(Sb).
	var delta0 float64
	c.spmv(dv, q)
	delta0 = c.pool.sum(n, func(lo, hi int) float64 {
		acc := 0.0
		for i := lo; i < hi; i++ {
			bi := b[i]
			ri := bi.Sub(q[i])
			if kind[i] != 0 {
				bi = w.filter1(int32(i), bi)
				ri = w.filter1(int32(i), ri)
			}
			r[i] = ri
			acc += bi.Dot(mulVec(&w.pinv[i], bi))
		}
		return acc
	})
	// d = S P⁻¹ r; δ = rᵀd.
	delta := c.pool.sum(n, func(lo, hi int) float64 {
		acc := 0.0
		for i := lo; i < hi; i++ {
			di := mulVec(&w.pinv[i], r[i])
			if kind[i] != 0 {
				di = w.filter1(int32(i), di)
			}
			d[i] = di
			acc += r[i].Dot(di)
		}
		return acc
	})
	tol2 := c.opts.CGTol * c.opts.CGTol
	if delta0 == 0 {
		return 0, 0, true
	}
	for iters = 0; iters < c.opts.CGMaxIter && delta > tol2*delta0; iters++ {
		// q = S A d; dq = dᵀq.
		dq := c.spmvDot(d, q)
		if !(dq > 0) {
			break // loss of positive definiteness or NaN
		}
		alpha := delta / dq
		dold := delta
		delta = c.pool.sum(n, func(lo, hi int) float64 {
			acc := 0.0
			for i := lo; i < hi; i++ {
				dv[i] = dv[i].AddScaled(alpha, d[i])
				ri := r[i].AddScaled(-alpha, q[i])
				r[i] = ri
				si := mulVec(&w.pinv[i], ri)
				if kind[i] != 0 {
					si = w.filter1(int32(i), si)
				}
				s[i] = si
				acc += ri.Dot(si)
			}
			return acc
		})
		bt := delta / dold
		c.pool.run(n, chunkSize, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d[i] = s[i].AddScaled(bt, d[i])
			}
		})
	}
	rel = math.Sqrt(math.Abs(delta / delta0))
	if math.IsNaN(rel) {
		return iters, rel, false
	}
	// Accept a solve that ran out of iterations if it is still accurate to
	// 1 %: the implicit step stays stable with an inexact Δv.
	return iters, rel, rel <= c.opts.CGTol || rel < 1e-2
}

// spmv computes y = A x (unfiltered).
func (c *Cloth) spmv(x, y []geom.Vec3) {
	A := &c.sys
	c.pool.run(len(x), chunkSize, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var acc geom.Vec3
			for k := A.rowStart[i]; k < A.rowStart[i+1]; k++ {
				acc = acc.Add(mulVec(&A.val[k], x[A.col[k]]))
			}
			y[i] = acc
		}
	})
}

// spmvDot computes y = S A x and returns xᵀy.
func (c *Cloth) spmvDot(x, y []geom.Vec3) float64 {
	A := &c.sys
	w := &c.work
	return c.pool.sum(len(x), func(lo, hi int) float64 {
		dot := 0.0
		for i := lo; i < hi; i++ {
			var ax, ay, az float64
			for k := A.rowStart[i]; k < A.rowStart[i+1]; k++ {
				m := &A.val[k]
				v := x[A.col[k]]
				ax += m[0][0]*v.X + m[0][1]*v.Y + m[0][2]*v.Z
				ay += m[1][0]*v.X + m[1][1]*v.Y + m[1][2]*v.Z
				az += m[2][0]*v.X + m[2][1]*v.Y + m[2][2]*v.Z
			}
			yi := geom.Vec3{X: ax, Y: ay, Z: az}
			if w.kind[i] != 0 {
				yi = w.filter1(int32(i), yi)
			}
			y[i] = yi
			dot += x[i].Dot(yi)
		}
		return dot
	})
}

// MaxStretch returns the largest elongation strain of the cloth: max over
// triangles of |U|−1 and |V|−1 (WeftWarp) or over stretch springs of l/L−1
// (MassSpring).
func (c *Cloth) MaxStretch() float64 {
	x := c.X
	if c.mat.Model == MassSpring {
		return c.pool.maxOf(len(c.sprs), func(lo, hi int) float64 {
			m := 0.0
			for i := lo; i < hi; i++ {
				e := &c.sprs[i]
				if e.bend {
					continue
				}
				s := x[e.v[1]].Dist(x[e.v[0]])/e.rest - 1
				if s > m || s != s {
					m = s
				}
			}
			return m
		})
	}
	return c.pool.maxOf(len(c.tris), func(lo, hi int) float64 {
		m := 0.0
		for i := lo; i < hi; i++ {
			e := &c.tris[i]
			xa, xb, xc := x[e.v[0]], x[e.v[1]], x[e.v[2]]
			U := xa.Scale(e.ru[0]).AddScaled(e.ru[1], xb).AddScaled(e.ru[2], xc)
			V := xa.Scale(e.rv[0]).AddScaled(e.rv[1], xb).AddScaled(e.rv[2], xc)
			s := math.Max(U.Len(), V.Len()) - 1
			if s > m || s != s {
				m = s
			}
		}
		return m
	})
}

func (c *Cloth) kinetic() (ke, vmax float64) {
	for i, v := range c.V {
		s := v.Len2()
		ke += 0.5 * c.Mass[i] * s
		vmax = math.Max(vmax, s)
	}
	return ke, math.Sqrt(vmax)
}

// KineticEnergy returns ½ Σ m|v|², J.
func (c *Cloth) KineticEnergy() float64 { ke, _ := c.kinetic(); return ke }

// Strains returns triangle i's current weft, warp and shear strains and its
// plastic (rest) strains (WeftWarp only).
func (c *Cloth) Strains(i int) (strain, plastic [3]float64) {
	e := &c.tris[i]
	x := c.X
	xa, xb, xc := x[e.v[0]], x[e.v[1]], x[e.v[2]]
	U := xa.Scale(e.ru[0]).AddScaled(e.ru[1], xb).AddScaled(e.ru[2], xc)
	V := xa.Scale(e.rv[0]).AddScaled(e.rv[1], xb).AddScaled(e.rv[2], xc)
	return [3]float64{U.Len() - 1, V.Len() - 1, U.Dot(V) / (U.Len() * V.Len())}, c.plast[i]
}

// NumTris returns the number of simulated triangles (WeftWarp).
func (c *Cloth) NumTris() int { return len(c.tris) }

// plasticity updates the rest-state memory after an accepted substep
// (see Plasticity).
func (c *Cloth) plasticity(h float64) {
	pl := &c.mat.Fabric.Plastic
	if pl.YieldStrain == 0 && pl.YieldCurvature == 0 {
		return
	}
	frac := 1.0
	if pl.Rate > 0 {
		frac = math.Min(1, pl.Rate*h)
	}
	drift := func(eps, p, y float64) float64 {
		el := eps - p
		if el > y {
			return p + (el-y)*frac
		}
		if el < -y {
			return p + (el+y)*frac
		}
		return p
	}
	if y := pl.YieldStrain; y > 0 {
		for i := range c.tris {
			s, p := c.Strains(i)
			for k := 0; k < 3; k++ {
				c.plast[i][k] = drift(s[k], p[k], y)
			}
		}
	}
	if pl.YieldCurvature > 0 {
		for i := range c.hinges {
			e := &c.hinges[i]
			if e.yield == 0 {
				continue
			}
			th, ok := hingeAngle(c.X[e.v[0]], c.X[e.v[1]], c.X[e.v[2]], c.X[e.v[3]])
			if ok {
				e.theta0 = drift(th, e.theta0, e.yield)
			}
		}
	}
}

// rk4 advances by h with the classical Runge–Kutta scheme on
// dx/dt = v, dv/dt = M⁻¹f(x, v). Hard attachments follow their targets;
// hooks' Begin forces apply, constraints other than pins are ignored.
func (c *Cloth) rk4(h, t0, dt float64) error {
	w := &c.work
	n := len(c.X)
	if w.k1x == nil {
		vec := func() []geom.Vec3 { return make([]geom.Vec3, n) }
		w.k1x, w.k1v, w.k2x, w.k2v, w.tmp = vec(), vec(), vec(), vec(), vec()
	}
	x, v := c.X, c.V
	copy(w.x0, x)
	copy(w.v0, v)
	w.resetSubstep()
	c.attTargets(c.Time+h, t0, dt)
	ctx := StepContext{c: c, Time: c.Time, Dt: h, X: x, V: v}
	for _, hk := range c.Hooks {
		if err := hk.Begin(&ctx); err != nil {
			return err
		}
	}
	fixed := w.pinned
	for k := range c.att {
		if c.att[k].Stiffness == 0 {
			fixed[c.att[k].Vertex] = true
		}
	}
	accX, accV := w.k1x, w.k1v // accumulated increments
	xs, vs := w.tmp, w.k2v     // stage state
	clear(accX)
	clear(accV)
	deriv := func(xx, vv []geom.Vec3) { c.assemble(xx, vv, false, 0, 0, nil) }
	weights := [4]float64{1, 2, 2, 1}
	stageH := [4]float64{0, h / 2, h / 2, h}
	copy(xs, x)
	copy(vs, v)
	for st := 0; st < 4; st++ {
		if st > 0 {
			for i := 0; i < n; i++ {
				xs[i] = x[i].AddScaled(stageH[st], w.k2x[i])
				vs[i] = v[i].AddScaled(stageH[st], w.f[i])
			}
		}
		deriv(xs, vs)
		for i := 0; i < n; i++ {
			a := w.f[i].Scale(1 / math.Max(c.Mass[i], 1e-300))
			if fixed[i] {
				a = geom.Vec3{}
			}
			w.f[i] = a // stage acceleration
			w.k2x[i] = vs[i]
			accX[i] = accX[i].AddScaled(weights[st]*h/6, vs[i])
			accV[i] = accV[i].AddScaled(weights[st]*h/6, a)
		}
	}
	for i := 0; i < n; i++ {
		x[i] = x[i].Add(accX[i])
		v[i] = v[i].Add(accV[i])
		if !x[i].IsFinite() || !v[i].IsFinite() {
			copy(x, w.x0)
			copy(v, w.v0)
			return &errRetry{"non-finite state"}
		}
	}
	for k := range c.att {
		a := &c.att[k]
		if a.Stiffness == 0 {
			x[a.Vertex] = w.attTarget[k]
			v[a.Vertex] = w.attVel[k]
		}
	}
	ctx.End = true
	for _, hk := range c.Hooks {
		if err := hk.End(&ctx); err != nil {
			return err
		}
	}
	c.Time += h
	c.plasticity(h)
	return nil
}
