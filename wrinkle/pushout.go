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
}

// Add accumulates o into s (counts summed, depth maximised).
func (s *PushStats) Add(o PushStats) {
	s.Inside += o.Inside
	s.Deep += o.Deep
	s.Pushed += o.Pushed
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
// Set the body's positions each frame with SetBody; a BodyPush keeps a
// closest-triangle hint per garment point, allocates nothing per frame and
// is not safe for concurrent use. Push splits the points over Workers
// goroutines in fixed chunks; each point's result depends only on the
// point and its own hint, and the chunks' stats are combined in chunk
// order, so results do not depend on the worker count. Close ends the
// helpers.
type BodyPush struct {
	// Thickness is the safety distance, m (NewBodyPush: 0 means 3 mm, the
	// simulator's default); Reach the search distance, m (0 means 5 cm).
	Thickness, Reach float64
	// Workers is the number of goroutines of Push and SetBody (the
	// caller's and Workers−1 helpers); 0 means runtime.GOMAXPROCS(0).
	Workers int
	bvh     *mesh.BVH
	m       mesh.Mesh // the body's triangles and current positions
	top     *mesh.Topology
	fn, vn  []geom.Vec3 // face and vertex normals
	hint    []int32

	pool    *pool
	p       []geom.Vec3 // the running Push's points
	part    []PushStats // per chunk of the running Push
	pushFn  func(lo, hi int)
	refitFn func(lo, hi int)
}

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
		m: mesh.Mesh{Verts: append([]geom.Vec3(nil), rest...), Tris: tris}, hint: make([]int32, n)}
	top, err := mesh.NewTopology(&b.m)
	if err != nil {
		return nil, fmt.Errorf("wrinkle: body: %w", err)
	}
	b.top = top
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
	if np := b.bvh.RefitParts(); len(x) >= refitSerialBelow && np > 1 {
		b.workers().run(np, 1, b.refitFn)
		b.bvh.RefitTop()
	} else {
		b.bvh.Refit(b.m.Verts)
	}
	b.normals()
	return nil
}

// refitRange refits the BVH's parts [lo, hi).
func (b *BodyPush) refitRange(lo, hi int) {
	for i := lo; i < hi; i++ {
		b.bvh.RefitPart(b.m.Verts, i)
	}
}

func (b *BodyPush) normals() {
	b.fn = mesh.FaceNormals(&b.m, b.fn)
	b.vn = mesh.VertexNormals(&b.m, b.vn)
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
	t := b.m.Tris[tri]
	switch zero {
	case 2: // a corner: the one with weight ~1
		for i, c := range w {
			if c > eps {
				return b.vn[t[i]]
			}
		}
	case 1: // the edge opposite corner k
		e := b.top.TriEdges[tri][(k+1)%3]
		var n geom.Vec3
		for _, ot := range b.top.EdgeTriangles(e) {
			n = n.Add(b.fn[ot])
		}
		return n
	}
	return b.fn[tri]
}

// Push moves the points p (the garment's, in its vertex order: the hints
// follow the index) out of the body and reports what they were before.
func (b *BodyPush) Push(p []geom.Vec3) (PushStats, error) {
	var st PushStats
	if len(p) != len(b.hint) {
		return st, fmt.Errorf("wrinkle: push-out of %d points, prepared for %d", len(p), len(b.hint))
	}
	b.p = p
	if len(p) < transferSerialBelow {
		for lo := 0; lo < len(p); lo += pushChunk {
			b.pushRange(lo, min(lo+pushChunk, len(p)))
		}
	} else {
		b.workers().run(len(p), pushChunk, b.pushFn)
	}
	b.p = nil
	for _, ps := range b.part {
		st.Add(ps)
	}
	return st, nil
}

// pushRange pushes points [lo, hi), a chunk of pushChunk, and stores the
// chunk's stats.
func (b *BodyPush) pushRange(lo, hi int) {
	var st PushStats
	for i := lo; i < hi; i++ {
		b.pushPoint(i, &st)
	}
	b.part[lo/pushChunk] = st
}

// pushPoint moves point i out of the body and counts it into st.
func (b *BodyPush) pushPoint(i int, st *PushStats) {
	x := b.p[i]
	h, ok := b.bvh.ClosestPointFrom(x, b.Reach, b.hint[i])
	if !ok {
		return
	}
	b.hint[i] = h.Tri
	d := x.Sub(h.Point)
	dist := d.Len()
	pn := b.pseudoNormal(h.Tri, h.Bary)
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
		b.p[i] = h.Point.Add(m.Scale(b.Thickness))
		st.Pushed++
	}
}
