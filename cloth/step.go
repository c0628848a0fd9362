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
	kind                    []uint8
	pinned                  []bool
	dir, z                  []geom.Vec3
	xs                      []geom.Vec3 // limitStrain's start positions
	xl, vl                  []geom.Vec3 // state after the first strain limit (see restoreOver)
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
	w.kind = make([]uint8, n)
	w.pinned = make([]bool, n)
	w.dir, w.z = vec(), vec()
	w.xs = vec()
	w.xl, w.vl = vec(), vec()
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
	// Clamped counts, over the accepted substeps, the vertices whose speed
	// was clamped to Options.SpeedClamp.
	Clamped int
	// Restored counts, over the accepted substeps, the vertices whose
	// hooks' corrections (collision push-outs) were taken back because the
	// strain limit could not absorb them (see LimitHook).
	Restored int
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
	c.clampedLast, c.restoredLast = 0, 0
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
	st.Clamped = c.clampedLast
	st.Restored = c.restoredLast
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
	k := &c.k
	k.x, k.v, k.h, k.beta, k.bdf = x, v, h, beta, bdf
	c.pool.run(n, chunkSize, k.kDx0)
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
	ctx := &c.ctx // reused: a local would escape through the Hook interface
	*ctx = StepContext{c: c, Time: c.Time, Dt: h, X: x, V: v}
	for _, hk := range c.Hooks {
		if err := hk.Begin(ctx); err != nil {
			return 0, 0, err
		}
	}
	// Soft attachments are evaluated at the end-of-substep target.
	c.assemble(x, v, true, beta, beta*beta, dx0)
	// rhs = β(f + K·dx0) [+ M(v − v₋₁)/3 for BDF2]   (Eqs. 8–10)
	c.pool.run(n, chunkSize, k.kRhs)
	iters, res, ok := c.pcg()
	if !ok {
		return iters, res, &errRetry{fmt.Sprintf("CG did not converge (residual %.3g after %d iterations)", res, iters)}
	}
	// Incompatible contacts: release them and solve again (see
	// releaseFast).
	for round := 0; round < 3 && ok && c.releaseFast(); round++ {
		var it int
		it, res, ok = c.pcg()
		iters += it
		if !ok {
			return iters, res, &errRetry{fmt.Sprintf("CG did not converge (residual %.3g after %d iterations)", res, iters)}
		}
	}
	k.part = c.pool.parts(nChunks(n, chunkSize))
	if len(k.clamped) != nChunks(n, chunkSize) {
		k.clamped = make([]int, nChunks(n, chunkSize))
	}
	c.pool.run(n, chunkSize, k.kAdvance)
	bad := maxParts(k.part)
	clamped := 0
	for _, nc := range k.clamped {
		clamped += nc
	}
	if !math.IsNaN(bad) && !math.IsInf(bad, 0) {
		c.limitStrain()
	}
	fail := ""
	switch {
	case math.IsNaN(bad) || math.IsInf(bad, 0):
		fail = "non-finite state"
	case bad > c.opts.MaxSpeed*c.opts.MaxSpeed:
		fast := 0
		for i := range v {
			if v[i].Len2() > v[fast].Len2() {
				fast = i
			}
		}
		fail = fmt.Sprintf("speed %.3g m/s of vertex %d exceeds MaxSpeed", math.Sqrt(bad), fast)
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
	if c.opts.StrainLimit > 0 {
		copy(w.xl, x)
		copy(w.vl, v)
	}
	ctx.End = true
	for _, hk := range c.Hooks {
		if err := hk.End(ctx); err != nil {
			copy(x, w.x0)
			copy(v, w.v0)
			return iters, res, err
		}
	}
	// The hooks' corrections (collision push-outs) may have stretched
	// edges: limit again, then let the hooks take back what could not be
	// absorbed (see LimitHook).
	if c.opts.StrainLimit > 0 {
		c.limitStrain()
		for _, hk := range c.Hooks {
			if lh, ok := hk.(LimitHook); ok {
				if err := lh.AfterLimit(ctx); err != nil {
					copy(x, w.x0)
					copy(v, w.v0)
					return iters, res, err
				}
			}
		}
		c.restoredLast += c.restoreOver()
	}
	c.clampedLast += clamped
	copy(w.xprev, w.x0)
	copy(w.vprev, w.v0)
	copy(w.fprev, w.f)
	w.havePrev, w.prevH = true, h
	c.Time += h
	c.plasticity(h)
	return iters, res, nil
}

// restoreOver keeps the strain limit after the hooks' End and the second
// limiting pass: while an edge is longer than the limit allows and longer
// than after the first pass (w.xl), its ends go back to their state then
// (before the hooks' corrections). It returns the number of vertices
// restored. Each pass restores at least one vertex, and an edge whose ends
// are both restored is as long as after the first pass, so the loop ends.
func (c *Cloth) restoreOver() int {
	w := &c.work
	x, v := c.X, c.V
	lim := 1 + c.opts.StrainLimit
	n := 0
	for again := true; again; {
		again = false
		for k, e := range c.edges {
			a, b := e[0], e[1]
			l2 := x[a].Dist2(x[b])
			L := lim * c.edgeRest[k]
			if l2 <= L*L || l2 <= w.xl[a].Dist2(w.xl[b]) {
				continue
			}
			for _, i := range e {
				if x[i] != w.xl[i] || v[i] != w.vl[i] {
					x[i], v[i] = w.xl[i], w.vl[i]
					n++
					again = true
				}
			}
		}
	}
	return n
}

// MaxStretch returns the largest elongation strain of the cloth: max over
// triangles of |U|−1 and |V|−1 (WeftWarp) or over stretch springs of l/L−1
// (MassSpring).
func (c *Cloth) MaxStretch() float64 {
	k := &c.k
	if c.mat.Model == MassSpring {
		k.part = c.pool.parts(nChunks(len(c.sprs), chunkSize))
		c.pool.run(len(c.sprs), chunkSize, k.kStretchSpr)
	} else {
		k.part = c.pool.parts(nChunks(len(c.tris), chunkSize))
		c.pool.run(len(c.tris), chunkSize, k.kStretchTri)
	}
	return maxParts(k.part)
}

func (c *Cloth) kinetic() (ke, vmax float64) {
	for i, v := range c.V {
		s := v.Len2()
		ke += 0.5 * c.Mass[i] * s
		vmax = math.Max(vmax, s)
	}
	return ke, math.Sqrt(vmax)
}

// Serial reports whether Step runs all its loops on the calling goroutine:
// Options.Workers is 1, or the cloth is too small for any loop to be split
// (fewer than 4096 vertices, springs, triangles, hinges and matrix
// blocks). A caller stepping several such cloths concurrently may keep one
// goroutine per cloth busy without starving the cloths' own helpers.
func (c *Cloth) Serial() bool {
	if c.pool.Workers() <= 1 {
		return true
	}
	return max(len(c.X), len(c.sprs), len(c.tris), len(c.hinges), len(c.sys.val)) < serialBelow
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
	ctx := &c.ctx // reused: a local would escape through the Hook interface
	*ctx = StepContext{c: c, Time: c.Time, Dt: h, X: x, V: v}
	for _, hk := range c.Hooks {
		if err := hk.Begin(ctx); err != nil {
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
		if err := hk.End(ctx); err != nil {
			return err
		}
	}
	c.Time += h
	c.plasticity(h)
	return nil
}

// releaseFast drops the constraints (other than pins and attachments) of
// the vertices within two edges of any vertex whose velocity change
// exceeds Options.SpeedClamp or of an edge the solve would stretch beyond
// Options.MaxStretch, and reports whether it dropped any. Contact
// constraints prescribe each vertex's normal velocity; where a moving body
// prescribes different normal velocities to neighbouring vertices of a
// stiff cloth whose edges lie almost along the normals (a cuff around a
// hand's fingers), the exact solution of the constrained system slides the
// light vertices between them sideways at several m/s in one substep,
// whatever its length (MakeHuman shirt at 25k vertices, the first solve
// from rest: 4 m/s, edges stretched by 1,600 %). Released, those vertices
// follow the cloth, and the colliders' End still pushes them out.
func (c *Cloth) releaseFast() bool {
	lim := c.opts.SpeedClamp
	if !(lim > 0) {
		return false
	}
	w := &c.work
	if c.veStart == nil {
		c.buildVertexEdges()
	}
	released := false
	drop := func(j int32) {
		if w.kind[j] != uint8(Free) && !w.pinned[j] {
			w.kind[j], w.z[j] = uint8(Free), geom.Vec3{}
			released = true
		}
	}
	// other returns the other end of edge k at vertex v.
	other := func(k, v int32) int32 { e := c.edges[k]; return e[0] + e[1] - v }
	ring := func(i int32) {
		drop(i)
		for _, k := range c.ve[c.veStart[i]:c.veStart[i+1]] {
			j := other(k, i)
			drop(j)
			for _, k2 := range c.ve[c.veStart[j]:c.veStart[j+1]] {
				drop(other(k2, j))
			}
		}
	}
	lim2 := lim * lim
	for i, d := range w.dv {
		if d.Len2() > lim2 {
			ring(int32(i))
		}
	}
	// Likewise an edge the solve would stretch beyond MaxStretch.
	beta := c.k.beta
	pos := func(i int32) geom.Vec3 { return c.X[i].Add(w.dx0[i]).AddScaled(beta, w.dv[i]) }
	for k, e := range c.edges {
		if pos(e[0]).Dist(pos(e[1])) > (1+c.opts.MaxStretch)*c.edgeRest[k] {
			ring(e[0])
			ring(e[1])
		}
	}
	return released
}
