package wrinkle

import (
	"fmt"
	"math"
	"runtime"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// DeepPenetration is the depth (m) beyond which a garment vertex counts as
// deep inside the body, as in collide and the quality line.
const DeepPenetration = 0.002

// PushStats reports a PushOut pass: what the points were before it.
type PushStats struct {
	// Inside counts points inside the body, Deep those more than
	// DeepPenetration inside; MaxDepth is the deepest, m.
	Inside, Deep int
	MaxDepth     float64
	// Pushed counts the points moved (inside, or closer than the safety
	// distance).
	Pushed int
	// Exact counts the points that took the exact closest-point query
	// (the others were settled by their walk; BodyPush), Apart the
	// watched points settled by their walk and the parts' boxes instead
	// (SetParts).
	Exact, Apart int
	// Held counts the points settled without their walk, by motion
	// bounds from their last (SetBodyPose); Local the points outside
	// but nearer than Thickness pushed out by their walk's closest point
	// instead of the exact query's, every other part's box being farther
	// than it (SetParts).
	Held, Local int
}

// Add accumulates o into s (counts summed, depth maximised).
func (s *PushStats) Add(o PushStats) {
	s.Inside += o.Inside
	s.Deep += o.Deep
	s.Pushed += o.Pushed
	s.Exact += o.Exact
	s.Apart += o.Apart
	s.Held += o.Held
	s.Local += o.Local
	s.MaxDepth = math.Max(s.MaxDepth, o.MaxDepth)
}

// BodyPush keeps garment points a safety distance outside a moving body
// (wang2010 §3.4: "a safety buffering distance"). Inside and outside come
// from the closest point c on the body and the angle-weighted
// pseudo-normal n of its feature (the face normal, the sum of the two
// face normals at an edge, the angle-weighted vertex normal; Bærentzen and
// Aanæs 2005), which is exact for a closed, counter-clockwise body, where
// §3.2's test by the nearest face's normal misjudges points near concave
// edges (armpits, crotch). A point p at signed distance d = ±|p − c| (the
// sign of (p − c)·n) below Thickness is moved to c + Thickness·m, with m
// the unit direction from c to p when outside and from p to c when inside
// (n when p is on the surface). Points farther than Reach from the body
// are not looked at (a point more than Reach inside is missed).
//
// Finding c. The exact closest point is a BVH query (mesh.BVH,
// ClosestPointFrom): 0.4 to 0.8 µs a point on a 15k-vertex body. Between
// frames a garment point rides the body (a few mm of relative motion a
// frame), so Push first walks from the point's last closest triangle over
// the body's adjacency to a local minimum c' of the distance (walk: one to
// three triangles for most points). Where c' is the global closest point
// the walk's answer is the query's. Most points need nothing done: they
// are outside, at Thickness or more. So a walk that ends outside at
// Thickness or more leaves the point as it is, and every other point (a
// walk that ends inside or nearer than Thickness) takes the exact query,
// started from the walk's closest point (ClosestPointFromHit: it bounds
// the search, and the walk's triangle is not tested again), so every
// point moved is moved by the exact rule (but with body parts: below):
// the walk never pushes a point to the wrong side. The walk is only local: where another part of the body
// (arm and torso, the legs, a fold) has come nearer than c' and the point
// is inside it or nearer than Thickness to it, the walk misses it, and
// the point is left as it is. Against that:
//
//   - every point gets the exact query every Refresh frames (point i in
//     the frames f with (f + i) mod Refresh = 0, which spreads the queries
//     evenly over the frames; with body parts, below, only every
//     refreshFull-th of these refreshes is sure to be one);
//   - every exact query checks the walk: where the walk ended farther than
//     the query's closest point it found another local minimum; where
//     that point is inside or within watchNear of the body, the point
//     gets the exact query for the next watchFrames frames, and any point
//     whose walk ends on a triangle sharing a corner with the missed
//     walk's for the next riskFrames frames (where two parts meet, their
//     points are all watched within a frame or two).
//
// So a point is missed only where another part comes within Thickness of
// it outside the watched regions, and at most until its next exact query
// (Refresh − 1 frames; with body parts, where its own part folds back,
// Refresh·refreshFull − 1). Refresh = 1 gives the exact push-out every
// frame.
//
// With body parts (SetParts: each triangle's dominant joint) a watched
// point (or one on a risk triangle, or one due its refresh but for every
// refreshFull-th) whose walk ends outside at Thickness or more is settled
// without the query where every other part's bounding box is Thickness
// or more from it: no triangle of another part is that near and the
// point is inside none of them, so the walk's part alone could be nearer
// than its walk says
// (through a fold of that part, as for any point between its queries). On
// the procedural shirt through the walk (BenchmarkBodyPush) that settles
// 42% of the watched points, none of which the exact query finds inside
// or nearer than Thickness. By the same token a point whose walk (not
// watched, not at risk, outside its refresh frame) ends outside but
// nearer than Thickness, with every other part's box farther from it
// than the walk's point, is pushed out from the walk's point
// (pushByWalk): the closest point is on the walk's part, and the walk's
// is it but where that part folds back. On the mannequin
// (TestBodyPushLocal) 2.2% of them end elsewhere than the exact
// push-out puts them, none farther than 2.3 mm nor inside the body; in
// bench synth they are 44% of the points pushed. Points inside keep the
// exact query: inside a faceted body every face over which the point
// lies is a local minimum of the distance.
//
// With the parts' rigid transforms too (SetBodyPose) a point whose walk
// would settle it is settled without the walk while motion bounds from
// its last walk show the body around its triangle stays Thickness or
// more away (held; see heldRing): on the procedural shirt through the
// walk (BenchmarkBodyPush) 70% of the points each frame, and the points
// pushed and found inside are the same as without it.
//
// Set the body's positions each frame with SetBody; a BodyPush keeps a
// closest-triangle hint per garment point, allocates nothing per frame and
// is not safe for concurrent use. Push splits the points over Workers
// goroutines in fixed chunks; each point's result depends only on the
// point, its own hint and watch, and the triangles watched from the
// frames before (set after each Push, in chunk order), so results do not
// depend on the worker count. Close ends the helpers.
type BodyPush struct {
	// Thickness is the safety distance, m (NewBodyPush: 0 means 3 mm, the
	// simulator's default); Reach the search distance, m (0 means 5 cm).
	Thickness, Reach float64
	// Workers is the number of goroutines of Push and SetBody (the
	// caller's and Workers−1 helpers); 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Refresh is the period, in Push calls, of each point's exact query
	// (above; with body parts the boxes settle all but every
	// refreshFull-th); 1 queries every point every frame, 0 means
	// DefaultPushRefresh.
	Refresh int
	refresh int     // Refresh or its default, for the running Push
	frame   uint64  // Push calls so far
	watch   []uint8 // per point: frames left of exact queries
	// miss and nmiss list per chunk of Push the triangles where walks
	// missed (miss[lo:lo+nmiss[c]] for the chunk c starting at point lo).
	miss  []int32
	nmiss []int
	// triPart is per body triangle its part (SetParts; nil: none),
	// partVert[partStart[k]:partStart[k+1]] part k's corners and
	// partBox their bounding box (min, max) in the current body.
	triPart   []int32
	partVert  []int32
	partStart []int32
	partBox   [][2]geom.Vec3
	partNear  []bool // partNear[p·parts+q]: boxes of p and q nearer than Reach + Thickness
	bvh       *mesh.BVH
	m         mesh.Mesh // the body's triangles and current positions
	top       *mesh.Topology
	// tri and face are per body triangle what a walk reads of it, packed
	// for locality (a walk is a few dependent loads per point).
	tri  []bodyTri
	face []bodyFace
	hint []int32

	held heldState // SetBodyPose

	pool    *pool
	p       []geom.Vec3 // the running Push's points
	part    []PushStats // per chunk of the running Push
	pushFn  func(lo, hi int)
	refitFn func(lo, hi int)
}

// bodyTri is a body triangle's fixed data: its corners, per side k
// (TriEdges[t][k]) the other triangle of that edge where it has exactly
// two, else -1 (the walk's hop across an edge without the edge's lists),
// and its patch (pushheld.go; -1 without parts).
type bodyTri struct {
	v     [3]int32
	adj   [3]int32
	patch int32
	_     int32
}

// bodyFace is a body triangle's data of the frame: its unit normal
// (mesh.FaceNormals' arithmetic) and the frame until which a walk that
// ends on it is checked by the exact query (riskFrames).
type bodyFace struct {
	n    geom.Vec3
	risk uint64
}

// DefaultPushRefresh is BodyPush's default Refresh.
const DefaultPushRefresh = 32

// refreshFull: with body parts (SetParts) a point's refresh is settled by
// the parts' boxes where they show every other part Thickness or more
// away, as for a watched point, but for every refreshFull-th refresh
// (refreshes k with k mod refreshFull = 0), which is the exact query
// whatever the boxes say: it alone finds where the walk's own part folds
// back nearer than the walk's point (within Refresh·refreshFull frames).
const refreshFull = 4

// pushChunk is the number of points per chunk of Push, refitSerialBelow
// the number of body vertices under which SetBody refits on the caller.
const (
	pushChunk        = 64
	refitSerialBelow = 4096
)

// NewBodyPush prepares push-out against a body of the given triangles
// with rest positions rest, for n garment points.
func NewBodyPush(rest []geom.Vec3, tris [][3]int32, n int, thickness, reach float64) (*BodyPush, error) {
	for i, t := range tris {
		for _, v := range t {
			if v < 0 || int(v) >= len(rest) {
				return nil, fmt.Errorf("wrinkle: body triangle %d: vertex %d out of range [0, %d)", i, v, len(rest))
			}
		}
	}
	if len(tris) == 0 {
		return nil, fmt.Errorf("wrinkle: body has no triangles")
	}
	if thickness == 0 {
		thickness = 0.003
	}
	if reach == 0 {
		reach = 0.05
	}
	if !(thickness > 0 && thickness < 0.1 && reach >= thickness && reach < 1) {
		return nil, fmt.Errorf("wrinkle: push-out thickness %g m and reach %g m: want 0 < thickness ≤ reach < 1 m", thickness, reach)
	}
	b := &BodyPush{Thickness: thickness, Reach: reach, bvh: mesh.NewBVH(rest, tris),
		m: mesh.Mesh{Verts: append([]geom.Vec3(nil), rest...), Tris: tris}, hint: make([]int32, n), watch: make([]uint8, n),
		face: make([]bodyFace, len(tris)), miss: make([]int32, n), nmiss: make([]int, (n+pushChunk-1)/pushChunk)}
	top, err := mesh.NewTopology(&b.m)
	if err != nil {
		return nil, fmt.Errorf("wrinkle: body: %w", err)
	}
	b.top = top
	b.tri = make([]bodyTri, len(tris))
	for t, tr := range tris {
		b.tri[t] = bodyTri{v: tr, patch: -1}
		for k, e := range top.TriEdges[t] {
			o := int32(-1)
			if et := top.EdgeTriangles(e); len(et) == 2 {
				o = et[0]
				if o == int32(t) {
					o = et[1]
				}
			}
			b.tri[t].adj[k] = o
		}
	}
	b.held.rest = append([]geom.Vec3(nil), rest...)
	for i := range b.hint {
		b.hint[i] = -1
	}
	b.normals()
	b.part = make([]PushStats, (n+pushChunk-1)/pushChunk)
	b.pushFn, b.refitFn = b.pushRange, b.refitRange
	return b, nil
}

// Close ends the helper goroutines; later calls run on the caller alone.
func (b *BodyPush) Close() {
	if b.pool != nil {
		b.pool.stop()
	}
}

// workers returns the pool for Workers, made at the first call and when
// Workers changes.
func (b *BodyPush) workers() *pool {
	w := b.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if b.pool == nil || b.pool.Workers() != w && !b.pool.Stopped() {
		if b.pool != nil {
			b.pool.stop()
		}
		b.pool = newPool(w)
		runtime.AddCleanup(b, stopPool, b.pool.Pool)
	}
	return b.pool
}

// SetBody moves the body to positions x (same count as its rest shape).
func (b *BodyPush) SetBody(x []geom.Vec3) error {
	if len(x) != len(b.m.Verts) {
		return fmt.Errorf("wrinkle: body has %d vertices, got %d positions", len(b.m.Verts), len(x))
	}
	copy(b.m.Verts, x)
	b.held.gen++
	if np := b.bvh.RefitParts(); len(x) >= refitSerialBelow && np > 1 {
		b.workers().run(np, 1, b.refitFn)
		b.bvh.RefitTop()
	} else {
		b.bvh.Refit(b.m.Verts)
	}
	b.normals()
	if b.triPart != nil {
		b.partBoxes()
	}
	return nil
}

// refitRange refits the BVH's parts [lo, hi).
func (b *BodyPush) refitRange(lo, hi int) {
	for i := lo; i < hi; i++ {
		b.bvh.RefitPart(b.m.Verts, i)
	}
}

// normals sets the faces' unit normals to the body's positions, as
// mesh.FaceNormals computes them (zero for a degenerate triangle).
func (b *BodyPush) normals() {
	for i, t := range b.m.Tris {
		a := b.m.Verts[t[0]]
		n := b.m.Verts[t[1]].Sub(a).Cross(b.m.Verts[t[2]].Sub(a))
		if l := n.Len(); l > 0 {
			n = n.Scale(1 / l)
		} else {
			n = geom.Vec3{}
		}
		b.face[i].n = n
	}
}

// pseudoNormal returns the pseudo-normal of the feature of triangle tri at
// barycentric coordinates w: a corner, an edge or the face.
func (b *BodyPush) pseudoNormal(tri int32, w [3]float64) geom.Vec3 {
	const eps = 1e-9
	zero := 0
	k := -1
	for i, c := range w {
		if c <= eps {
			zero++
			k = i
		}
	}
	bt := &b.tri[tri]
	t := bt.v
	switch zero {
	case 2: // a corner: the one with weight ~1
		for i, c := range w {
			if c > eps {
				return mesh.VertexNormalAt(&b.m, t[i], b.top.VertTriangles(t[i]))
			}
		}
	case 1: // the edge opposite corner k
		s := (k + 1) % 3
		var n geom.Vec3
		if o := bt.adj[s]; o >= 0 {
			// Its two triangles in ascending order, as EdgeTriangles.
			lo, hi := min(tri, o), max(tri, o)
			n = n.Add(b.face[lo].n)
			return n.Add(b.face[hi].n)
		}
		for _, ot := range b.top.EdgeTriangles(b.top.TriEdges[tri][s]) {
			n = n.Add(b.face[ot].n)
		}
		return n
	}
	return b.face[tri].n
}

// Push moves the points p (the garment's, in its vertex order: the hints
// follow the index) out of the body and reports what they were before.
func (b *BodyPush) Push(p []geom.Vec3) (PushStats, error) {
	var st PushStats
	if len(p) != len(b.hint) {
		return st, fmt.Errorf("wrinkle: push-out of %d points, prepared for %d", len(p), len(b.hint))
	}
	b.p = p
	b.refresh = b.Refresh
	if b.refresh <= 0 {
		b.refresh = DefaultPushRefresh
	}
	if len(p) < transferSerialBelow {
		for lo := 0; lo < len(p); lo += pushChunk {
			b.pushRange(lo, min(lo+pushChunk, len(p)))
		}
	} else {
		b.workers().run(len(p), pushChunk, b.pushFn)
	}
	b.p = nil
	for c, k := range b.nmiss {
		for _, t := range b.miss[c*pushChunk : c*pushChunk+k] {
			for _, v := range b.m.Tris[t] {
				for _, u := range b.top.VertTriangles(v) {
					b.face[u].risk = b.frame + 1 + riskFrames
				}
			}
		}
	}
	b.frame++
	for _, ps := range b.part {
		st.Add(ps)
	}
	return st, nil
}

// pushRange pushes points [lo, hi), a chunk of pushChunk, and stores the
// chunk's stats.
func (b *BodyPush) pushRange(lo, hi int) {
	var st PushStats
	miss := b.miss[lo:lo:hi]
	for i := lo; i < hi; i++ {
		b.pushPoint(i, &st, &miss)
	}
	b.part[lo/pushChunk] = st
	b.nmiss[lo/pushChunk] = len(miss)
}

// pushPoint moves point i out of the body and counts it into st. A walk
// that ends outside, at Thickness or more, settles it (nothing to do)
// unless i is due its refresh or watched (then only where the parts'
// boxes settle it, and never at its full refresh: refreshFull);
// otherwise the exact query decides, and checks the walk. A held point
// (heldNow) needs no walk.
func (b *BodyPush) pushPoint(i int, st *PushStats, miss *[]int32) {
	x := b.p[i]
	if b.heldNow(i, x) {
		st.Held++
		return
	}
	h := b.hint[i]
	f := b.frame + uint64(i)
	due := f%uint64(b.refresh) == 0
	full := due && (f/uint64(b.refresh))%refreshFull == 0
	var walk mesh.Hit
	walked := false
	if h >= 0 && b.refresh > 1 {
		walk, walked = b.walk(x, h)
	}
	if walked && !full {
		b.hint[i] = walk.Tri
		d, pn := x.Sub(walk.Point), b.pseudoNormal(walk.Tri, walk.Bary)
		trusted := !due && b.watch[i] == 0 && b.face[walk.Tri].risk <= b.frame
		if walk.Dist2 >= b.Thickness*b.Thickness && d.Dot(pn) >= 0 {
			if trusted {
				b.hold(i, x, walk.Tri, math.Sqrt(walk.Dist2))
				return
			}
			if b.apart(x, walk.Tri, walk.Dist2, b.Thickness) {
				st.Apart++
				return
			}
		} else if trusted && d.Dot(pn) >= 0 && b.pushByWalk(x, walk) {
			// Outside, nearer than Thickness. (Inside, every face over
			// which the point lies is a local minimum of a faceted body:
			// the walk's may be millimetres from the closest.)
			b.apply(i, walk, d, pn, st)
			st.Local++
			b.hold(i, x, -1, -1)
			return
		}
	}
	var hit mesh.Hit
	var ok bool
	if walked {
		// The walk's closest point on its triangle is the query's test of
		// that triangle (onTri: the same bits).
		hit, ok = b.bvh.ClosestPointFromHit(x, b.Reach, walk)
	} else {
		hit, ok = b.bvh.ClosestPointFrom(x, b.Reach, h)
	}
	st.Exact++
	inside := false
	if ok {
		b.hint[i] = hit.Tri
		d, pn := x.Sub(hit.Point), b.pseudoNormal(hit.Tri, hit.Bary)
		inside = d.Dot(pn) < 0
		b.apply(i, hit, d, pn, st)
	}
	if ok && !inside && hit.Dist2 >= b.Thickness*b.Thickness {
		b.hold(i, x, hit.Tri, math.Sqrt(hit.Dist2))
	} else {
		b.hold(i, x, -1, -1)
	}
	if !walked {
		return
	}
	// A walk that ended farther than the closest point found another
	// local minimum; where that point is inside or near the body, watch it.
	if e := math.Sqrt(hit.Dist2) + walkTol; ok && walk.Dist2 > e*e && (inside || hit.Dist2 < watchNear*watchNear) {
		b.watch[i] = watchFrames
		*miss = append(*miss, walk.Tri)
	} else if b.watch[i] > 0 {
		b.watch[i]--
	}
}

// pushByWalk reports whether a point at x whose walk ended at walk,
// outside but nearer than Thickness, is pushed out by it instead of by
// the exact query: every other body part's box is farther from x than
// walk's point (SetParts), so the closest point lies on walk's part. The
// walk ends at a local minimum of the distance to that part; it is the
// part's closest point but where the part folds back within that
// distance (TestBodyPushLocal).
func (b *BodyPush) pushByWalk(x geom.Vec3, walk mesh.Hit) bool {
	return b.apart(x, walk.Tri, walk.Dist2, max(math.Sqrt(walk.Dist2), nearApart))
}

// apply pushes point i out by hit, its closest point on the body with
// d = p − hit.Point and pn the pseudo-normal there, and counts it into st.
func (b *BodyPush) apply(i int, hit mesh.Hit, d, pn geom.Vec3, st *PushStats) {
	dist := d.Len()
	inside := d.Dot(pn) < 0
	var m geom.Vec3
	switch {
	case dist > 1e-12 && inside:
		m = d.Scale(-1 / dist)
		st.Inside++
		if dist > DeepPenetration {
			st.Deep++
		}
		st.MaxDepth = math.Max(st.MaxDepth, dist)
	case dist > 1e-12:
		m = d.Scale(1 / dist)
	default:
		if l := pn.Len(); l > 0 {
			m = pn.Scale(1 / l)
		}
	}
	if (inside || dist < b.Thickness) && m.Len2() > 0 {
		b.p[i] = hit.Point.Add(m.Scale(b.Thickness))
		st.Pushed++
	}
}

// A point whose walk missed its closest point, where that point is
// inside the body or within watchNear (m) of it, gets the exact query for
// watchFrames frames, and a walk that ends on a triangle that shares a
// corner with the missed walk's for riskFrames frames. A walk misses when
// it ends more than walkTol (m) farther than the closest point: nearer
// minima lie in shallow folds of one part, about as far as the closest
// point, and watching them too took the exact query at 32% of the
// vertex-frames of eval's CMU walk against 17% (with the same penetration).
// nearApart (m) is the least box distance by which a point on or next to
// the body (its walk ending closer than this) counts as apart from the
// other parts.
const nearApart = 1e-6

const (
	watchFrames = 64
	riskFrames  = 8
	watchNear   = 0.01
	walkTol     = 0.0002
)

// walkMaxSteps bounds the triangles a walk moves across before it gives
// up to the exact query.
const walkMaxSteps = 8

// walk returns a local minimum of the distance from x to the body found
// by descent from triangle t over the body's adjacency, or false when it
// does not settle within walkMaxSteps moves. The closest point c of the
// current triangle lies in its interior, on an edge or at a corner: in the
// interior c is a local minimum (a neighbourhood of c on the surface lies
// in the triangle); on an edge the neighbourhood is the edge's triangles,
// and the walk moves to one that is strictly closer, if any; at a corner v
// it is v's fan, and c = v is its closest point exactly when
// (x − v)·(u − v) ≤ 0 for every neighbour u of v (each fan triangle's
// corner region test), else the walk moves to the closest fan triangle.
// The distance falls strictly with each move, so the walk ends.
func (b *BodyPush) walk(x geom.Vec3, t int32) (mesh.Hit, bool) {
	const eps = 1e-9 // as pseudoNormal: weights this small are zero
	if t < 0 || int(t) >= len(b.m.Tris) {
		return mesh.Hit{}, false
	}
	hit := b.onTri(x, t)
	for range walkMaxSteps {
		zero, k, one := 0, 0, 0
		for j, w := range hit.Bary {
			if w <= eps {
				zero++
				k = j
			} else {
				one = j
			}
		}
		var cand []int32
		switch zero {
		case 0:
			return hit, true
		case 1: // the edge opposite corner k
			s := (k + 1) % 3
			if o := b.tri[hit.Tri].adj[s]; o >= 0 {
				// One triangle across: as the loop below over the
				// edge's two.
				if o != hit.Tri {
					if h := b.onTri(x, o); h.Dist2 < hit.Dist2 {
						hit = h
						continue
					}
				}
				return hit, true
			}
			cand = b.top.EdgeTriangles(b.top.TriEdges[hit.Tri][s])
		default: // corner one
			v := b.tri[hit.Tri].v[one]
			if b.cornerClosest(x, v) {
				return hit, true
			}
			cand = b.top.VertTriangles(v)
		}
		best := hit
		for _, c := range cand {
			if c == hit.Tri {
				continue
			}
			if h := b.onTri(x, c); h.Dist2 < best.Dist2 {
				best = h
			}
		}
		if best.Tri == hit.Tri {
			return hit, true
		}
		hit = best
	}
	return hit, false
}

// onTri returns the closest point to x on body triangle t with the bits
// of a BVH query that picks t.
func (b *BodyPush) onTri(x geom.Vec3, t int32) mesh.Hit {
	tr := &b.tri[t].v
	q, w := mesh.ClosestOnTriangle(x, b.m.Verts[tr[0]], b.m.Verts[tr[1]], b.m.Verts[tr[2]])
	dx, dy, dz := q.X-x.X, q.Y-x.Y, q.Z-x.Z
	return mesh.Hit{Tri: t, Point: q, Bary: w, Dist2: dx*dx + dy*dy + dz*dz}
}

// cornerClosest reports whether body vertex v is the closest point to x
// on every triangle of its fan: (x − v)·(u − v) ≤ 0 for its neighbours u.
func (b *BodyPush) cornerClosest(x geom.Vec3, v int32) bool {
	p := b.m.Verts[v]
	d := x.Sub(p)
	for _, u := range b.top.Neighbors(v) {
		if d.Dot(b.m.Verts[u].Sub(p)) > 0 {
			return false
		}
	}
	return true
}
