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
	dv    geom.Vec3 // prescribed velocity change
	fric  geom.Vec3 // friction force added this substep, N
	depth float64   // penetration depth found at End before projection, m
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
// Begin moves the body to the substep's start and, for every vertex that
// could come closer than 1.5·Thickness during the substep while approaching
// (relative normal velocity plus h times the normal acceleration of the last
// evaluated force ≤ 0), adds a Baraff–Witkin Plane constraint whose
// prescribed normal velocity is the body's, plus the part that closes the gap
// down to 1.2·Thickness. The normal impulse per unit mass jn that this takes
// sets the friction (Bridson, Fedkiw and Anderson, "Robust treatment of
// collisions, contact and friction for cloth animation", SIGGRAPH 2002,
// §7.2): if the predicted relative tangential velocity |vt + h·ft/m| ≤ μs·jn
// the vertex sticks (Fixed constraint: it moves with the body's surface
// point); otherwise a friction force reduces it by μd·jn over the substep.
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
// Vertices deeper inside than the query radius at the start of a substep
// are not seen: resolve initial penetrations with ResolveInitial.
type Collider struct {
	Body   *Body
	Params Params

	st        []vstate
	x0, xEnd  []geom.Vec3
	fricDone  []geom.Vec3 // friction forces of the last accepted substep
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
		c.fricDone = make([]geom.Vec3, n)
		c.started = false
	}
	if !c.started {
		for i := range c.st {
			c.st[i] = vstate{hint: -1}
			c.fricDone[i] = geom.Vec3{}
		}
	}
}

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
			st.kind, st.fric, st.proj, st.depth, st.query, st.bnd = kNone, geom.Vec3{}, 0, 0, false, false
			m := ctx.Mass(i)
			if !(m > 0) {
				st.d0 = math.Inf(1)
				continue
			}
			f := ctx.Force(i).Sub(c.fricDone[i])
			if f == (geom.Vec3{}) {
				f = grav.Scale(m)
			}
			a := f.Scale(1 / m)
			r := band + h*(v.Len()+vbody) + h*h*a.Len()
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
			an := a.Dot(nrm)
			nat := vn + h*an // relative normal velocity without contact
			if nat > 0 || d+h*nat >= band {
				continue
			}
			vnNew := 0.0
			if d > target {
				vnNew = max(nat, -(d-target)/h)
			}
			jn := vnNew - nat // normal velocity change due to contact, ≥ 0
			vt := vrel.AddScaled(-vn, nrm)
			vtNat := vt.Add(a.AddScaled(-an, nrm).Scale(h))
			lt := vtNat.Len()
			if mus > 0 && lt <= mus*jn {
				st.kind = kStick
				st.dv = vb.AddScaled(vnNew, nrm).Sub(v)
				continue
			}
			st.kind, st.n = kSlide, nrm
			st.dv = nrm.Scale(vnNew - vn)
			if mud > 0 && lt > 0 {
				red := min(mud*jn, lt)
				st.fric = vtNat.Scale(-red / lt * m / h)
			}
		}
	})
	var s Stats
	for i := range c.st {
		st := &c.st[i]
		if st.query {
			s.Queried++
		}
		switch st.kind {
		case kStick:
			ctx.Constrain(i, cloth.Fixed, geom.Vec3{}, st.dv)
			s.Contacts++
			s.Stuck++
		case kSlide:
			ctx.Constrain(i, cloth.Plane, st.n, st.dv)
			s.Contacts++
			if st.fric != (geom.Vec3{}) {
				ctx.AddForce(i, st.fric)
			}
		}
	}
	c.stats = s
	return nil
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
	parallel(n, p.Workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			st := &c.st[i]
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
				if pass == 0 {
					st.depth = max(0, -con.Dist)
					n0 = con.Normal
				} else if con.Normal.Dot(n0) <= 0 {
					// A second push against the first: the surface is
					// folded (inverted triangles of a cloth layer); keep the
					// first push rather than ping-pong.
					break
				}
				x = con.Point.AddScaled(th, con.Normal)
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
		c.fricDone[i] = st.fric
		if st.proj > 0 {
			c.stats.Projected++
			c.stats.MaxDepth = max(c.stats.MaxDepth, st.depth)
		}
	}
	return nil
}
