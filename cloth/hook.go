package cloth

import (
	"github.com/pleat-dev/pleat/geom"
)

// Hook is the interface through which collision handling (package collide)
// and other outside influences act on the solver. Begin runs before each
// substep's linear solve and may constrain vertices and add forces; End runs
// after the substep's positions and velocities are updated and may correct
// them. When a substep is retried with a smaller step, Begin and End run
// again for the retry. Hooks are called once per substep, never per vertex.
type Hook interface {
	Begin(s *StepContext) error
	End(s *StepContext) error
}

// LimitHook is a Hook that also runs after the strain limit's second pass:
// with Options.StrainLimit set, a substep limits strain after advancing the
// positions, runs the hooks' End (whose corrections, such as pushing
// vertices out of a body, may stretch edges again), limits strain once more
// (spreading those corrections over the neighbours), and then calls
// AfterLimit on the hooks that implement it, in order, so that they can
// take back the corrections the limit could not absorb. Without a strain
// limit AfterLimit is not called.
type LimitHook interface {
	Hook
	AfterLimit(s *StepContext) error
}

// HookFuncs adapts two functions to a Hook; nil functions do nothing.
type HookFuncs struct {
	BeginFunc, EndFunc func(s *StepContext) error
}

// Begin calls h.BeginFunc.
func (h HookFuncs) Begin(s *StepContext) error {
	if h.BeginFunc == nil {
		return nil
	}
	return h.BeginFunc(s)
}

// End calls h.EndFunc.
func (h HookFuncs) End(s *StepContext) error {
	if h.EndFunc == nil {
		return nil
	}
	return h.EndFunc(s)
}

// ConstraintKind is a Baraff–Witkin constraint on a vertex's velocity change:
// the filter S_i projects onto the directions in which the vertex is free.
type ConstraintKind uint8

const (
	// Free: S_i = I.
	Free ConstraintKind = iota
	// Plane: the vertex moves only in the plane ⟂ Dir; S_i = I − n nᵀ.
	Plane
	// Line: the vertex moves only along Dir; S_i = d dᵀ.
	Line
	// Fixed: the vertex moves only as prescribed; S_i = 0.
	Fixed
)

// StepContext is what a Hook sees of one substep. Its methods must only be
// called during the Hook call that received it.
type StepContext struct {
	c *Cloth
	// Time is the time at the start of the substep and Dt its length, s.
	Time, Dt float64
	// X and V are the cloth's positions and velocities: in Begin the state at
	// the start of the substep, in End the updated state (writable, e.g. to
	// push vertices out of a body).
	X, V []geom.Vec3
	// End is true during End.
	End bool
}

// Cloth returns the cloth being stepped.
func (s *StepContext) Cloth() *Cloth { return s.c }

// Mass returns vertex i's mass, kg.
func (s *StepContext) Mass(i int) float64 { return s.c.Mass[i] }

// Constrain restricts vertex i's velocity change during this substep (valid
// in Begin). dir is the plane normal (Plane) or the line direction (Line);
// dv is the prescribed velocity change, of which only the constrained
// component counts (for Plane its component along the normal, for Fixed all
// of it). A second constraint on the same vertex combines with the first:
// two non-parallel planes make a line, anything else makes the vertex Fixed.
// Hard attachments (pins) take precedence.
func (s *StepContext) Constrain(i int, kind ConstraintKind, dir, dv geom.Vec3) {
	s.c.work.constrain(int32(i), kind, dir, dv, false)
}

// Force returns the total force (N) on vertex i as last evaluated by the
// solver (internal forces, gravity, drag and hook forces of the previous
// substep; zero before the first). Contact models use it to estimate the
// normal load for friction.
func (s *StepContext) Force(i int) geom.Vec3 { return s.c.work.fprev[i] }

// Reaction returns the impulse (N·s) that the constraints (Constrain and
// hard attachments) applied to vertex i during this substep's solve, valid
// in End: the residual (AΔv − b)_i of the linear system at a constrained
// vertex, i.e. the force the constraint exerted times the step (β for
// BDF2). Its component along a contact normal is positive when the
// constraint pushed the vertex out and negative when it held the vertex
// back (Baraff and Witkin 1998 §5.3 release a contact whose reaction
// pulls). It is zero for unconstrained vertices, outside End, and with
// ExplicitRK4.
func (s *StepContext) Reaction(i int) geom.Vec3 {
	w := &s.c.work
	if !s.End || w.kind[i] == uint8(Free) || s.c.opts.Integrator == ExplicitRK4 {
		return geom.Vec3{}
	}
	return rowMul(&s.c.sys, i, w.dv).Sub(w.rhs[i])
}

// AddForce adds an external force (N) on vertex i for this substep.
func (s *StepContext) AddForce(i int, f geom.Vec3) {
	w := &s.c.work
	w.markExt(int32(i))
	w.extF[i] = w.extF[i].Add(f)
}

// AddJacobian adds the derivatives ∂f/∂x (N/m) and ∂f/∂v (N·s/m) of the
// external force on vertex i with respect to that vertex's own position and
// velocity, making a penalty force implicit. Both must be symmetric negative
// semi-definite (e.g. −k·n nᵀ for a penalty spring along n).
func (s *StepContext) AddJacobian(i int, dfdx, dfdv geom.Mat3) {
	w := &s.c.work
	w.markExt(int32(i))
	w.extK[i] = w.extK[i].Add(dfdx)
	w.extD[i] = w.extD[i].Add(dfdv)
}

// constraint state for the solve.
func (w *work) constrain(i int32, kind ConstraintKind, dir, dv geom.Vec3, pin bool) {
	if kind == Free {
		return
	}
	if kind != Fixed {
		l := dir.Len()
		if !(l > 0) {
			panic("cloth: constraint direction must be non-zero")
		}
		dir = dir.Scale(1 / l)
	}
	old := ConstraintKind(w.kind[i])
	if old == Free {
		w.conList = append(w.conList, i)
	}
	if w.pinned[i] && !pin {
		return
	}
	if pin {
		w.pinned[i] = true
		w.kind[i], w.z[i] = uint8(Fixed), dv
		return
	}
	// Component of dv in the constrained directions: (I − S) dv.
	part := func(k ConstraintKind, d geom.Vec3) geom.Vec3 {
		switch k {
		case Plane:
			return d.Scale(d.Dot(dv))
		case Line:
			return dv.Sub(d.Scale(d.Dot(dv)))
		}
		return dv
	}
	switch {
	case old == Free:
		w.kind[i], w.dir[i], w.z[i] = uint8(kind), dir, part(kind, dir)
	case old == Plane && kind == Plane:
		// Two planes (two contacts, e.g. the body and another layer of
		// cloth): the prescribed Δv must satisfy Δv·n1 = a1 and
		// Δv·n2 = a2 within span(n1, n2), i.e. Δv = α n1 + β n2 with
		// |Δv| up to |a1 − c·a2|/sin²θ. Nearly parallel planes (within
		// about 6°) keep the one that prescribes the larger normal change,
		// and so do planes more than 120° apart (c < −1/2): the vertex is
		// pinched between two surfaces facing each other, whose demands
		// conflict, and their Line solution ran off along the line of the
		// planes at metres per second whatever the step (the MakeHuman
		// shirt between the jeans and the body, subdivided to 25k
		// vertices, diverged in the settle phase).
		n1, a1 := w.dir[i], w.z[i].Dot(w.dir[i])
		a2 := dir.Dot(dv)
		c := n1.Dot(dir)
		ln := n1.Cross(dir)
		if ln.Len() < 0.1 || c < -0.5 {
			if a2 > a1*c {
				w.dir[i], w.z[i] = dir, dir.Scale(a2)
			}
			return
		}
		det := 1 - c*c
		al, be := (a1-c*a2)/det, (a2-c*a1)/det
		w.kind[i], w.dir[i] = uint8(Line), ln.Unit()
		w.z[i] = n1.Scale(al).AddScaled(be, dir)
	default:
		// The old constraint keeps its prescribed components; the new one
		// adds those in the directions the old one left free: z += S_old·p.
		w.z[i] = w.z[i].Add(w.filter1(i, part(kind, dir)))
		w.kind[i] = uint8(Fixed)
	}
}

// filter applies S to y at the constrained vertices.
func (w *work) filter(y []geom.Vec3) {
	for _, i := range w.conList {
		y[i] = w.filter1(i, y[i])
	}
}

func (w *work) filter1(i int32, y geom.Vec3) geom.Vec3 {
	switch ConstraintKind(w.kind[i]) {
	case Plane:
		n := w.dir[i]
		return y.Sub(n.Scale(n.Dot(y)))
	case Line:
		d := w.dir[i]
		return d.Scale(d.Dot(y))
	case Fixed:
		return geom.Vec3{}
	}
	return y
}

func (w *work) markExt(i int32) {
	if !w.extMark[i] {
		w.extMark[i] = true
		w.extList = append(w.extList, i)
	}
}

// resetSubstep clears constraints and external terms.
func (w *work) resetSubstep() {
	for _, i := range w.conList {
		w.kind[i], w.z[i], w.pinned[i] = 0, geom.Vec3{}, false
	}
	w.conList = w.conList[:0]
	for _, i := range w.extList {
		w.extMark[i] = false
		w.extF[i], w.extK[i], w.extD[i] = geom.Vec3{}, geom.Mat3{}, geom.Mat3{}
	}
	w.extList = w.extList[:0]
}
