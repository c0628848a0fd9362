package collide

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Feature is the part of a triangle on which a closest point lies.
type Feature uint8

const (
	// FeatureFace: the closest point is inside the triangle.
	FeatureFace Feature = iota
	// FeatureEdge: the closest point is inside an edge.
	FeatureEdge
	// FeatureVertex: the closest point is a vertex.
	FeatureVertex
)

// Contact is the result of a signed-distance query against a Body.
type Contact struct {
	// Tri is the closest triangle (its id in the body mesh), -1 for none.
	Tri int32
	// Bary are the barycentric coordinates of Point in Tri.
	Bary [3]float64
	// Point is the closest point on the surface.
	Point geom.Vec3
	// Dist is the signed distance, m: positive outside, negative inside.
	Dist float64
	// Normal is the unit outward contact normal: the direction from Point
	// to the query point when outside, the opposite when inside, and the
	// feature's pseudo-normal when the point lies on the surface.
	Normal geom.Vec3
	// Feature is the kind of closest feature; Boundary reports that it lies
	// on a boundary of an open mesh.
	Feature  Feature
	Boundary bool
}

// Body is a moving triangle mesh that cloth collides with: a skinned
// character, a static obstacle, or another garment (FollowCloth).
//
// Its vertex positions are set per frame (SetFrame, SetFrames) or directly
// (SetState), and Update moves it to a time: between the two frames of
// SetFrames the positions interpolate linearly, so the body moves
// continuously through the substeps of a frame with the constant velocity
// (next−prev)/(t1−t0). Update refits the BVH (mesh.BVH.Refit) rather than
// rebuilding it.
//
// Signed distance is the distance to the closest point, with the sign of
// (p − c)·n where n is the angle-weighted pseudo-normal of the closest
// feature (face normal, sum of the two face normals at an edge, angle-
// weighted vertex normal; Bærentzen and Aanæs, "Signed distance computation
// using the angle weighted pseudonormal", IEEE TVCG 11(3), 2005), exact for
// closed, consistently oriented (counter-clockwise seen from outside)
// manifold meshes. For open meshes, a point whose closest feature lies on a
// boundary (edge or vertex) counts as outside: it is beyond the surface's
// extent (above the waistband of an inner garment, at a neck opening), and
// its contact normal points away from the rim, which keeps cloth at the
// safety distance from a rim without pushing it through the surface. (An
// earlier rule, inside when more than 30° behind the rim's tangent plane,
// classified a shirt lying on the waist just above the waistband of the
// trousers under it as inside the trousers and pushed it out through them.)
//
// Queries are safe for concurrent use, also the first ones after a Set
// call or FollowSnapshot, which leave the refit to the first query: one of
// them refits while the others wait for it. Set*, Update, FollowSnapshot and
// Flip changes are not safe concurrently with queries. Copies of one body moved by the same
// frames (one per garment stepped concurrently) can share their refits
// through a BodyGroup.
type Body struct {
	tris [][3]int32
	top  *mesh.Topology
	bvh  *mesh.BVH

	prev, next []geom.Vec3
	vel        []geom.Vec3 // velocity of the frame pair (or of SetState)
	t0, t1     float64
	interp     bool

	x        []geom.Vec3 // positions at time: own, or a group fit's
	own      []geom.Vec3 // the body's own positions buffer
	ownBVH   *mesh.BVH   // the body's own BVH (bvh is it or a group fit's)
	time     float64
	fresh    atomic.Bool // x and bvh match time
	refitMu  sync.Mutex  // held by the query that refits lazily (ensure)
	fitted   bool        // bvh fits x
	maxSpeed float64     // max |vel|, m/s
	moved    float64     // sum over Updates of a bound on the largest vertex displacement, m
	xa       float64     // interpolation parameter of x ...
	xInterp  bool        // ... when x interpolates the current frames

	follow    *cloth.Cloth
	snap      *Snapshot // read instead of follow when set
	followT   float64
	followGen uint64

	group        *BodyGroup
	epoch        uint64 // the group's epoch when it set the frames; 0: not shared
	cur          *groupFit
	sharedFrames bool // prev, next and vel are the group's

	// Flip swaps inside and outside (negates the pseudo-normals): a cloth
	// kept inside another garment collides with the outer garment flipped.
	Flip bool

	// Workers is the number of goroutines Update refits the BVH of a large
	// body on, and Penetrations queries it on (0 or 1: the calling
	// goroutine); results do not depend on it.
	Workers int
}

// refitParallelBelow is the triangle count under which Update refits on
// the calling goroutine whatever Workers says.
const refitParallelBelow = 8192

// NewBody returns a body with m's triangles, at rest at m.Verts. The mesh
// must be valid (mesh.Mesh.Validate) and its triangles must not repeat a
// vertex; m is not retained.
func NewBody(m *mesh.Mesh) (*Body, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, err
	}
	n := len(m.Verts)
	b := &Body{
		tris: append([][3]int32(nil), m.Tris...),
		top:  top,
		prev: make([]geom.Vec3, n),
		next: make([]geom.Vec3, n),
		vel:  make([]geom.Vec3, n),
		own:  make([]geom.Vec3, n),
	}
	b.x = b.own
	b.bvh = mesh.NewBVH(m.Verts, m.Tris)
	b.ownBVH = b.bvh
	b.SetFrame(m.Verts)
	return b, nil
}

// NewBodies returns n bodies with m's triangles, each at rest at m.Verts:
// the same as n calls of NewBody(m), which would build the same topology
// and the same tree n times. They share the topology and the tree's
// structure (read-only) and each has its own BVH boxes, positions and
// frames, so they can be moved and refitted apart (garments stepped
// concurrently, each against its own copy of the body; see BodyGroup).
func NewBodies(m *mesh.Mesh, n int) ([]*Body, error) {
	if n <= 0 {
		return nil, nil
	}
	b0, err := NewBody(m)
	if err != nil {
		return nil, err
	}
	bs := []*Body{b0}
	for range n - 1 {
		nv := len(b0.own)
		b := &Body{
			tris: b0.tris,
			top:  b0.top,
			prev: make([]geom.Vec3, nv),
			next: make([]geom.Vec3, nv),
			vel:  make([]geom.Vec3, nv),
			own:  make([]geom.Vec3, nv),
		}
		b.x = b.own
		b.bvh = b0.ownBVH.Clone()
		b.ownBVH = b.bvh
		b.SetFrame(m.Verts)
		bs = append(bs, b)
	}
	return bs, nil
}

// FollowCloth returns a body made of the triangles of c (whose mesh is m)
// that follows c: Update(t) takes c's current positions X and velocities V,
// moved to time t along V (X + V·(t − c.Time)), so that a garment stepped
// ahead of the one colliding with it is seen where it was at t. It is how
// one garment acts as the collision body of another (see Layers).
func FollowCloth(c *cloth.Cloth, m *mesh.Mesh) (*Body, error) {
	if len(m.Verts) != c.NumVerts() {
		return nil, fmt.Errorf("collide: mesh has %d vertices, cloth %d", len(m.Verts), c.NumVerts())
	}
	mm := &mesh.Mesh{Verts: c.X, Tris: m.Tris}
	b, err := NewBody(mm)
	if err != nil {
		return nil, err
	}
	b.follow = c
	b.fresh.Store(false)
	return b, nil
}

// Snapshot is a copy of a cloth's positions, velocities and time, taken
// between substeps. Bodies that follow a cloth (FollowCloth, Layers) and
// Overlaps read the cloth through one when garments are stepped
// concurrently (Body.FollowSnapshot, Overlap.FollowSnapshot): each garment
// then collides with the others' states at the start of the substep, moved
// along their velocities, whatever order the goroutines run in (Wang et
// al. 2010 §4 step the shirt and the trousers in threads synchronised
// after each step the same way).
type Snapshot struct {
	X, V []geom.Vec3
	// Time is the cloth's time when taken, s.
	Time float64
	gen  uint64
}

// Take copies c's current state into s.
func (s *Snapshot) Take(c *cloth.Cloth) {
	s.X = append(s.X[:0], c.X...)
	s.V = append(s.V[:0], c.V...)
	s.Time = c.Time
	s.gen++
}

// Followed returns the cloth a body made by FollowCloth follows (nil for
// other bodies).
func (b *Body) Followed() *cloth.Cloth { return b.follow }

// FollowSnapshot makes a body made by FollowCloth read its cloth's state
// from s (which must be taken from that cloth) instead of the cloth
// itself; nil goes back to the cloth. It panics for a body that follows no
// cloth.
func (b *Body) FollowSnapshot(s *Snapshot) {
	if b.follow == nil {
		panic("collide: FollowSnapshot on a body that follows no cloth")
	}
	b.snap = s
	b.fresh.Store(false)
}

// followState returns the followed cloth's positions, velocities and time
// (from the snapshot when there is one) and a generation that changes
// whenever they may have.
func (b *Body) followState() (x, v []geom.Vec3, t float64, gen uint64) {
	if s := b.snap; s != nil {
		return s.X, s.V, s.Time, s.gen
	}
	c := b.follow
	return c.X, c.V, c.Time, 0
}

// Topology returns the body's mesh topology.
func (b *Body) Topology() *mesh.Topology { return b.top }

// Tris returns the body's triangles (not to be modified).
func (b *Body) Tris() [][3]int32 { return b.tris }

// NumVerts returns the number of body vertices.
func (b *Body) NumVerts() int { return len(b.own) }

func (b *Body) checkLen(v []geom.Vec3) {
	if len(v) != len(b.own) {
		panic(fmt.Sprintf("collide: body has %d vertices, got %d", len(b.own), len(v)))
	}
}

// ownFrames gives a grouped body its own frame buffers back (BodyGroup's
// SetFrames shares the group's).
func (b *Body) ownFrames() {
	if b.sharedFrames {
		n := len(b.own)
		b.prev, b.next, b.vel = make([]geom.Vec3, n), make([]geom.Vec3, n), make([]geom.Vec3, n)
		b.sharedFrames = false
	}
}

// SetFrame places the body, at rest, at verts (copied).
func (b *Body) SetFrame(verts []geom.Vec3) {
	b.checkLen(verts)
	b.ownFrames()
	copy(b.prev, verts)
	copy(b.next, verts)
	clear(b.vel)
	b.interp, b.maxSpeed, b.epoch, b.xInterp = false, 0, 0, false
	b.fresh.Store(false)
}

// SetFrames makes the body move linearly from prev at time t0 to next at
// time t1 (s, t1 > t0): Update(t) places it at prev + α(next−prev),
// α = (t−t0)/(t1−t0) clamped to [0, 1], with velocity (next−prev)/(t1−t0).
// prev and next are copied. Typically prev and next are consecutive frames of
// a skinned body and [t0, t1] the cloth Step over which they apply.
func (b *Body) SetFrames(prev, next []geom.Vec3, t0, t1 float64) {
	b.checkLen(prev)
	b.checkLen(next)
	b.ownFrames()
	speed := setFrames(b.prev, b.next, b.vel, prev, next, t0, t1)
	b.t0, b.t1, b.interp, b.maxSpeed, b.epoch, b.xInterp = t0, t1, true, speed, 0, false
	b.fresh.Store(false)
}

// setFrames copies prev and next into dprev and dnext, sets vel to the
// velocity from prev at t0 to next at t1 and returns the largest speed.
func setFrames(dprev, dnext, vel, prev, next []geom.Vec3, t0, t1 float64) float64 {
	if !(t1 > t0) {
		panic("collide: SetFrames needs t1 > t0")
	}
	copy(dprev, prev)
	copy(dnext, next)
	inv := 1 / (t1 - t0)
	m := 0.0
	for i := range vel {
		vel[i] = next[i].Sub(prev[i]).Scale(inv)
		m = max(m, vel[i].Len2())
	}
	return math.Sqrt(m)
}

// SetState places the body at x with velocities v (nil: zero), m/s, both
// copied; it stays there until the next Set call.
func (b *Body) SetState(x, v []geom.Vec3) {
	b.checkLen(x)
	b.ownFrames()
	copy(b.prev, x)
	copy(b.next, x)
	m := 0.0
	if v == nil {
		clear(b.vel)
	} else {
		b.checkLen(v)
		copy(b.vel, v)
		for _, u := range v {
			m = max(m, u.Len2())
		}
	}
	b.interp, b.maxSpeed, b.epoch, b.xInterp = false, math.Sqrt(m), 0, false
	b.fresh.Store(false)
}

// MaxSpeed returns the largest vertex speed of the current motion, m/s.
func (b *Body) MaxSpeed() float64 {
	b.ensureFollowed()
	return b.maxSpeed
}

// alpha returns the interpolation parameter at time t.
func (b *Body) alpha(t float64) float64 {
	if !b.interp {
		return 0
	}
	a := (t - b.t0) / (b.t1 - b.t0)
	// Times summed from substeps miss the frame's ends by a rounding
	// error; snapped, the last substep ends exactly on next, where the
	// following frame (prev = that next) starts, and the BVH need not be
	// refitted nor the contacts searched again there.
	const snap = 1e-9
	switch {
	case a < snap:
		return 0
	case a > 1-snap:
		return 1
	}
	return a
}

// Update moves the body to time t (s) and refits its BVH; it does nothing
// if the body is already there. A body following a cloth takes the cloth's
// current state.
func (b *Body) Update(t float64) {
	if b.follow != nil {
		fx, fv, ft, gen := b.followState()
		if b.fresh.Load() && b.followT == ft && b.followGen == gen && b.time == t {
			return
		}
		b.followT, b.followGen = ft, gen
		b.SetState(fx, fv)
		// The followed cloth may be ahead of (or behind) t, e.g. stepped
		// through the whole frame before the cloth colliding with it: move
		// it back along its velocity to t (x(t) = X + V·(t − its time), the
		// implicit Euler step's own interpolation).
		if dt := t - ft; dt != 0 {
			for i, p := range fx {
				b.prev[i] = p.AddScaled(dt, fv[i])
			}
		}
	} else if b.fresh.Load() && (b.time == t || !b.interp) {
		return
	}
	a := b.alpha(t)
	if b.group != nil && b.epoch != 0 {
		b.updateShared(t, a)
		return
	}
	bounded := b.xInterp // reset by every Set…: x interpolates these frames
	m := 0.0
	own := b.own
	for i, p := range b.x {
		q := b.at(i, a)
		if !bounded {
			m = max(m, q.Dist2(p))
		}
		own[i] = q
	}
	if b.cur != nil {
		// Back from a group's fit to the body's own buffers.
		b.group.release(b.cur)
		b.cur, b.x, b.bvh, b.fitted = nil, own, b.ownBVH, false
	}
	disp := math.Sqrt(m)
	if bounded {
		disp = b.moveBound(b.xa, a)
	}
	b.moved += disp
	// Unmoved (the first substep of a frame starts where the last one of
	// the frame before ended): the BVH still fits.
	if disp > 0 || !b.fitted {
		b.refit()
		b.fitted = true
	}
	b.time, b.xa, b.xInterp = t, a, b.interp
	b.fresh.Store(true)
}

// moveBound bounds the displacement of every vertex from interpolation
// parameter a0 to a of the current frames: |a−a0|·|next−prev| ≤
// |a−a0|·maxSpeed·(t1−t0), plus the rounding of the interpolation (far
// below dispSlack). It spares a pass over the vertices per Update, four
// per substep of a coarse frame's two group members.
func (b *Body) moveBound(a0, a float64) float64 {
	if a == a0 {
		return 0 // the same positions, bit for bit
	}
	return math.Abs(a-a0)*b.maxSpeed*(b.t1-b.t0)*(1+1e-12) + dispSlack
}

// refit refits the BVH to x, on up to Workers goroutines.
func (b *Body) refit() {
	if b.Workers <= 1 || len(b.tris) < refitParallelBelow {
		b.bvh.Refit(b.x)
		return
	}
	each(b.bvh.RefitParts(), b.Workers, func(i int) { b.bvh.RefitPart(b.x, i) })
	b.bvh.RefitTop()
}

// at returns vertex i's position at interpolation parameter a.
func (b *Body) at(i int, a float64) geom.Vec3 {
	switch a {
	case 0:
		return b.prev[i]
	case 1:
		return b.next[i]
	}
	return b.prev[i].Lerp(b.next[i], a)
}

// dispSlack (m) covers the rounding of interpolated positions in
// moveBound.
const dispSlack = 1e-12

// updateShared is Update for a member of a BodyGroup: the positions at t
// and their refitted BVH are taken from the group, computed by the first
// member to get there (bit-identical to the member's own).
func (b *Body) updateShared(t, a float64) {
	if a == 0 && b.fitted {
		// The first substep of a frame starts where the last one of the
		// frame before ended: nothing moves, the BVH still fits.
		same := true
		for i, p := range b.x {
			if b.prev[i] != p {
				same = false
				break
			}
		}
		if same {
			b.time, b.xa, b.xInterp = t, 0, true
			b.fresh.Store(true)
			return
		}
	}
	f := b.group.acquire(b.epoch, t, b, a)
	if b.xInterp {
		b.moved += b.moveBound(b.xa, a)
	} else {
		m := 0.0
		for i, p := range b.x {
			m = max(m, f.x[i].Dist2(p))
		}
		b.moved += math.Sqrt(m)
	}
	if b.cur != nil {
		b.group.release(b.cur)
	}
	b.cur, b.x, b.bvh, b.fitted = f, f.x, f.bvh, true
	b.time, b.xa, b.xInterp = t, a, true
	b.fresh.Store(true)
}

// Positions returns the body's positions at the time of the last Update
// (not to be modified).
func (b *Body) Positions() []geom.Vec3 {
	b.ensure()
	return b.x
}

// ensure brings the positions and the BVH up to date after a Set call
// (which leaves the refit to the first query). Queries call it, so it is
// safe for concurrent use: one of them refits, under refitMu, while the
// others wait for it; once the body is fresh it costs one atomic load.
func (b *Body) ensure() {
	if !b.fresh.Load() {
		b.refitLazily()
	}
}

// ensureFollowed is ensure for the queries that read the motion (the
// frames and velocities) rather than the positions and the BVH: only a
// body that follows a cloth sets its motion when it refits.
func (b *Body) ensureFollowed() {
	if b.follow != nil {
		b.ensure()
	}
}

// refitLazily is the slow path of ensure.
func (b *Body) refitLazily() {
	b.refitMu.Lock()
	defer b.refitMu.Unlock()
	if !b.fresh.Load() {
		b.Update(b.time)
	}
}

// Frame returns an orthonormal frame of triangle tri at time t of the
// current motion: u along its first edge, n its unit normal (outward, or
// inward when Flip is set) and w = n × u.
func (b *Body) Frame(tri int32, t float64) (u, n, w geom.Vec3) {
	b.ensureFollowed()
	c := b.corners(tri, t)
	u = c[1].Sub(c[0]).Unit()
	n = geom.TriangleNormal(c[0], c[1], c[2]).Unit()
	if b.Flip {
		n = n.Neg()
	}
	return u, n, n.Cross(u)
}

func (b *Body) corners(tri int32, t float64) [3]geom.Vec3 {
	a := b.alpha(t)
	var c [3]geom.Vec3
	for k, v := range b.tris[tri] {
		c[k] = b.prev[v].Lerp(b.next[v], a)
	}
	return c
}

// PointAt returns the point with barycentric coordinates bary in triangle
// tri plus the offset local = (along u, along n, along w) in the triangle's
// Frame, at time t of the current motion. It does not refit the body
// (except that a body following a cloth first takes the cloth's state, as
// every query does) and is safe for concurrent use.
func (b *Body) PointAt(tri int32, bary [3]float64, local geom.Vec3, t float64) geom.Vec3 {
	b.ensureFollowed()
	c := b.corners(tri, t)
	p := c[0].Scale(bary[0]).AddScaled(bary[1], c[1]).AddScaled(bary[2], c[2])
	if local != (geom.Vec3{}) {
		u, n, w := b.Frame(tri, t)
		p = p.AddScaled(local.X, u).AddScaled(local.Y, n).AddScaled(local.Z, w)
	}
	return p
}

// VelocityAt returns the body's velocity (m/s) at a contact's point.
func (b *Body) VelocityAt(c *Contact) geom.Vec3 {
	b.ensureFollowed()
	t := b.tris[c.Tri]
	return b.vel[t[0]].Scale(c.Bary[0]).AddScaled(c.Bary[1], b.vel[t[1]]).AddScaled(c.Bary[2], b.vel[t[2]])
}

// SignedDistance returns the contact of p with the body in its current
// position (Tri = -1 for an empty body).
func (b *Body) SignedDistance(p geom.Vec3) Contact {
	b.ensure()
	h := b.bvh.ClosestPoint(p)
	if h.Tri < 0 {
		return Contact{Tri: -1, Dist: math.Inf(1)}
	}
	return b.classify(p, h)
}

// Query is SignedDistance restricted to points within maxDist (unsigned,
// m) of the surface; it reports false if there is none.
func (b *Body) Query(p geom.Vec3, maxDist float64) (Contact, bool) {
	b.ensure()
	h, ok := b.bvh.ClosestPointWithin(p, maxDist)
	if !ok {
		return Contact{Tri: -1, Dist: math.Inf(1)}, false
	}
	return b.classify(p, h), true
}

// QueryHint is Query started from a hint: a triangle that was close to p
// last time (its id in the body mesh; -1 for none), searched outward from
// it (mesh.BVH.ClosestPointFrom): for points that move little between
// queries it is several times faster than Query. The contact is Query's,
// except that among equally close triangles it names the hint.
func (b *Body) QueryHint(p geom.Vec3, maxDist float64, hint int32) (Contact, bool) {
	b.ensure()
	return b.queryHint(p, maxDist, hint) // an out-of-range hint is ignored
}

// queryHint is QueryHint on a body known to be up to date.
func (b *Body) queryHint(p geom.Vec3, maxDist float64, hint int32) (Contact, bool) {
	h, ok := b.bvh.ClosestPointFrom(p, maxDist, hint)
	if !ok {
		return Contact{Tri: -1, Dist: math.Inf(1)}, false
	}
	return b.classify(p, h), true
}

// nearHint is queryHint without the sign: the contact's Dist is the
// unsigned distance and its Normal is zero; Tri, Bary, Point, Feature and
// Boundary are queryHint's. It spares the pseudo-normal (a sum over the
// feature's triangles, with an angle per triangle at a vertex) that the
// sign needs, for callers that take the side from another normal
// (BodyOverlap, Through).
func (b *Body) nearHint(p geom.Vec3, maxDist float64, hint int32) (Contact, bool) {
	h, ok := b.bvh.ClosestPointFrom(p, maxDist, hint)
	if !ok {
		return Contact{Tri: -1, Dist: math.Inf(1)}, false
	}
	c := Contact{Tri: h.Tri, Bary: h.Bary, Point: h.Point, Dist: math.Sqrt(h.Dist2)}
	c.Feature, c.Boundary = b.feature(h.Tri, h.Bary)
	return c, true
}

// feature returns the feature of triangle t that contains the point with
// barycentrics bary, and whether it lies on the mesh's boundary, as
// pseudoNormal finds them.
func (b *Body) feature(t int32, bary [3]float64) (Feature, bool) {
	zeros, zi, nz := baryZeros(bary)
	switch zeros {
	case 0:
		return FeatureFace, false
	case 1:
		return FeatureEdge, b.top.IsBoundaryEdge(b.top.TriEdges[t][(zi+1)%3])
	default:
		return FeatureVertex, b.top.IsBoundary(b.tris[t][nz])
	}
}

// baryZeros counts the zero (or negative) barycentrics of a closest point:
// none on a face, one on an edge (zi is the corner opposite it), two at a
// vertex (nz is that corner).
func baryZeros(bary [3]float64) (zeros, zi, nz int) {
	zi, nz = -1, -1
	for k := 0; k < 3; k++ {
		if bary[k] <= 0 {
			zeros++
			zi = k
		} else {
			nz = k
		}
	}
	return zeros, zi, nz
}

// classify turns a closest-point hit into a signed contact.
func (b *Body) classify(p geom.Vec3, h mesh.Hit) Contact {
	c := Contact{Tri: h.Tri, Bary: h.Bary, Point: h.Point}
	n, feat, bnd := b.pseudoNormal(h.Tri, h.Bary)
	if b.Flip {
		n = n.Neg()
	}
	c.Feature, c.Boundary = feat, bnd
	d := p.Sub(h.Point)
	dist := math.Sqrt(h.Dist2)
	s := d.Dot(n)
	ln := n.Len()
	// A point whose closest feature is on a boundary of an open mesh lies
	// beyond the surface's extent (above a waistband, in a neck opening), not
	// behind it: it is outside, at its distance from the rim.
	inside := s < 0 && !bnd
	if dist > 1e-12 {
		c.Normal = d.Scale(1 / dist)
		if inside {
			c.Normal = c.Normal.Neg()
		}
	} else if ln > 0 {
		c.Normal = n.Scale(1 / ln)
	}
	c.Dist = dist
	if inside {
		c.Dist = -dist
	}
	return c
}

// pseudoNormal returns the (unnormalised) angle-weighted pseudo-normal of
// the feature of triangle t that contains the point with barycentrics bary.
func (b *Body) pseudoNormal(t int32, bary [3]float64) (geom.Vec3, Feature, bool) {
	zeros, zi, nz := baryZeros(bary)
	switch zeros {
	case 0:
		return b.faceNormal(t), FeatureFace, false
	case 1:
		e := b.top.TriEdges[t][(zi+1)%3]
		var n geom.Vec3
		for _, f := range b.top.EdgeTriangles(e) {
			n = n.Add(b.faceNormal(f))
		}
		return n, FeatureEdge, b.top.IsBoundaryEdge(e)
	default:
		v := b.tris[t][nz]
		var n geom.Vec3
		for _, f := range b.top.VertTriangles(v) {
			n = n.AddScaled(b.cornerAngle(f, v), b.faceNormal(f))
		}
		return n, FeatureVertex, b.top.IsBoundary(v)
	}
}

// faceNormal returns triangle t's unit normal (zero if degenerate).
func (b *Body) faceNormal(t int32) geom.Vec3 {
	tr := b.tris[t]
	n := geom.TriangleNormal(b.x[tr[0]], b.x[tr[1]], b.x[tr[2]])
	if l := n.Len(); l > 0 {
		return n.Scale(1 / l)
	}
	return n
}

// cornerAngle returns the interior angle of triangle t at its vertex v.
func (b *Body) cornerAngle(t int32, v int32) float64 {
	tr := b.tris[t]
	k := 0
	for tr[k] != v {
		k++
	}
	p := b.x[v]
	return b.x[tr[(k+1)%3]].Sub(p).Angle(b.x[tr[(k+2)%3]].Sub(p))
}
