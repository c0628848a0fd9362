package collide

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// BodyOverlap keeps a body's vertices from coming through a garment
// between the garment's vertices (a knee through a skirt, a thigh through
// the coarse triangles over it), which a Collider, testing only the
// cloth's vertices against the body, does not see. It is Overlap with the
// body as the inner layer, and the hook that makes Through small.
//
// In End, after moving the body to the substep's end, it finds every body
// vertex p whose closest point q on the cloth lies within Params.MaxDepth,
// inside the cloth (not on its boundary: beyond a hem the skin is not
// under it), on a triangle whose unit normal n_g is within 60° of the
// skin's angle-weighted vertex normal n_b up to sign (|n_g·n_b| ≥ 0.5: the
// cloth lies over the skin, not across it), as Through does. With the
// cloth's normal oriented away from the body, n = n_g·sign(n_g·n_b)
// (whatever the garment's winding), the vertex is
//
//	t = (p − q)·n
//
// through the cloth, and when t > −Thickness (through, or less than the
// safety distance under it; a vertex with t > 0 only when q is inside the
// body, since otherwise another part of the body, such as the back of a
// hand beside a skirt, lies over the cloth: see Through) the closest
// triangle is pushed out along n by
// t + Thickness, each corner by its share (barycentric weights over their
// sum of squares, Bridson, Fedkiw and Anderson 2002 §7.1), and the
// corners' normal velocity towards the body vertex is removed. A corner
// hit by several body vertices moves by its largest push along their mean
// direction. The body is not moved.
//
// The pushes are capped and undone as Overlap's: each pass moves a vertex
// by at most 2·Thickness and a quarter of its shortest rest edge, the
// passes (overlapPasses per 1/60 s) detect again the body vertices still
// through, a push that would stretch an edge beyond 30 %, or further than
// it was, is undone in End, and with a cloth strain limit AfterLimit undoes
// the pushes that leave an edge beyond it after the cloth's second
// limiting pass. Undoing subtracts the hook's own displacement (and
// velocity change), so that the other hooks' corrections of the same
// vertices stand. Hard attachments (Stiffness 0) are not pushed.
//
// Body vertices known to be farther from the cloth than MaxDepth are not
// queried: each keeps a lower bound of its distance, lowered every substep
// by a bound of the body's motion and of the cloth's largest vertex
// displacement. Detection runs in parallel over fixed chunks, pushes are
// summed in body-vertex order, so results do not depend on Params.Workers.
type BodyOverlap struct {
	Body   *Body
	Params Params

	cl      *Body     // the cloth as a body, at its positions of each pass
	maxMove []float64 // per cloth vertex: the largest push per pass, m
	pinned  []bool    // per cloth vertex: hard attachments

	// Per body vertex.
	hint  []int32   // the closest cloth triangle last found, −1 for none
	lb    []float64 // a lower bound of its distance to the cloth, m, at drift lbAt
	lbAt  []float64
	found []ovHit

	queried []int32 // per chunk of body vertices: the queries of the first pass

	// Per cloth vertex.
	dx, vref []geom.Vec3
	w        []float64
	push, dv []geom.Vec3 // this substep's displacement and velocity change
	moved    []bool
	xLast    []geom.Vec3 // positions at the last detection

	// drift sums bounds of the motion of body and cloth relative to each
	// other since the first End, m; lastMoved is the body's Body.moved at
	// the last End.
	drift, lastMoved float64
	started          bool
	stats            BodyOverlapStats
}

// BodyOverlapStats reports what a BodyOverlap did in its last substep.
type BodyOverlapStats struct {
	// Queried is the number of body vertices whose closest cloth point was
	// searched in the first pass; Hits those found through the cloth or
	// within Thickness under it; Pushed the cloth vertices moved; Undone
	// the pushes undone because they would stretch an edge.
	Queried, Hits, Pushed, Undone int
	// MaxThrough is the largest depth t (m) of a body vertex through the
	// cloth found before the pushes (0 when none is through).
	MaxThrough float64
}

// NewBodyOverlap returns the hook of cloth c, whose mesh is m, against
// body's vertices; add it to c's Hooks before its Collider (which then has
// the last word on the cloth's vertices). p.MaxDepth, the largest depth
// through (and distance under) the cloth that is looked at, defaults to
// 0.02 m as in Layers.
func NewBodyOverlap(body *Body, c *cloth.Cloth, m *mesh.Mesh, p Params) (*BodyOverlap, error) {
	if len(m.Verts) != c.NumVerts() {
		return nil, fmt.Errorf("collide: mesh has %d vertices, cloth %d", len(m.Verts), c.NumVerts())
	}
	if p.MaxDepth == 0 || math.IsInf(p.MaxDepth, 1) {
		p.MaxDepth = 0.02
	}
	p.withDefaults() // validate early
	cl, err := NewBody(&mesh.Mesh{Verts: c.X, Tris: m.Tris})
	if err != nil {
		return nil, err
	}
	n, nb := c.NumVerts(), body.NumVerts()
	mm := make([]float64, n)
	for i := range mm {
		mm[i] = math.Inf(1)
	}
	rest := c.EdgeRest()
	for k, e := range c.Edges() {
		for _, v := range e {
			mm[v] = min(mm[v], maxMoveFactor*rest[k])
		}
	}
	o := &BodyOverlap{
		Body: body, Params: p, cl: cl, maxMove: mm, pinned: make([]bool, n),
		hint: make([]int32, nb), lb: make([]float64, nb), lbAt: make([]float64, nb), found: make([]ovHit, nb),
		dx: make([]geom.Vec3, n), vref: make([]geom.Vec3, n), w: make([]float64, n),
		push: make([]geom.Vec3, n), dv: make([]geom.Vec3, n), moved: make([]bool, n), xLast: make([]geom.Vec3, n),
	}
	return o, nil
}

// Stats returns the last substep's statistics.
func (o *BodyOverlap) Stats() BodyOverlapStats { return o.stats }

// Reset forgets the distance bounds and closest-triangle hints; call it
// after moving the cloth or the body discontinuously.
func (o *BodyOverlap) Reset() { o.started = false }

// Begin implements cloth.Hook (nothing to do).
func (o *BodyOverlap) Begin(*cloth.StepContext) error { return nil }

// End implements cloth.Hook.
func (o *BodyOverlap) End(ctx *cloth.StepContext) error {
	p := o.Params.withDefaults()
	th := p.Thickness
	b := o.Body
	b.Update(ctx.Time + ctx.Dt)
	o.stats = BodyOverlapStats{}
	o.start(ctx)
	clear(o.moved)
	clear(o.push)
	clear(o.dv)
	bx := b.Positions()
	passes := overlapPasses * max(1, int(math.Ceil(ctx.Dt/overlapStep-1e-9)))
	for pass := 0; pass < passes; pass++ {
		o.cl.SetState(ctx.X, nil)
		o.cl.Update(0)
		o.detect(bx, pass, p)
		hits := o.gather(pass, th)
		if pass == 0 {
			o.stats.Hits = hits
			copy(o.xLast, ctx.X)
		}
		if hits == 0 {
			break
		}
		o.apply(ctx)
	}
	o.undo(ctx, overlapStrain)
	return nil
}

// start brings the distance bounds up to date with the motion of body and
// cloth since the last End, and finds the hard attachments.
func (o *BodyOverlap) start(ctx *cloth.StepContext) {
	b := o.Body
	if !o.started {
		for i := range o.hint {
			o.hint[i], o.lb[i], o.lbAt[i] = -1, 0, 0
		}
		o.drift = 0
		copy(o.xLast, ctx.X)
		o.started = true
	}
	d := 0.0
	for i, x := range ctx.X {
		d = max(d, x.Dist2(o.xLast[i]))
	}
	o.drift += math.Sqrt(d) + (b.moved - o.lastMoved)
	o.lastMoved = b.moved
	clear(o.pinned)
	for _, a := range ctx.Cloth().Attachments() {
		if a.Stiffness == 0 && a.Vertex >= 0 && a.Vertex < len(o.pinned) {
			o.pinned[a.Vertex] = true
		}
	}
}

// detect finds the body vertices through the cloth or within Thickness
// under it (found); in passes after the first only those found before are
// tested again.
func (o *BodyOverlap) detect(bx []geom.Vec3, pass int, p Params) {
	th, r := p.Thickness, p.MaxDepth
	b := o.Body
	top := b.Topology()
	nc := (len(bx) + chunk - 1) / chunk
	if len(o.queried) != nc {
		o.queried = make([]int32, nc)
	}
	queried := o.queried
	parallel(len(bx), p.Workers, func(lo, hi int) {
		nq := int32(0)
		for v := lo; v < hi; v++ {
			h := &o.found[v]
			if pass > 0 && !h.ok {
				continue
			}
			h.ok = false
			x := bx[v]
			if pass == 0 {
				if o.lb[v]-(o.drift-o.lbAt[v]) > r {
					continue
				}
				o.lbAt[v] = o.drift
				if l := o.cl.bvh.LowerBound(x); l > r {
					o.lb[v] = l
					continue
				}
				nq++
			}
			con, ok := o.cl.nearHint(x, r, o.hint[v])
			if pass == 0 {
				// The bound is of the cloth at xLast, its positions
				// before the pushes.
				o.lb[v] = r
				if ok {
					o.lb[v] = con.Dist
				}
			}
			if !ok {
				continue
			}
			o.hint[v] = con.Tri
			if con.Boundary || con.Tri < 0 {
				continue
			}
			ng := o.cl.faceNormal(con.Tri)
			side := coverSide(top, bx, b.tris, int32(v), ng)
			if side == 0 {
				continue
			}
			if side < 0 {
				ng = ng.Neg()
			}
			t := x.Sub(con.Point).Dot(ng)
			if t <= -th*(1-1e-9) || t > r {
				continue
			}
			if t > 0 && !insideNear(b, con.Point, int32(v), r) {
				// Not through: another part of the body (a hand) lies
				// over the cloth here (see Through).
				continue
			}
			*h = ovHit{ok: true, tri: con.Tri, bary: con.Bary, n: ng, push: t + th, vin: b.vel[v]}
		}
		queried[lo/chunk] = nq
	})
	if pass == 0 {
		for _, n := range queried {
			o.stats.Queried += int(n)
		}
	}
}

// gather sums the pushes of the hits on the cloth's vertices (dx, w,
// vref) in body-vertex order and returns the number of hits.
func (o *BodyOverlap) gather(pass int, th float64) int {
	clear(o.dx)
	clear(o.w)
	tris := o.cl.tris
	hits := 0
	for i := range o.found {
		h := &o.found[i]
		if !h.ok {
			continue
		}
		hits++
		if pass == 0 {
			o.stats.MaxThrough = max(o.stats.MaxThrough, h.push-th)
		}
		s2 := h.bary[0]*h.bary[0] + h.bary[1]*h.bary[1] + h.bary[2]*h.bary[2]
		for k, v := range tris[h.tri] {
			bk := h.bary[k]
			if bk <= 0 || o.pinned[v] {
				continue
			}
			s := min(bk*h.push/s2, o.maxMove[v], maxProjFactor*th)
			o.dx[v] = o.dx[v].AddScaled(s, h.n)
			if s > o.w[v] {
				o.w[v], o.vref[v] = s, h.vin
			}
		}
	}
	return hits
}

// apply moves each cloth vertex with pushes by its largest push along
// their mean direction and stops it moving towards the body there.
func (o *BodyOverlap) apply(ctx *cloth.StepContext) {
	for v := range o.dx {
		if o.w[v] == 0 {
			continue
		}
		l := o.dx[v].Len()
		if !(l > 0) {
			continue
		}
		n := o.dx[v].Scale(1 / l)
		if !o.moved[v] {
			o.moved[v] = true
			o.stats.Pushed++
		}
		d := n.Scale(o.w[v])
		ctx.X[v] = ctx.X[v].Add(d)
		o.push[v] = o.push[v].Add(d)
		if vn := ctx.V[v].Sub(o.vref[v]).Dot(n); vn < 0 {
			dv := n.Scale(-vn)
			ctx.V[v] = ctx.V[v].Add(dv)
			o.dv[v] = o.dv[v].Add(dv)
		}
	}
}

var _ cloth.LimitHook = (*BodyOverlap)(nil)

// AfterLimit implements cloth.LimitHook: a push that still leaves an edge
// beyond the cloth's strain limit after its second limiting pass is undone
// (see Collider.AfterLimit).
func (o *BodyOverlap) AfterLimit(ctx *cloth.StepContext) error {
	if sl := ctx.Cloth().Options().StrainLimit; sl > 0 {
		o.undo(ctx, sl)
	}
	return nil
}

// undo takes back, until nothing changes, the push of every pushed cloth
// vertex with an edge stretched beyond strain (and beyond its length
// without the pushes).
func (o *BodyOverlap) undo(ctx *cloth.StepContext, strain float64) {
	if o.stats.Pushed == 0 {
		return
	}
	rest := ctx.Cloth().EdgeRest()
	for again := true; again; {
		again = false
		for k, e := range ctx.Cloth().Edges() {
			a, c := e[0], e[1]
			if !o.moved[a] && !o.moved[c] {
				continue
			}
			l0 := ctx.X[a].Sub(o.push[a]).Dist(ctx.X[c].Sub(o.push[c]))
			if ctx.X[a].Dist(ctx.X[c]) <= max((1+strain)*rest[k], l0) {
				continue
			}
			for _, v := range e {
				if o.moved[v] {
					o.moved[v] = false
					ctx.X[v] = ctx.X[v].Sub(o.push[v])
					ctx.V[v] = ctx.V[v].Sub(o.dv[v])
					o.push[v], o.dv[v] = geom.Vec3{}, geom.Vec3{}
					o.stats.Undone++
					again = true
				}
			}
		}
	}
}

// coverSide returns the side of the skin that the cloth triangle with unit
// normal ng covers at body vertex v (mesh of positions x, triangles tris,
// topology top): +1 when c = ng·n_b ≥ coverCos, −1 when c ≤ −coverCos, 0
// otherwise (the cloth lies across the skin), n_b being v's angle-weighted
// normal (vertexNormal).
//
// n_b is Σθ_k·n_k/|Σθ_k·n_k| over v's triangles k, with corner angles
// θ_k ≥ 0 and unit normals n_k, and |Σθ_k·n_k| ≤ Σθ_k; so when every
// n_k·ng ≥ coverCos + coverMargin, c ≥ coverCos + coverMargin as well
// (and symmetrically below −coverCos), and the angles (an arctangent per
// triangle) are not needed: the test n_k·ng ≥ a is g > 0 and g² ≥ a²·|m_k|²
// with g = m_k·ng for the unnormalised m_k = e1×e2 of the corner. The
// margin, far above the rounding of c (about 1e-15), keeps the answer
// the one vertexNormal's c gives, to which the mixed cases fall back.
func coverSide(top *mesh.Topology, x []geom.Vec3, tris [][3]int32, v int32, ng geom.Vec3) int {
	const a = coverCos + coverMargin
	pos, neg, any := true, true, false
	for _, t := range top.VertTriangles(v) {
		tr := tris[t]
		k := 0
		for tr[k] != v {
			k++
		}
		p0 := x[tr[k]]
		m := x[tr[(k+1)%3]].Sub(p0).Cross(x[tr[(k+2)%3]].Sub(p0))
		l2 := m.Dot(m)
		if l2 == 0 {
			continue // no weight in vertexNormal
		}
		any = true
		g := m.Dot(ng)
		far := g*g >= a*a*l2
		pos = pos && g > 0 && far
		neg = neg && g < 0 && far
		if !pos && !neg {
			break
		}
	}
	switch {
	case any && pos:
		return 1
	case any && neg:
		return -1
	}
	c := ng.Dot(vertexNormal(top, x, tris, v))
	switch {
	case math.Abs(c) < coverCos:
		return 0
	case c < 0:
		return -1
	}
	return 1
}

// coverMargin is the margin of coverSide's test without angles.
const coverMargin = 1e-6

// vertexNormal returns vertex v's angle-weighted unit normal (as
// mesh.VertexNormals) on the mesh of positions x, triangles tris and
// topology top; the zero vector when it has none.
func vertexNormal(top *mesh.Topology, x []geom.Vec3, tris [][3]int32, v int32) geom.Vec3 {
	var n geom.Vec3
	for _, t := range top.VertTriangles(v) {
		tr := tris[t]
		k := 0
		for tr[k] != v {
			k++
		}
		p0, p1, p2 := x[tr[k]], x[tr[(k+1)%3]], x[tr[(k+2)%3]]
		e1, e2 := p1.Sub(p0), p2.Sub(p0)
		c := e1.Cross(e2)
		l := c.Len()
		if l == 0 {
			continue
		}
		n = n.AddScaled(math.Atan2(l, e1.Dot(e2))/l, c)
	}
	if l := n.Len(); l > 0 {
		return n.Scale(1 / l)
	}
	return geom.Vec3{}
}
