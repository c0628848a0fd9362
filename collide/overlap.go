package collide

import (
	"fmt"
	"math"
	"slices"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Overlap is the reverse half of a layered collision (wang2010 §3.2: a
// vertex of the inner garment that has come outside the outer one), acting
// on the outer garment: in End it finds the inner garment's vertices that
// lie outside (or less than Thickness inside) the outer garment's own
// triangles and pushes those triangles outward, each corner by its share
// of the push (barycentric weights over their sum of squares, Bridson,
// Fedkiw and Anderson 2002 §7.1), and removes the triangle's normal
// velocity towards the inner vertex. The inner garment is not moved: it is
// usually held by the body underneath (pushing it inward would squeeze it
// into the body, which made the reverse Collider of Layers diverge on the
// MakeHuman suit), whereas the outer layer is free to move outward.
//
// It complements the outer-vertex-against-inner-triangle Collider of
// Layers, which misses inner vertices (a waistband's corners) that come
// through the outer layer between its vertices. Inner vertices whose
// closest outer feature is on a boundary (beyond a hem) are not outside,
// and those more than Params.MaxDepth outside are taken to be elsewhere.
// Each pass pushes a vertex by at most 2·Thickness and a quarter of its
// shortest rest edge (as Collider.End), and a push that would stretch an
// outer edge beyond 30 %, or further than the solve left it, is undone;
// with a cloth strain limit (cloth.Options.StrainLimit) the cloth then
// limits strain again, spreading the pushes over the neighbours, and
// AfterLimit undoes those that still leave an edge beyond the limit
// (undone at the limit in End instead, the MakeHuman jeans were outside
// the shirt in 0.107 % of vertex-frames over the walk at 25k vertices;
// 0.027 % this way, and 0.154 % instead of 0.260 % kicking, unrefined).
type Overlap struct {
	Inner  *cloth.Cloth
	Params Params
	snap   *Snapshot // read instead of Inner when set
	outer  *Body
	found  []ovHit
	dx     []geom.Vec3
	w      []float64
	vref   []geom.Vec3
	// maxMove caps a vertex's push per substep as in Collider (a quarter
	// of its shortest rest edge).
	maxMove []float64
	xPre    []geom.Vec3
	vPre    []geom.Vec3
	moved   []bool
	stats   OverlapStats

	// The pass's values that End shares with detectChunk, and that chunk
	// as a method value made once (a closure per call would allocate
	// every substep).
	sub      overlapPass
	detectFn func(lo, hi int)
}

// overlapPass holds what End's detection reads in a pass.
type overlapPass struct {
	inX, inV         []geom.Vec3
	dt, th, maxDepth float64
	pass             int
}

// OverlapStats reports what an Overlap did in its last substep.
type OverlapStats struct {
	// Hits is the number of inner vertices found outside (or within
	// Thickness of) the outer layer; Pushed the outer vertices moved;
	// Undone the pushes undone because they would stretch an edge.
	Hits, Pushed, Undone int
	// MaxOut is the largest distance (m) of an inner vertex outside the
	// outer layer found before the pushes.
	MaxOut float64
}

type ovHit struct {
	ok   bool
	tri  int32
	bary [3]float64
	n    geom.Vec3
	push float64
	vin  geom.Vec3
}

// NewOverlap returns the hook for outer, whose mesh is m, against inner's
// vertices; add it to outer's Hooks before its body collider.
func NewOverlap(inner, outer *cloth.Cloth, m *mesh.Mesh, p Params) (*Overlap, error) {
	if len(m.Verts) != outer.NumVerts() {
		return nil, fmt.Errorf("collide: mesh has %d vertices, cloth %d", len(m.Verts), outer.NumVerts())
	}
	b, err := NewBody(&mesh.Mesh{Verts: outer.X, Tris: m.Tris})
	if err != nil {
		return nil, err
	}
	n, ni := outer.NumVerts(), inner.NumVerts()
	mm := make([]float64, n)
	for i := range mm {
		mm[i] = math.Inf(1)
	}
	rest := outer.EdgeRest()
	for k, e := range outer.Edges() {
		for _, v := range e {
			mm[v] = min(mm[v], maxMoveFactor*rest[k])
		}
	}
	return &Overlap{
		maxMove: mm,
		Inner:   inner, Params: p, outer: b,
		found: make([]ovHit, ni),
		dx:    make([]geom.Vec3, n), w: make([]float64, n), vref: make([]geom.Vec3, n),
		xPre: make([]geom.Vec3, n), vPre: make([]geom.Vec3, n), moved: make([]bool, n),
	}, nil
}

// FollowSnapshot makes o read the inner cloth's state from s (which must be
// taken from o.Inner) instead of the cloth itself (see Snapshot); nil goes
// back to the cloth.
func (o *Overlap) FollowSnapshot(s *Snapshot) { o.snap = s }

// Stats returns the last substep's statistics.
func (o *Overlap) Stats() OverlapStats { return o.stats }

// Begin implements cloth.Hook (nothing to do).
func (o *Overlap) Begin(*cloth.StepContext) error { return nil }

// End implements cloth.Hook.
func (o *Overlap) End(ctx *cloth.StepContext) error {
	p := o.Params.withDefaults()
	th := p.Thickness
	o.stats = OverlapStats{}
	var inX, inV []geom.Vec3
	var inT float64
	if s := o.snap; s != nil {
		// The inner cloth itself may be stepping concurrently.
		inX, inV, inT = s.X, s.V, s.Time
	} else {
		inX, inV, inT = o.Inner.X, o.Inner.V, o.Inner.Time
	}
	dt := ctx.Time + ctx.Dt - inT
	tris := o.outer.Tris()
	clear(o.moved)
	// A push moves whole triangles, which tilts their neighbours: with
	// overlapPasses > 1, detect and push again the vertices still out.
	// The pushes per pass are capped, so a longer substep gets more
	// passes: the push the layer can make per second does not depend on
	// the substep.
	passes := overlapPasses * max(1, int(math.Ceil(ctx.Dt/overlapStep-1e-9)))
	for pass := 0; pass < passes; pass++ {
		o.outer.SetState(ctx.X, ctx.V)
		o.outer.Update(0)
		o.sub = overlapPass{inX: inX, inV: inV, dt: dt, th: th, maxDepth: p.MaxDepth, pass: pass}
		if o.detectFn == nil {
			o.detectFn = o.detectChunk
		}
		parallel(len(inX), p.Workers, o.detectFn)
		clear(o.dx)
		clear(o.w)
		hits := 0
		for i := range o.found {
			h := &o.found[i]
			if !h.ok {
				continue
			}
			hits++
			if pass == 0 {
				o.stats.MaxOut = max(o.stats.MaxOut, h.push-th)
			}
			tr := tris[h.tri]
			s2 := h.bary[0]*h.bary[0] + h.bary[1]*h.bary[1] + h.bary[2]*h.bary[2]
			for k, v := range tr {
				b := h.bary[k]
				if b <= 0 {
					continue
				}
				s := min(b*h.push/s2, o.maxMove[v], maxProjFactor*th)
				// Several hits on one vertex: the largest push along
				// their mean direction.
				o.dx[v] = o.dx[v].AddScaled(s, h.n)
				if s > o.w[v] {
					o.w[v], o.vref[v] = s, h.vin
				}
			}
		}
		if pass == 0 {
			o.stats.Hits = hits
		}
		if hits == 0 {
			break
		}
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
				o.xPre[v], o.vPre[v] = ctx.X[v], ctx.V[v]
				o.moved[v] = true
				o.stats.Pushed++
			}
			ctx.X[v] = ctx.X[v].AddScaled(o.w[v], n)
			// The push is a position correction; stop the vertex moving
			// inward along n relative to the inner vertex.
			if vn := ctx.V[v].Sub(o.vref[v]).Dot(n); vn < 0 {
				ctx.V[v] = ctx.V[v].AddScaled(-vn, n)
			}
		}
	}
	// With a cloth strain limit, the cloth limits strain again after End
	// and AfterLimit undoes what that could not absorb; End itself only
	// keeps the pushes from tearing the cloth.
	o.undo(ctx, overlapStrain)
	return nil
}

// detectChunk is End's detection of the inner vertices [lo, hi) through
// the outer layer in a pass.
func (o *Overlap) detectChunk(lo, hi int) {
	sub := &o.sub
	inX, inV, dt, th := sub.inX, sub.inV, sub.dt, sub.th
	for i := lo; i < hi; i++ {
		h := &o.found[i]
		if sub.pass > 0 && !h.ok {
			continue
		}
		h.ok = false
		q := inX[i].AddScaled(dt, inV[i])
		con, ok := o.outer.Query(q, sub.maxDepth)
		if !ok || con.Boundary || con.Tri < 0 || con.Dist <= -th*(1-1e-9) || con.Dist > sub.maxDepth {
			continue
		}
		if !(con.Normal.Len2() > 0) {
			continue
		}
		*h = ovHit{ok: true, tri: con.Tri, bary: con.Bary, n: con.Normal, push: con.Dist + th, vin: inV[i]}
	}
}

var _ cloth.LimitHook = (*Overlap)(nil)

// AfterLimit implements cloth.LimitHook: a push that still leaves an edge
// beyond the cloth's strain limit after its second limiting pass is undone
// (see Collider.AfterLimit).
func (o *Overlap) AfterLimit(ctx *cloth.StepContext) error {
	if sl := ctx.Cloth().Options().StrainLimit; sl > 0 {
		o.undo(ctx, sl)
	}
	return nil
}

// undo restores, until nothing changes, every pushed outer vertex with an
// edge stretched beyond strain (and beyond its length before the pushes).
func (o *Overlap) undo(ctx *cloth.StepContext, strain float64) {
	rest := ctx.Cloth().EdgeRest()
	for again := o.stats.Pushed > 0; again; {
		again = false
		for k, e := range ctx.Cloth().Edges() {
			if !o.moved[e[0]] && !o.moved[e[1]] {
				continue
			}
			l0 := o.pre(ctx.X, e[0]).Dist(o.pre(ctx.X, e[1]))
			if ctx.X[e[0]].Dist(ctx.X[e[1]]) <= max((1+strain)*rest[k], l0) {
				continue
			}
			for _, v := range e {
				if o.moved[v] {
					o.moved[v] = false
					ctx.X[v], ctx.V[v] = o.xPre[v], o.vPre[v]
					o.stats.Undone++
					again = true
				}
			}
		}
	}
}

// pre returns outer vertex v's position before the pushes.
func (o *Overlap) pre(x []geom.Vec3, v int32) geom.Vec3 {
	if o.moved[v] {
		return o.xPre[v]
	}
	return x[v]
}

// overlapStrain is the edge strain an Overlap push may not exceed in End.
// With a cloth strain limit, AfterLimit holds the pushes to the limit after
// the cloth's second limiting pass: pushes allowed 30 % and never limited
// set the per-frame maximum strain of the MakeHuman shirt over the jeans
// (median 30 % over 30 frames of the walk at 25k vertices).
const overlapStrain = releaseStrain

// overlapPasses is the number of detect-and-push passes of Overlap.End.
// Measured on the MakeHuman suit (86 walk frames; jeans vertex-frames
// outside the shirt, max strain, vertex-frames > 2 mm inside the body) and
// the procedural default (121 frames):
//
//	passes   MakeHuman                 procedural
//	0        4.62 %  95.4 %  0.58 %    1.03 %   98.9 %  0.037 %
//	1        0.91 %  95.4 %  0.55 %    0.007 %  30.7 %  0.036 %
//	2        0.71 %  96.0 %  0.62 %    0.007 %  71.4 %  0.058 %
//	3        0.42 %  98.8 %  0.64 %    0 %      50.7 %  0.049 %
//
// More passes move the outer layer further per substep, after the solver's
// strain checks, and cost stretch and body penetration. That was before
// the pushes were held to the strain limit (cloth.LimitHook); since, two
// passes halve the jeans outside the shirt on the MakeHuman kick (mean of 6
// runs with the thickness jittered by 1e-8: denim 0.21 → 0.11 %, jersey
// 0.27 → 0.13 %; casualsuit04 0.094 → 0.104 %) and take the procedural
// knee bend's from 0.12 % to none, at the same stretch (none above 10 %)
// and body penetration (vertex-frames > 2 mm inside within ±10 % on 8
// scenes, 25k walks included) and 2–3 % more time per coarse frame.
const overlapPasses = 2

// overlapStep (s) is the substep overlapPasses was measured at (sim's
// default, 1/60 s); a substep of k times it gets k times the passes. On the
// procedural default at one substep per 30 fps frame, the trousers'
// vertex-frames outside the shirt went from 0.39 % with one pass to 0.084 %
// with two (0.033 % at two substeps of one pass), and vertex-frames more than
// 2 mm inside the body from 0.25 % to 0.22 %.
const overlapStep = 1.0 / 60

// Overlaps adds an Overlap for every pair of garments listed from the
// innermost to the outermost (meshes as for Layers), to the outer garment
// of the pair, at the front of its Hooks (so that its body collider, added
// before or after, still has the last word). p.MaxDepth defaults to 0.02 m
// as in Layers. It returns the hooks added.
func Overlaps(garments []*cloth.Cloth, meshes []*mesh.Mesh, p Params) ([]*Overlap, error) {
	if len(garments) != len(meshes) {
		panic("collide: Overlaps needs one mesh per garment")
	}
	if p.MaxDepth == 0 {
		p.MaxDepth = 0.02
	}
	var out []*Overlap
	for j := range garments {
		for i := 0; i < j; i++ {
			o, err := NewOverlap(garments[i], garments[j], meshes[j], p)
			if err != nil {
				return nil, fmt.Errorf("collide: layer %d: %w", j, err)
			}
			garments[j].Hooks = slices.Insert(garments[j].Hooks, 0, cloth.Hook(o))
			out = append(out, o)
		}
	}
	return out, nil
}
