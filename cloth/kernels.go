package cloth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// kernels holds the arguments and bodies of the per-step parallel loops.
// Bodies are method values bound once in bindKernels, so running a loop
// allocates nothing (a closure literal passed to pool.run would escape and
// allocate on every call).
type kernels struct {
	x, v, dx []geom.Vec3
	jac      bool
	cD, cK   float64
	off      int // first element of the colour class being assembled
	h, beta  float64
	bdf      bool
	part     []float64
	clamped  []int // per chunk: vertices whose speed kAdvance clamped

	kDx0, kRhs, kAdvance      func(lo, hi int)
	kClearF, kClearVal        func(lo, hi int)
	kTri, kHinge, kSpr, kVert func(lo, hi int)
	kStretchTri, kStretchSpr  func(lo, hi int)
}

func (c *Cloth) bindKernels() {
	k := &c.k
	k.kDx0, k.kRhs, k.kAdvance = c.kernDx0, c.kernRhs, c.kernAdvance
	k.kClearF, k.kClearVal = c.kernClearF, c.kernClearVal
	k.kTri, k.kHinge, k.kSpr, k.kVert = c.kernTri, c.kernHinge, c.kernSpr, c.kernVert
	k.kStretchTri, k.kStretchSpr = c.kernStretchTri, c.kernStretchSpr
	c.initSolver()
}

// kernDx0: dx0 = h·v (implicit Euler) or (x − x₋₁)/3 + β·v (BDF2).
func (c *Cloth) kernDx0(lo, hi int) {
	k := &c.k
	w := &c.work
	x, v, dx0 := k.x, k.v, w.dx0
	for i := lo; i < hi; i++ {
		if k.bdf {
			dx0[i] = x[i].Sub(w.xprev[i]).Scale(1.0/3).AddScaled(k.beta, v[i])
		} else {
			dx0[i] = v[i].Scale(k.h)
		}
	}
}

// kernRhs: rhs = β(f + K·dx0) [+ M(v − v₋₁)/3 for BDF2] (Eqs. 8–10).
func (c *Cloth) kernRhs(lo, hi int) {
	k := &c.k
	w := &c.work
	for i := lo; i < hi; i++ {
		r := w.f[i].Add(w.kdx[i]).Scale(k.beta)
		if k.bdf {
			r = r.AddScaled(c.Mass[i]/3, k.v[i].Sub(w.vprev[i]))
		}
		w.rhs[i] = r
	}
}

// kernAdvance: v += Δv, x += dx0 + βΔv; partial max |v|² (+Inf for a
// non-finite position).
func (c *Cloth) kernAdvance(lo, hi int) {
	k := &c.k
	w := &c.work
	x, v, dv, dx0 := k.x, k.v, w.dv, w.dx0
	m := 0.0
	vmax := c.opts.SpeedClamp
	nc := 0
	for i := lo; i < hi; i++ {
		d := dv[i]
		nv := v[i].Add(d)
		if vmax > 0 {
			if l := nv.Len(); l > vmax {
				// Scale the new velocity back to the clamp and move the
				// vertex consistently (x = x + dx0 + β(v_new − v)).
				nv = nv.Scale(vmax / l)
				d = nv.Sub(v[i])
				nc++
			}
		}
		x[i] = x[i].Add(dx0[i]).AddScaled(k.beta, d)
		v[i] = nv
		s := nv.Len2()
		if s > m || s != s {
			m = s
		}
		if !x[i].IsFinite() {
			m = math.Inf(1)
		}
	}
	k.part[lo/chunkSize] = m
	k.clamped[lo/chunkSize] = nc
}

func (c *Cloth) kernStretchSpr(lo, hi int) {
	x := c.X
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
	c.k.part[lo/chunkSize] = m
}

func (c *Cloth) kernStretchTri(lo, hi int) {
	x := c.X
	m := 0.0
	for i := lo; i < hi; i++ {
		e := &c.tris[i]
		xa, xb, xc := x[e.v[0]], x[e.v[1]], x[e.v[2]]
		U := xa.Scale(e.ru[0]).AddScaled(e.ru[1], xb).AddScaled(e.ru[2], xc)
		V := xa.Scale(e.rv[0]).AddScaled(e.rv[1], xb).AddScaled(e.rv[2], xc)
		s := math.Sqrt(math.Max(U.Len2(), V.Len2())) - 1
		if s > m || s != s {
			m = s
		}
	}
	c.k.part[lo/chunkSize] = m
}

func (c *Cloth) kernClearF(lo, hi int) {
	clear(c.work.f[lo:hi])
	if c.k.jac && c.k.dx != nil {
		clear(c.work.kdx[lo:hi])
	}
}

func (c *Cloth) kernClearVal(lo, hi int) { clear(c.sys.val[lo:hi]) }

func (c *Cloth) kernTri(lo, hi int) {
	k := &c.k
	for i := k.off + lo; i < k.off+hi; i++ {
		c.triForce(i, k.x, k.v, k.jac, k.cD, k.cK, k.dx)
	}
}

func (c *Cloth) kernHinge(lo, hi int) {
	k := &c.k
	for i := k.off + lo; i < k.off+hi; i++ {
		c.hingeForce(i, k.x, k.v, k.jac, k.cD, k.cK, k.dx)
	}
}

func (c *Cloth) kernSpr(lo, hi int) {
	k := &c.k
	for i := k.off + lo; i < k.off+hi; i++ {
		c.springForce(i, k.x, k.v, k.jac, k.cD, k.cK, k.dx)
	}
}

// kernVert adds the per-vertex terms: inertia, gravity, air drag.
func (c *Cloth) kernVert(lo, hi int) {
	k := &c.k
	f, v, jac, cD := c.work.f, k.v, k.jac, k.cD
	g := c.opts.Gravity
	drag, wind := c.opts.AirDrag, c.opts.Wind
	for i := lo; i < hi; i++ {
		m := c.Mass[i]
		fi := f[i].AddScaled(m, g)
		if drag > 0 {
			cd := drag * c.area[i]
			fi = fi.AddScaled(-cd, v[i].Sub(wind))
			if jac {
				m += cD * cd
			}
		}
		f[i] = fi
		if jac {
			d := &c.sys.val[c.sys.diag[i]]
			d[0][0] += m
			d[1][1] += m
			d[2][2] += m
		}
	}
}
