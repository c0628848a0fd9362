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
	// Penalty, when positive, makes contacts soft: instead of a hard
	// constraint on the normal velocity, a contact gets the implicit
	// damping force f = c·(v̄n − vn)·n with c = Penalty·m/h (for a vertex
	// alone it reaches the fraction Penalty/(1+Penalty) of the velocity
	// change a hard contact would prescribe), which the cloth's own forces
	// and the strain limit can override. End still projects. Too soft a
	// contact lets a loaded cloth through: a 1 m sheet draped on a sphere
	// stays out with 10 or more (TestPenaltyContacts) and sinks 9 mm in
	// with 3.
	Penalty float64
	// SqueezeFolds moves a vertex caught between two facing parts of the
	// surface (a gap narrower than twice the safety distance, or pinched
	// between opposed contacts) toward the opening of the crease they form
	// as well (see Collider), so that fabric is pressed out of a closing
	// fold instead of held there until the two parts pass into each other.
	SqueezeFolds bool
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
	// maxMoveFactor·(shortest incident rest edge) caps a vertex's position
	// correction per substep (Begin and End).
	maxMoveFactor = 0.25
	// releaseStrain is the edge strain beyond which the contacts at both
	// ends of the edge are released (see Begin).
	releaseStrain = 0.3
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
	// crossed: released in Begin as one end of an edge through the body.
	crossed bool
	// endOK: End's last query (Collider.endCon) is of the vertex's final
	// position, so the next Begin may reuse it if nothing moved since.
	endOK bool
	// active: constrained in the last accepted substep and the constraint
	// pushed (its reaction along n was positive); aN is that push per unit
	// mass, m/s².
	active bool
	aN     float64
	// sq is the squeeze (Params.SqueezeFolds) End applies, m.
	sq geom.Vec3
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
	// Undone is the number of End projections undone because they would
	// have stretched an edge beyond 30 %.
	Undone int
	// Crossed is the number of contacts released because the vertex and
	// an edge neighbour touched opposed surfaces from behind each other's
	// contact planes, or their edge was stretched beyond 30 % (see Begin).
	Crossed int
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
// Hard attachments (cloth.Attachment with Stiffness 0) are not projected:
// their target decides where they are, and a vertex pushed away from its
// target would be pulled back at (distance)/(step) in the next substep,
// which grows without bound as the solver halves the step.
//
// Three safeguards keep body contacts from tearing the cloth where the
// body's surface is inconsistent (skinning artefacts: self-intersecting
// thighs, distorted skin at a wrist): contacts at both ends of an edge
// that passes through the body between opposed surfaces, or that is
// already stretched by more than 30 %, are released for the substep; a
// projection that would stretch an edge beyond 30 % is undone; and a
// vertex in a gap narrower than twice the safety distance is moved to its
// middle rather than into the facing surface. Stats counts the first two.
//
// With Params.SqueezeFolds, a vertex in such a gap (or pinched) is also
// moved toward the opening of the crease: with n₁ and n₂ the two
// surfaces' unit normals, both pointing into the gap, End moves it by
//
//	Thickness·(s − (s·n₁)n₁),  s = n₁ + n₂,
//
// capped like the other corrections. For walls meeting at an angle 2α,
// |s| = 2 sin α and s lies along the bisector, toward the opening: fabric
// in a crease that closes (an elbow or knee flexing) slides out ahead of
// the two surfaces, and the squeeze stops once the gap is wider than
// twice the target distance.
// With a cloth strain limit (cloth.Options.StrainLimit) the cloth limits
// strain again after End, spreading the pushes over the neighbours, and
// AfterLimit (cloth.LimitHook) then undoes the pushes that still leave an
// edge beyond the limit.
// Position corrections (Begin's and End's) are also capped per substep at
// a quarter of the vertex's shortest rest edge, so that fine meshes are
// not strained by a correction of the size of the safety distance.
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

	st         []vstate
	x0, xEnd   []geom.Vec3
	xPre, vPre []geom.Vec3 // state before End's projection
	endCon     []Contact   // End's last query of each vertex (see vstate.endOK)
	pinned     []bool      // hard attachments (not projected)
	maxMove    []float64   // largest position correction per substep, m
	lastMoved  float64
	started    bool
	stats      Stats

	// The substep's values that Begin and End share with their chunks
	// (beginChunk, endChunk), and those chunks as method values made once:
	// a closure per call would allocate every substep.
	sub            colliderSubstep
	beginFn, endFn func(lo, hi int)
}

// colliderSubstep holds what Begin or End computed for the substep.
type colliderSubstep struct {
	ctx                        *cloth.StepContext
	p                          Params
	moved, h, th, band, target float64
	vbody, mus, mud            float64
	grav                       geom.Vec3
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

func (c *Collider) init(cl *cloth.Cloth, n int) {
	if len(c.pinned) != n {
		c.pinned = make([]bool, n)
	}
	clear(c.pinned)
	if len(c.maxMove) != n {
		// A quarter of the shortest incident rest edge: a correction of a
		// vertex alone by more strains its edges by more than 25 % (the
		// subdivided MakeHuman jeans, 1.2 mm edges, were pushed by up to
		// 3.6 mm per substep and most of their substeps were retried).
		c.maxMove = make([]float64, n)
		for i := range c.maxMove {
			c.maxMove[i] = math.Inf(1)
		}
		rest := cl.EdgeRest()
		for k, e := range cl.Edges() {
			for _, v := range e {
				c.maxMove[v] = min(c.maxMove[v], maxMoveFactor*rest[k])
			}
		}
	}
	for _, a := range cl.Attachments() {
		if a.Stiffness == 0 && a.Vertex >= 0 && a.Vertex < n {
			c.pinned[a.Vertex] = true
		}
	}
	if len(c.st) != n {
		c.st = make([]vstate, n)
		c.x0 = make([]geom.Vec3, n)
		c.xEnd = make([]geom.Vec3, n)
		c.xPre = make([]geom.Vec3, n)
		c.vPre = make([]geom.Vec3, n)
		c.endCon = make([]Contact, n)
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
	c.init(ctx.Cloth(), n)
	b := c.Body
	b.Update(ctx.Time)
	moved := b.moved - c.lastMoved
	if !c.started {
		moved = math.Inf(1)
		copy(c.xEnd, ctx.X)
	}
	c.lastMoved, c.started = b.moved, true
	copy(c.x0, ctx.X)
	th := p.Thickness
	c.sub = colliderSubstep{ctx: ctx, p: p, moved: moved, h: ctx.Dt, th: th, band: bandFactor * th, target: targetFactor * th,
		vbody: b.MaxSpeed(), mus: p.StaticFriction, mud: p.DynamicFriction, grav: ctx.Cloth().Options().Gravity}
	if c.beginFn == nil {
		c.beginFn = c.beginChunk
	}
	parallel(n, p.Workers, c.beginFn)
	h := c.sub.h
	// Contacts that cannot both hold: two vertices of an edge touching
	// opposed surfaces (normals more than 120° apart), each behind the
	// other's contact plane. The edge then passes through a part of the body thinner than itself, which
	// no real body has: the two surfaces are the opposite sides of a
	// self-intersection of the skinned body (linear blend skinning makes the
	// thighs overlap at the crotch) or the cloth has been pushed through a
	// feature. Constraining both would drive the two vertices apart with
	// the two surfaces and tear the edge (the MakeHuman jeans' crotch
	// stretched by >100 % within a substep, for any step size); both are
	// released for this substep and left to the cloth's own forces, and End
	// does not project them.
	//
	// Likewise the contacts at both ends of an edge already stretched by
	// more than releaseStrain: the body is tearing the cloth apart there
	// (a body feature caught between two vertices, a cuff hooked on a
	// hand whose skin the skinning distorts); holding them would only
	// tear it further.
	var crossed int
	release := func(st *vstate) {
		if !st.crossed && st.kind != kNone {
			st.crossed = true
			crossed++
		}
	}
	rest := ctx.Cloth().EdgeRest()
	for k, e := range ctx.Cloth().Edges() {
		a, b := &c.st[e[0]], &c.st[e[1]]
		if a.kind == kNone && b.kind == kNone {
			continue
		}
		dx := ctx.X[e[1]].Sub(ctx.X[e[0]])
		if dx.Len() > (1+releaseStrain)*rest[k] {
			release(a)
			release(b)
			continue
		}
		if a.kind == kNone || b.kind == kNone {
			continue
		}
		if dx.Dot(a.n) >= 0 || dx.Dot(b.n) <= 0 {
			continue // not behind each other's planes: a fold, not a crossing
		}
		if a.n.Dot(b.n) < -0.5 { // opposed: more than 120° apart
			release(a)
			release(b)
		}
	}
	var s Stats
	s.Crossed = crossed
	for i := range c.st {
		st := &c.st[i]
		if st.crossed {
			st.kind, st.fc, st.corr, st.active = kNone, 0, 0, false
		}
		if st.query {
			s.Queried++
		}
		if st.kind == kNone {
			continue
		}
		if p.Penalty > 0 {
			cp := p.Penalty * ctx.Mass(i) / h
			ctx.AddForce(i, st.dv.Scale(cp))
			ctx.AddJacobian(i, geom.Mat3{}, geom.Outer(st.n, st.n).Scale(-cp))
		} else {
			ctx.Constrain(i, cloth.Plane, st.n, st.dv)
		}
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

// beginChunk is Begin's work on vertices [lo, hi).
func (c *Collider) beginChunk(lo, hi int) {
	sub := &c.sub
	ctx, p, b := sub.ctx, &sub.p, c.Body
	moved, h, th, band, target := sub.moved, sub.h, sub.th, sub.band, sub.target
	vbody, mus, mud, grav := sub.vbody, sub.mus, sub.mud, sub.grav
	for i := lo; i < hi; i++ {
		st := &c.st[i]
		x, v := ctx.X[i], ctx.V[i]
		// Distance bound: subtract the body's motion since the last
		// End and any change made to X between steps.
		st.free -= moved
		if x != c.xEnd[i] {
			st.free -= x.Dist(c.xEnd[i])
		}
		st.kind, st.fc, st.corr, st.proj, st.depth, st.query, st.bnd, st.crossed = kNone, 0, 0, 0, 0, false, false, false
		st.sq = geom.Vec3{}
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
		var con Contact
		var ok bool
		if st.endOK && moved == 0 && x == c.xEnd[i] {
			// End found the closest point of this very position on
			// the body as it still is: the query would return it.
			con = c.endCon[i]
			ok = math.Abs(con.Dist) <= R
		} else {
			// The BVH's top boxes (8 box tests, a tenth of a search)
			// often prove that nothing is within R, and by how much:
			// a shirt vertex on the chest is far from the trousers it
			// collides with, whose fast ankles make the distance bound
			// run out every substep. 270 of the 331 searches per
			// substep of the coarse suit's layer collider found nothing
			// before this test.
			if lb := b.bvh.LowerBound(x); lb > R {
				st.endOK = false
				st.free, st.d0 = lb, lb
				continue
			}
			con, ok = b.queryHint(x, R, st.hint)
		}
		st.query = true
		st.endOK = false
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
		vmin := min(-(d-target)/h, maxCorrection, c.maxMove[i]/h)
		// A contact whose normal flipped since the last substep is
		// pinched between two facing parts of the surface (a fold or a
		// self-intersection of the skinned body, e.g. armpit, crotch):
		// no position is clear of both, so hold it without correction
		// rather than push it back and forth.
		pinched := st.active && nrm.Dot(st.n) < 0
		if pinched {
			vmin = min(vmin, 0)
			if p.SqueezeFolds {
				st.sq = squeeze(nrm, st.n, th, c.maxMove[i])
			}
		} else if d < th {
			// A gap narrower than twice the target distance (thighs
			// at the crotch): aim at its middle instead of into the
			// facing surface (a vertex past the middle is held, not
			// pulled back). Checked only inside the safety distance:
			// from d ≥ th the correction is at most target − th
			// (0.6 mm) and every other surface is at least d away, so
			// it leaves the vertex at least th − 0.6 mm from a facing
			// one, whose own check takes over in the next substep.
			// Checking up to target doubled the checks (6 % of a
			// coarse frame) and changed nothing measurable (10
			// jittered runs each of the MakeHuman walk and kick, 4 of
			// three procedural clips).
			if s, n2, ok := b.gap(x, &con, target); ok {
				vmin = min(max(s, 0)/h, maxCorrection, c.maxMove[i]/h)
				if p.SqueezeFolds {
					st.sq = squeeze(nrm, n2, th, c.maxMove[i])
				}
			}
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
}

// undo restores, until nothing changes, the position and velocity before
// End's push of every pushed vertex with an edge stretched beyond strain
// (and beyond its length before the pushes): undoing one vertex may
// stretch another edge of it whose other end was pushed, so the sweep
// repeats (each pass undoes at least one push). Undone vertices count in
// Stats.Undone.
func (c *Collider) undo(ctx *cloth.StepContext, strain float64) {
	rest := ctx.Cloth().EdgeRest()
	edges := ctx.Cloth().Edges()
	for again := true; again; {
		again = false
		for k, e := range edges {
			a, b := &c.st[e[0]], &c.st[e[1]]
			if a.proj == 0 && b.proj == 0 {
				continue
			}
			l := ctx.X[e[0]].Dist(ctx.X[e[1]])
			if l <= (1+strain)*rest[k] || l <= c.xPre[e[0]].Dist(c.xPre[e[1]]) {
				// Within the limit, or no longer than before the push.
				continue
			}
			for _, v := range e {
				if c.st[v].proj > 0 {
					c.st[v].proj, c.st[v].endOK = 0, false
					ctx.X[v], ctx.V[v] = c.xPre[v], c.vPre[v]
					c.stats.Undone++
					again = true
				}
			}
		}
	}
}

var _ cloth.LimitHook = (*Collider)(nil)

// AfterLimit implements cloth.LimitHook: after the cloth's strain limit has
// spread End's pushes over the neighbours, a push that still leaves an
// edge beyond the limit (cloth.Options.StrainLimit) is undone, so that the
// limit holds. Undoing only these, rather than (as End did before) every
// push that stretched an edge past the limit, lowered the vertex-frames
// more than 2 mm inside the body on 11 of 14 scenes of sim.Run (the
// MakeHuman suits walking and kicking in four fabrics, at 25k vertices
// and unrefined, and the procedural default on four clips): 0.161 % to
// 0.090 % on male_casualsuit04 kicking, 0.164 % to 0.108 % on the
// procedural walk, 0.016 % to 0.015 % on the 25k suit; and the edge-frames
// above 10 % strain over the 14 went from 111 to 79 (all of them now on
// the jersey suit at 25k, in 3 frames).
func (c *Collider) AfterLimit(ctx *cloth.StepContext) error {
	sl := ctx.Cloth().Options().StrainLimit
	if !(sl > 0) {
		return nil
	}
	// xEnd keeps End's positions: Begin re-queries the vertices moved
	// since (by the limit or the undo) and lowers their distance bounds.
	c.undo(ctx, sl)
	return nil
}

// gap checks whether moving p along its contact normal to distance want
// from the surface of con would bring it closer than want to a facing part
// of the surface (normals opposed: the other side of a fold, the other
// thigh at the crotch, where linear blend skinning makes the body touch or
// interpenetrate itself). If so it returns the displacement along the
// normal (possibly negative) that puts p halfway between the two surfaces,
// the facing surface's normal, and true: pushing it the full way would
// push it into the facing part, and neighbouring vertices in contact with
// either side would be pushed through each other and tear the cloth
// apart.
func (b *Body) gap(p geom.Vec3, con *Contact, want float64) (float64, geom.Vec3, bool) {
	n := con.Normal
	full := want - con.Dist
	y := p.AddScaled(full, n)
	c2, ok := b.queryHint(y, want, con.Tri)
	if !ok || c2.Dist >= want || c2.Normal.Dot(n) >= 0 {
		return 0, geom.Vec3{}, false
	}
	// The facing surface lies at full + c2.Dist along n (approximately: its
	// normal is taken as −n); the first at −con.Dist.
	return min((full+c2.Dist-con.Dist)/2, full), c2.Normal, true
}

// squeeze returns the move toward the opening of a crease of a vertex
// between surfaces with unit normals n1 (its contact's) and n2, both
// pointing into the gap: step·(s − (s·n1)n1) with s = n1 + n2, at most
// maxMove long (see Collider).
func squeeze(n1, n2 geom.Vec3, step, maxMove float64) geom.Vec3 {
	s := n1.Add(n2)
	s = s.AddScaled(-s.Dot(n1), n1).Scale(step)
	if l := s.Len(); l > maxMove {
		s = s.Scale(maxMove / l)
	}
	return s
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
	c.sub = colliderSubstep{ctx: ctx, p: p, moved: moved, h: ctx.Dt, th: p.Thickness}
	if c.endFn == nil {
		c.endFn = c.endChunk
	}
	parallel(n, p.Workers, c.endFn)
	// A push-out that would stretch an edge beyond releaseStrain is undone
	// (the vertex stays where the solve put it, its contact is released in
	// the next Begin): the solver has checked the strain before End, and a
	// projection that tears the cloth leaves a state no later substep can
	// recover from. With a strain limit, the cloth limits strain again
	// after End, spreading the pushes over the neighbours, and AfterLimit
	// undoes the pushes whose strain that could not absorb.
	c.undo(ctx, releaseStrain)
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

// endChunk is End's work on vertices [lo, hi).
func (c *Collider) endChunk(lo, hi int) {
	sub := &c.sub
	ctx, p, b := sub.ctx, &sub.p, c.Body
	moved, h, th := sub.moved, sub.h, sub.th
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
		if st.sq != (geom.Vec3{}) && !c.pinned[i] {
			// A position correction, not a velocity (like Begin's);
			// hard attachments stay where their targets put them.
			x = x.Add(st.sq)
			ctx.X[i] = x
		}
		c.xPre[i], c.vPre[i] = x, ctx.V[i]
		st.endOK = false
		delta := x.Dist(c.x0[i]) + moved
		st.free -= delta
		// Signed distance changes by at most delta, except across the
		// sign jump at an open boundary, which is always checked.
		if (st.d0-delta >= th && !st.bnd) || st.d0 == math.Inf(1) || st.crossed || c.pinned[i] {
			continue
		}
		radius := max(math.Abs(st.d0), th) + delta
		var n0 geom.Vec3
		for pass := 0; pass < 3; pass++ {
			con, ok := b.queryHint(x, radius, st.hint)
			if !ok {
				st.endOK = false
				break
			}
			st.hint, st.free = con.Tri, math.Abs(con.Dist)
			c.endCon[i], st.endOK = con, true
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
			push, narrow := th-con.Dist, false
			if s, _, ok := b.gap(x, &con, th); ok {
				push, narrow = s, true
			}
			if push <= 0 {
				break
			}
			x = x.AddScaled(min(push, maxProjFactor*th, c.maxMove[i]), con.Normal)
			st.proj++
			st.endOK = false
			st.free = th
			vb := b.VelocityAt(&con)
			if vn := ctx.V[i].Sub(vb).Dot(con.Normal); vn < 0 {
				ctx.V[i] = ctx.V[i].AddScaled(-vn, con.Normal)
			}
			radius = 2 * th
			if narrow {
				break
			}
		}
		ctx.X[i] = x
	}
}
