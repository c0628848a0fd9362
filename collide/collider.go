package collide

import (
	"math"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
)

// Params configures a Collider. The zero value gives the documented
// defaults.
type Params struct {
	// Thickness is the safety distance kept between cloth vertices and the
	// surface, m; default 0.003 (3 mm, garment on skin).
	Thickness float64
	// StaticFriction μs and DynamicFriction μd are the Coulomb friction
	// coefficients; defaults 0.6 and 0.4 (fabric on skin). μs below μd is
	// raised to μd. Frictionless turns friction off.
	StaticFriction, DynamicFriction float64
	Frictionless                    bool
	// MaxDepth is the largest penetration depth (m) treated as a collision;
	// vertices deeper inside are taken to belong to another part of the
	// surface (across a fold or a thin limb) and left alone. Default +Inf;
	// Layers uses 0.02.
	MaxDepth float64
	// Workers is the number of goroutines of the detection loops; default
	// runtime.GOMAXPROCS(0). Results do not depend on it.
	Workers int
}

func (p Params) withDefaults() Params {
	if p.Thickness == 0 {
		p.Thickness = 0.003
	}
	if p.StaticFriction == 0 && p.DynamicFriction == 0 {
		p.StaticFriction, p.DynamicFriction = 0.6, 0.4
	}
	if p.Frictionless {
		p.StaticFriction, p.DynamicFriction = 0, 0
	}
	p.StaticFriction = max(p.StaticFriction, p.DynamicFriction)
	if p.MaxDepth == 0 {
		p.MaxDepth = math.Inf(1)
	}
	if !(p.Thickness > 0) || p.DynamicFriction < 0 || !(p.MaxDepth > 0) {
		panic("collide: bad Params (Thickness and MaxDepth must be > 0, friction ≥ 0)")
	}
	return p
}

const (
	// bandFactor·Thickness is the contact band: a vertex predicted to come
	// closer than that during a substep is constrained.
	bandFactor = 1.5
	// targetFactor·Thickness is the distance a constrained vertex may close
	// to (inside the band, so that sliding over a curved surface does not
	// immediately leave the band or enter the safety distance).
	targetFactor = 1.2
	// farFactor·band is added to the query radius so that a vertex found
	// clear of the surface can skip queries for a few substeps.
	farFactor = 2.0
	// maxProjFactor·Thickness is the largest push of End per substep.
	maxProjFactor = 2.0
	// vReg (m/s) regularises Coulomb friction: below it the friction force
	// grows linearly with the sliding speed, reaching μ·N at vReg.
	vReg = 1e-3
	// maxGain caps the implicit friction gain k = h·c/m (the fraction
	// k/(1+k) of the tangential velocity removed per substep).
	maxGain = 1000.0
)

// contact kinds of a vertex in a substep.
const (
	kNone uint8 = iota
	kSlide
	kStick
)

// vstate is the per-vertex collision state.
type vstate struct {
	hint  int32   // closest triangle last found, -1 for none
	kind  uint8   // kNone, kSlide, kStick
	query bool    // searched in Begin
	bnd   bool    // closest feature at Begin on a boundary (sign may jump)
	proj  uint8   // projected in End (number of passes)
	free  float64 // lower bound of the unsigned distance to the surface, m
	d0    float64 // signed distance at Begin (or free when not found), m
	n     geom.Vec3
	dv    geom.Vec3 // prescribed velocity change (normal component)
	vb    geom.Vec3 // body velocity at the contact point, m/s
	corr  float64   // outward normal speed that only corrects the position, m/s
	fc    float64   // implicit friction coefficient c, N·s/m (0: none)
	depth float64   // penetration depth found at End before projection, m
	// active: constrained in the last accepted substep and the constraint
	// pushed (its reaction along n was positive); aN is that push per unit
	// mass, m/s².
	active bool
	aN     float64
}

// Stats reports what a Collider did in its last substep.
type Stats struct {
	// Contacts is the number of constrained vertices, Stuck those held by
	// static friction (a subset).
	Contacts, Stuck int
	// Queried is the number of vertices whose closest point was searched in
	// Begin (the others were known to be far).
	Queried int
	// Projected is the number of vertices pushed out in End, MaxDepth the
	// largest penetration (m, below the surface, not counting the safety
	// distance) found there before the push.
	Projected int
	MaxDepth  float64
}

// Collider is a cloth.Hook that keeps a cloth outside a Body with velocity-
// level contact constraints, position-level projection and Coulomb
// friction:
//
// Begin moves the body to the substep's start and finds, for every vertex,
// its relative normal velocity vn = (v − v_b)·n and the predicted one
// v̂n = vn + h·g·n (inertia and gravity only: the cloth's internal forces
// are stiff and resolved by the implicit solve, so an explicit estimate of
// their effect would grossly overshoot). A vertex whose signed distance d
// would come within the band 1.5·Thickness (d + h·min(v̂n, 0) < band) while
// approaching (v̂n ≤ 0), or that is already closer than 1.2·Thickness, gets
// a Baraff–Witkin Plane constraint whose prescribed velocity change
// Δv·n = v̄n − vn gives it the relative normal velocity
//
//	v̄n = max(v̂n, −(d − 1.2·Thickness)/h)     if d > 1.2·Thickness
//	v̄n = max(v̂n, 0) + min((1.2·Thickness − d)/h, 0.5 m/s)   otherwise,
//
// i.e. it does not come closer than 1.2·Thickness by the end of the
// substep, and a vertex too close is moved out; that last part (the
// position correction) is removed from its velocity again in End, so that
// correcting a position does not launch the vertex. The constraint only
// removes approach: a vertex predicted to separate is left free.
//
// Friction follows Coulomb's law with the normal impulse per unit mass
// jn = v̄n − v̂n (without the position correction) (Bridson, Fedkiw and
// Anderson, "Robust treatment of collisions, contact and friction for
// cloth animation", SIGGRAPH 2002, §7.2), but acts through the implicit
// solve as a tangential damping force f = −c·P_t(v − v_b), P_t = I − nnᵀ,
// with the matching Jacobian ∂f/∂v = −c·P_t: for a vertex alone it reduces
// the predicted relative tangential speed |v̂t| by min(μd·jn, |v̂t|) (with
// k = h·c/m, by the fraction k/(1+k) = μd·jn/|v̂t|), and it sticks
// (k = 100) when |v̂t| ≤ μs·jn. Being a force rather than a constraint,
// static friction cannot hold the cloth against arbitrarily large tension.
//
// End moves the body to the substep's end and projects every vertex closer
// than Thickness (or inside) out along the contact normal to distance
// Thickness, removing its inward relative normal velocity (Bridson et al.
// 2002 §6 style position fix), so that no vertex ends a substep inside.
//
// The broad phase is the body BVH with a per-vertex radius (band + distance
// the vertex and body can move in the substep), started from the last
// closest triangle; vertices known to be far (a lower bound of their distance,
// decreased by their own and the body's motion, exceeds the radius) are not
// queried. Detection runs in parallel over fixed chunks; constraints are
// applied in vertex order, so results are identical for any Workers.
//
// Vertices deeper inside than Params.MaxDepth are left alone: resolve
// initial penetrations with ResolveInitial.
type Collider struct {
	Body   *Body
	Params Params

	st        []vstate
	x0, xEnd  []geom.Vec3
	lastMoved float64
	started   bool
	stats     Stats
}

// NewCollider returns a collider of a cloth against body with parameters p.
// Add it to the cloth's Hooks.
func NewCollider(body *Body, p Params) *Collider {
	p.withDefaults() // validate early
	return &Collider{Body: body, Params: p}
}

// Stats returns the statistics of the last substep.
func (c *Collider) Stats() Stats { return c.stats }

// Reset forgets per-vertex history (closest-triangle hints and distance
// bounds); call it after moving the cloth or body discontinuously.
func (c *Collider) Reset() { c.started = false }

func (c *Collider) init(n int) {
	if len(c.st) != n {
		c.st = make([]vstate, n)
		c.x0 = make([]geom.Vec3, n)
		c.xEnd = make([]geom.Vec3, n)
		c.started = false
	}
	if !c.started {
		for i := range c.st {
			c.st[i] = vstate{hint: -1}
		}
	}
}

// maxCorrection is the largest outward speed (m/s) used to move a vertex
// that is too close back to the target distance within the solve.
const maxCorrection = 0.5

// Begin implements cloth.Hook.
func (c *Collider) Begin(ctx *cloth.StepContext) error {
	p := c.Params.withDefaults()
	n := len(ctx.X)
	c.init(n)
	b := c.Body
	b.Update(ctx.Time)
	moved := b.moved - c.lastMoved
	if !c.started {
		moved = math.Inf(1)
		copy(c.xEnd, ctx.X)
	}
	c.lastMoved, c.started = b.moved, true
	copy(c.x0, ctx.X)
	h := ctx.Dt
	grav := ctx.Cloth().Options().Gravity
	th := p.Thickness
	band, target := bandFactor*th, targetFactor*th
	vbody := b.MaxSpeed()
	mus, mud := p.StaticFriction, p.DynamicFriction
	parallel(n, p.Workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			st := &c.st[i]
			x, v := ctx.X[i], ctx.V[i]
			// Distance bound: subtract the body's motion since the last
			// End and any change made to X between steps.
			st.free -= moved
			if x != c.xEnd[i] {
				st.free -= x.Dist(c.xEnd[i])
			}
			st.kind, st.fc, st.corr, st.proj, st.depth, st.query, st.bnd = kNone, 0, 0, 0, 0, false, false
			m := ctx.Mass(i)
			if !(m > 0) {
				st.d0 = math.Inf(1)
				continue
			}
			r := band + h*(v.Len()+vbody) + h*h*grav.Len()
			if st.free >= r {
				st.d0 = st.free
				continue
			}
			R := r + farFactor*band
			st.query = true
			con, ok := b.queryHint(x, R, st.hint)
			if !ok {
				st.free, st.d0 = R, R
				continue
			}
			st.hint, st.free, st.d0, st.bnd = con.Tri, math.Abs(con.Dist), con.Dist, con.Boundary
			d := con.Dist
			if d < -p.MaxDepth || d >= r {
				continue
			}
			nrm := con.Normal
			vb := b.VelocityAt(&con)
			vrel := v.Sub(vb)
			vn := vrel.Dot(nrm)
			acc := grav // predicted acceleration (see the type's doc)
			gn := acc.Dot(nrm)
			pred := vn + h*gn // predicted relative normal velocity
			// Smallest relative normal velocity that ends the substep at
			// the target distance (positive: a correction out).
			vmin := min(-(d-target)/h, maxCorrection)
			// A contact whose normal flipped since the last substep is
			// pinched between two facing parts of the surface (a fold or a
			// self-intersection of the skinned body, e.g. armpit, crotch):
			// no position is clear of both, so hold it without correction
			// rather than push it back and forth.
			pinched := st.active && nrm.Dot(st.n) < 0
			if pinched {
				vmin = min(vmin, 0)
			}
			keep := st.active && d < band
			if !keep && (pred >= vmin || (d > target && d+h*pred >= band)) {
				st.active = false
				continue
			}
			corr := max(vmin, 0) // the part that only corrects the position
			st.kind, st.n, st.vb, st.corr = kSlide, nrm, vb, corr
			st.dv = nrm.Scale(vmin - vn)
			if mud == 0 && mus == 0 {
				continue
			}
			// Normal velocity change per substep due to the contact: from
			// the last reaction when the contact persists, else predicted.
			jn := max(min(vmin, 0)-pred, 0)
			if st.active {
				jn = max(jn, st.aN*h)
			}
			vt := vrel.AddScaled(-vn, nrm)
			vtp := vt.Add(acc.AddScaled(-gn, nrm).Scale(h))
			lt := vtp.Len()
			var k float64
			if lt <= mus*jn {
				// Friction can stop it: regularised static friction, at
				// most μs·N unless it already slides faster than vReg.
				st.kind, k = kStick, mus*jn/max(vt.Len(), vReg)
			} else {
				k = mud * jn / max(lt-mud*jn, vReg)
			}
			st.fc = min(k, maxGain) * m / h
		}
	})
	var s Stats
	for i := range c.st {
		st := &c.st[i]
		if st.query {
			s.Queried++
		}
		if st.kind == kNone {
			continue
		}
		ctx.Constrain(i, cloth.Plane, st.n, st.dv)
		s.Contacts++
		if st.kind == kStick {
			s.Stuck++
		}
		if st.fc > 0 {
			// f = −c·P_t(v − v_b), ∂f/∂v = −c·P_t.
			vt := ctx.V[i].Sub(st.vb)
			vt = vt.AddScaled(-vt.Dot(st.n), st.n)
			ctx.AddForce(i, vt.Scale(-st.fc))
			ctx.AddJacobian(i, geom.Mat3{}, tangentProjector(st.n).Scale(-st.fc))
		}
	}
	c.stats = s
	return nil
}

// tangentProjector returns I − n nᵀ for a unit n.
func tangentProjector(n geom.Vec3) geom.Mat3 {
	return geom.Identity3().Add(geom.Outer(n, n).Scale(-1))
}

// End implements cloth.Hook.
func (c *Collider) End(ctx *cloth.StepContext) error {
	p := c.Params.withDefaults()
	n := len(ctx.X)
	b := c.Body
	b.Update(ctx.Time + ctx.Dt)
	moved := b.moved - c.lastMoved
	c.lastMoved = b.moved
	th := p.Thickness
	h := ctx.Dt
	parallel(n, p.Workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			st := &c.st[i]
			st.active = false
			if st.kind != kNone {
				// Baraff–Witkin release: keep the contact while its
				// constraint pushes.
				ln := ctx.Reaction(i).Dot(st.n)
				st.active, st.aN = ln > 0, max(ln/ctx.Mass(i)-st.corr, 0)/h
			}
			if st.corr > 0 {
				// The position correction is not a velocity.
				if vn := ctx.V[i].Sub(st.vb).Dot(st.n); vn > 0 {
					ctx.V[i] = ctx.V[i].AddScaled(-min(vn, st.corr), st.n)
				}
			}
			x := ctx.X[i]
			delta := x.Dist(c.x0[i]) + moved
			st.free -= delta
			// Signed distance changes by at most delta, except across the
			// sign jump at an open boundary, which is always checked.
			if (st.d0-delta >= th && !st.bnd) || st.d0 == math.Inf(1) {
				continue
			}
			radius := max(math.Abs(st.d0), th) + delta
			var n0 geom.Vec3
			for pass := 0; pass < 3; pass++ {
				con, ok := b.queryHint(x, radius, st.hint)
				if !ok {
					break
				}
				st.hint, st.free = con.Tri, math.Abs(con.Dist)
				if con.Dist >= th*(1-1e-9) || con.Dist < -p.MaxDepth {
					break
				}
				if st.kind != kNone && con.Normal.Dot(st.n) < 0 {
					// Pinched (see Begin): the constraint holds it.
					break
				}
				if pass == 0 {
					st.depth = max(0, -con.Dist)
					n0 = con.Normal
				} else if con.Normal.Dot(n0) <= 0 {
					// A second push against the first: the surface is
					// folded (inverted triangles of a cloth layer); keep the
					// first push rather than ping-pong.
					break
				}
				// Push out to the safety distance, but by at most
				// maxProjFactor·Thickness per substep: a larger jump would
				// tear the cloth (strain appears after the solver's checks);
				// the rest is corrected by the next Begin, through the solve.
				x = x.AddScaled(min(th-con.Dist, maxProjFactor*th), con.Normal)
				st.proj++
				st.free = th
				vb := b.VelocityAt(&con)
				if vn := ctx.V[i].Sub(vb).Dot(con.Normal); vn < 0 {
					ctx.V[i] = ctx.V[i].AddScaled(-vn, con.Normal)
				}
				radius = 2 * th
			}
			ctx.X[i] = x
		}
	})
	copy(c.xEnd, ctx.X)
	for i := range c.st {
		st := &c.st[i]
		if st.proj > 0 {
			c.stats.Projected++
			c.stats.MaxDepth = max(c.stats.MaxDepth, st.depth)
		}
	}
	return nil
}
