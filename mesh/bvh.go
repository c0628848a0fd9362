package mesh

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pleat-dev/pleat/geom"
)

// BVH is a bounding volume hierarchy of axis-aligned boxes over a triangle
// mesh, for closest-point and ray queries against a (possibly moving) body.
//
// The tree is built once by NewBVH with a binned surface-area heuristic
// (SAH, 16 bins on the longest centroid axis; Wald, "On fast construction of
// SAH-based bounding volume hierarchies", 2007) down to leaves of at most
// 4 triangles, and stored as a flat depth-first node array. Refit moves it
// to new positions of the same vertices without rebuilding, which keeps
// queries exact but slower if the motion is large relative to the mesh.
//
// The BVH keeps its own copy of the vertex positions; it keeps no reference
// to the slices passed to NewBVH or Refit. Refit bounds each leaf by the
// distinct vertices of its triangles (listed once by NewBVH). Keeping a
// copy of the three corners of every triangle in leaf order instead, for
// locality, made queries no faster and Refit 2.5 times slower (16 against
// 6.5 ns per triangle; BenchmarkRefit). Queries are safe for concurrent
// use; Refit is not safe concurrently with queries.
type BVH struct {
	nodes  []bvhNode
	tris   [][3]int32  // triangles in leaf order
	ids    []int32     // leaf slot → input triangle id
	vx     []geom.Vec3 // vertex positions (a copy)
	nverts int

	// The split of Refit into parts (RefitPart, RefitTop): parts are node
	// ranges [lo, hi) of disjoint subtrees, top the nodes above them in
	// reverse depth-first order.
	parts [][2]int32
	top   []int32

	// For searches started at a triangle (ClosestPointFrom): each node's
	// parent (-1 for the root), the leaf slot of each input triangle and the
	// leaf node of each slot.
	parent []int32
	slotOf []int32
	leafOf []int32

	// leafVert[leafStart[k]:leafStart[k+1]] are the distinct vertices of
	// the triangles of leaf k (leaves numbered in node order): Refit bounds
	// a leaf by them (6 instead of 12 corners on a closed mesh).
	leafStart []int32
	leafVert  []int32
	leafNum   []int32 // node → its leaf number (-1 for inner nodes)

	// For RefitVerts (listed by its first call): the leaf nodes of each
	// vertex, vertLeaf[vertLeafStart[v]:vertLeafStart[v+1]], and scratch.
	vertLeafStart, vertLeaf []int32
	dirty                   []int32
	stamp                   []uint32 // per node: the call that listed it
	gen                     uint32
}

// bvhNode is one node of the flat tree. An inner node (count == 0) has its
// first child at the next index and its second at idx; a leaf holds leaf
// slots idx to idx+count-1.
type bvhNode struct {
	min, max geom.Vec3
	idx      int32
	count    int32
}

const (
	bvhLeafSize = 4
	bvhBins     = 16
	bvhMaxDepth = 60 // deeper nodes become leaves; traversal stacks hold 64
)

// Hit is the result of a closest-point query.
type Hit struct {
	// Tri is the input triangle index of the closest triangle, -1 for none.
	Tri int32
	// Point is the closest point on the mesh.
	Point geom.Vec3
	// Bary are the barycentric coordinates of Point with respect to the
	// triangle's corners Tris[Tri][0..2]: Point = Σ Bary[i]·v[i], Bary[i] ≥ 0
	// and Σ Bary[i] = 1 (to rounding).
	Bary [3]float64
	// Dist2 is the squared distance |Point - query|², in m².
	Dist2 float64
}

// RayHit is the result of a ray query.
type RayHit struct {
	// Tri is the input triangle index hit.
	Tri int32
	// T is the ray parameter of the hit: the point is orig + T·dir.
	T float64
	// Bary are the barycentric coordinates of the hit point in the triangle
	// (as in Hit).
	Bary [3]float64
}

// NewBVH builds a BVH over triangles tris of vertex positions verts. Input
// triangle ids are reported by queries. verts and tris are not retained.
// It panics if a triangle indexes outside verts.
func NewBVH(verts []geom.Vec3, tris [][3]int32) *BVH {
	nt := len(tris)
	b := &BVH{nverts: len(verts)}
	if nt == 0 {
		return b
	}
	nv := int32(len(verts))
	cent := make([]geom.Vec3, nt)
	boxes := make([]geom.Box, nt)
	for i, t := range tris {
		for _, k := range t {
			if k < 0 || k >= nv {
				panic(fmt.Sprintf("mesh: NewBVH triangle %d has vertex %d out of range [0,%d)", i, k, nv))
			}
		}
		a, c, d := verts[t[0]], verts[t[1]], verts[t[2]]
		bx := geom.Box{Min: bvhMin(bvhMin(a, c), d), Max: bvhMax(bvhMax(a, c), d)}
		boxes[i] = bx
		cent[i] = bx.Center()
	}
	ids := make([]int32, nt)
	for i := range ids {
		ids[i] = int32(i)
	}
	bld := bvhBuilder{cent: cent, boxes: boxes, ids: ids}
	bld.nodes = make([]bvhNode, 0, 2*(nt/bvhLeafSize+1))
	bld.build(0, nt, 0)
	b.nodes = bld.nodes
	b.ids = ids
	b.tris = make([][3]int32, nt)
	for s, id := range ids {
		b.tris[s] = tris[id]
	}
	b.vx = make([]geom.Vec3, len(verts))
	if len(b.nodes) > 0 {
		b.split(0, 0)
		slices.Reverse(b.top)
	}
	// Per node its parent and leaf number; per leaf its distinct vertices;
	// per slot its leaf node; per input triangle its slot.
	b.parent = make([]int32, len(b.nodes))
	b.leafNum = make([]int32, len(b.nodes))
	b.leafStart = []int32{0}
	b.slotOf = make([]int32, nt)
	b.leafOf = make([]int32, nt)
	b.parent[0] = -1
	for i := range b.nodes {
		n := &b.nodes[i]
		b.leafNum[i] = -1
		if n.count == 0 {
			b.parent[i+1], b.parent[n.idx] = int32(i), int32(i)
			continue
		}
		b.leafNum[i] = int32(len(b.leafStart) - 1)
		lo := len(b.leafVert)
		for s := n.idx; s < n.idx+n.count; s++ {
			b.slotOf[b.ids[s]], b.leafOf[s] = s, int32(i)
			for _, v := range b.tris[s] {
				if !slices.Contains(b.leafVert[lo:], v) {
					b.leafVert = append(b.leafVert, v)
				}
			}
		}
		slices.Sort(b.leafVert[lo:])
		b.leafStart = append(b.leafStart, int32(len(b.leafVert)))
	}
	b.Refit(verts)
	return b
}

// bvhPartDepth is the depth of the subtrees Refit is split into (up to
// 2^bvhPartDepth parts).
const bvhPartDepth = 3

// split assigns the subtree of node i at depth d to the parts or, above
// bvhPartDepth, to the top; it returns the end of the subtree's node range.
func (b *BVH) split(i int32, d int) int32 {
	n := &b.nodes[i]
	if d == bvhPartDepth || n.count > 0 {
		end := b.subtreeEnd(i)
		b.parts = append(b.parts, [2]int32{i, end})
		return end
	}
	b.top = append(b.top, i)
	b.split(i+1, d+1)
	return b.split(n.idx, d+1)
}

// subtreeEnd returns the index after the last node of node i's subtree.
func (b *BVH) subtreeEnd(i int32) int32 {
	for b.nodes[i].count == 0 {
		i = b.nodes[i].idx // the right child's subtree comes last
	}
	return i + 1
}

type bvhBuilder struct {
	cent  []geom.Vec3
	boxes []geom.Box
	ids   []int32
	nodes []bvhNode
}

func bvhArea(b geom.Box) float64 {
	s := b.Size()
	return s.X*s.Y + s.Y*s.Z + s.Z*s.X
}

// build appends the subtree over leaf slots [lo, hi) and returns its index.
func (bb *bvhBuilder) build(lo, hi, depth int) int32 {
	self := int32(len(bb.nodes))
	bb.nodes = append(bb.nodes, bvhNode{})
	n := hi - lo
	cb := geom.EmptyBox()
	for _, id := range bb.ids[lo:hi] {
		cb = geom.Box{Min: bvhMin(cb.Min, bb.cent[id]), Max: bvhMax(cb.Max, bb.cent[id])}
	}
	if n <= bvhLeafSize || depth >= bvhMaxDepth {
		bb.nodes[self] = bvhNode{idx: int32(lo), count: int32(n)}
		return self
	}
	axis := cb.LongestAxis()
	cmin, ext := cb.Min.At(axis), cb.Size().At(axis)
	mid := -1
	if ext > 0 {
		mid = bb.sahSplit(lo, hi, axis, cmin, ext)
	}
	if mid <= lo || mid >= hi {
		// All centroids coincide or SAH found no split: halve by the order of
		// centroids on the axis (ties by id, so the build is deterministic).
		mid = lo + n/2
		bvhSelect(bb.ids[lo:hi], n/2, bb.cent, axis)
	}
	bb.build(lo, mid, depth+1)
	right := bb.build(mid, hi, depth+1)
	bb.nodes[self] = bvhNode{idx: right}
	return self
}

// sahSplit bins [lo, hi) on axis, picks the bin boundary of least
// SAH cost nL·A(L) + nR·A(R), partitions the ids and returns the split slot.
func (bb *bvhBuilder) sahSplit(lo, hi, axis int, cmin, ext float64) int {
	var cnt [bvhBins]int
	var box [bvhBins]geom.Box
	for i := range box {
		box[i] = geom.EmptyBox()
	}
	scale := bvhBins / ext
	bin := func(id int32) int {
		k := int((bb.cent[id].At(axis) - cmin) * scale)
		return min(max(k, 0), bvhBins-1)
	}
	for _, id := range bb.ids[lo:hi] {
		k := bin(id)
		cnt[k]++
		box[k] = bvhUnion(box[k], bb.boxes[id])
	}
	// Suffix sweep for right sides.
	var rArea [bvhBins]float64
	var rCnt [bvhBins]int
	rb, rc := geom.EmptyBox(), 0
	for k := bvhBins - 1; k > 0; k-- {
		rb, rc = bvhUnion(rb, box[k]), rc+cnt[k]
		rArea[k], rCnt[k] = bvhArea(rb), rc
	}
	best, bestK := math.Inf(1), -1
	lb, lc := geom.EmptyBox(), 0
	for k := 1; k < bvhBins; k++ {
		lb, lc = bvhUnion(lb, box[k-1]), lc+cnt[k-1]
		if lc == 0 || rCnt[k] == 0 {
			continue
		}
		if c := float64(lc)*bvhArea(lb) + float64(rCnt[k])*rArea[k]; c < best {
			best, bestK = c, k
		}
	}
	if bestK < 0 {
		return -1
	}
	// Partition in place: ids in bins left of the boundary first.
	i, j := lo, hi-1
	for i <= j {
		if bin(bb.ids[i]) < bestK {
			i++
		} else {
			bb.ids[i], bb.ids[j] = bb.ids[j], bb.ids[i]
			j--
		}
	}
	return i
}

// bvhSelect reorders ids so that ids[k] is the element of rank k by
// (centroid on axis, id) and smaller elements come before it (quickselect
// with median-of-three pivots; deterministic).
func bvhSelect(ids []int32, k int, cent []geom.Vec3, axis int) {
	less := func(a, b int32) bool {
		ca, cb := cent[a].At(axis), cent[b].At(axis)
		return ca < cb || (ca == cb && a < b)
	}
	lo, hi := 0, len(ids)-1
	for hi > lo {
		m := lo + (hi-lo)/2
		if less(ids[m], ids[lo]) {
			ids[m], ids[lo] = ids[lo], ids[m]
		}
		if less(ids[hi], ids[lo]) {
			ids[hi], ids[lo] = ids[lo], ids[hi]
		}
		if less(ids[hi], ids[m]) {
			ids[hi], ids[m] = ids[m], ids[hi]
		}
		piv := ids[m]
		i, j := lo, hi
		for i <= j {
			for less(ids[i], piv) {
				i++
			}
			for less(piv, ids[j]) {
				j--
			}
			if i <= j {
				ids[i], ids[j] = ids[j], ids[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// NumTris returns the number of triangles in the hierarchy.
func (b *BVH) NumTris() int { return len(b.tris) }

// Bounds returns the bounding box of all triangles (EmptyBox if none).
func (b *BVH) Bounds() geom.Box {
	if len(b.nodes) == 0 {
		return geom.EmptyBox()
	}
	return geom.Box{Min: b.nodes[0].min, Max: b.nodes[0].max}
}

// Refit updates the hierarchy to new positions verts of the same vertices
// (same count and triangles as given to NewBVH): it recomputes the corner
// copies and every node box bottom-up, in O(triangles) with no allocation.
// The tree structure is kept, so queries stay exact. It panics if len(verts)
// differs from the count given to NewBVH.
func (b *BVH) Refit(verts []geom.Vec3) {
	if len(verts) != b.nverts {
		panic(fmt.Sprintf("mesh: BVH.Refit got %d vertices, built with %d", len(verts), b.nverts))
	}
	for i := range b.parts {
		b.RefitPart(verts, i)
	}
	b.RefitTop()
}

// RefitParts returns the number of parts Refit can be split into: calling
// RefitPart(verts, i) for every i in [0, RefitParts()), in any order and
// concurrently, and then RefitTop, does what Refit(verts) does (with the
// same results). It lets goroutines share a refit.
func (b *BVH) RefitParts() int { return len(b.parts) }

// RefitPart refits part i of the tree to verts (see RefitParts). It panics
// if len(verts) differs from the count given to NewBVH.
func (b *BVH) RefitPart(verts []geom.Vec3, i int) {
	if len(verts) != b.nverts {
		panic(fmt.Sprintf("mesh: BVH.RefitPart got %d vertices, built with %d", len(verts), b.nverts))
	}
	// Part i copies its share of the vertices and bounds its subtree's
	// leaves from verts.
	np := len(b.parts)
	copy(b.vx[i*b.nverts/np:(i+1)*b.nverts/np], verts[i*b.nverts/np:(i+1)*b.nverts/np])
	p := b.parts[i]
	for j := p[1] - 1; j >= p[0]; j-- {
		b.fitNode(verts, j)
	}
}

// fitNode bounds node j: a leaf by its distinct vertices at verts, an
// inner node by its children's boxes (which must be fitted).
func (b *BVH) fitNode(verts []geom.Vec3, j int32) {
	n := &b.nodes[j]
	if n.count > 0 {
		k := b.leafNum[j]
		vs := b.leafVert[b.leafStart[k]:b.leafStart[k+1]]
		lo := verts[vs[0]]
		hi := lo
		for _, v := range vs[1:] {
			q := verts[v]
			lo, hi = bvhMin(lo, q), bvhMax(hi, q)
		}
		n.min, n.max = lo, hi
		return
	}
	l, r := &b.nodes[j+1], &b.nodes[n.idx]
	n.min, n.max = bvhMin(l.min, r.min), bvhMax(l.max, r.max)
}

// RefitTop refits the nodes above the parts (see RefitParts), once every
// part is refitted.
func (b *BVH) RefitTop() {
	for _, j := range b.top {
		n := &b.nodes[j]
		l, r := &b.nodes[j+1], &b.nodes[n.idx]
		n.min, n.max = bvhMin(l.min, r.min), bvhMax(l.max, r.max)
	}
}

// Clone returns a copy of b that can be refitted independently of it (the
// tree structure, which never changes, is shared).
func (b *BVH) Clone() *BVH {
	c := *b
	c.nodes = append([]bvhNode(nil), b.nodes...)
	c.vx = append([]geom.Vec3(nil), b.vx...)
	c.dirty, c.stamp, c.gen = nil, nil, 0
	c.vertLeafStart, c.vertLeaf = nil, nil
	return &c
}

// bvhMin and bvhMax are geom.Vec3.Min and Max with the builtin min and
// max, which compile to a few instructions (math.Min does not inline).
func bvhMin(a, b geom.Vec3) geom.Vec3 {
	return geom.Vec3{X: min(a.X, b.X), Y: min(a.Y, b.Y), Z: min(a.Z, b.Z)}
}
func bvhMax(a, b geom.Vec3) geom.Vec3 {
	return geom.Vec3{X: max(a.X, b.X), Y: max(a.Y, b.Y), Z: max(a.Z, b.Z)}
}

func bvhUnion(a, b geom.Box) geom.Box {
	return geom.Box{Min: bvhMin(a.Min, b.Min), Max: bvhMax(a.Max, b.Max)}
}

// bvhBoxDist2 is the squared distance from p to the node's box (0 inside).
func bvhBoxDist2(n *bvhNode, p geom.Vec3) float64 {
	dx := max(n.min.X-p.X, p.X-n.max.X, 0)
	dy := max(n.min.Y-p.Y, p.Y-n.max.Y, 0)
	dz := max(n.min.Z-p.Z, p.Z-n.max.Z, 0)
	return dx*dx + dy*dy + dz*dz
}

type bvhEntry struct {
	node int32
	d    float64
}

// ClosestPoint returns the point of the mesh closest to p. With no
// triangles it returns Tri = -1 and Dist2 = +Inf. Among equally close
// triangles (p closest to a shared edge or vertex) the one found first is
// returned; the choice is deterministic for a given BVH.
func (b *BVH) ClosestPoint(p geom.Vec3) Hit {
	h, _ := b.closest(p, math.Inf(1))
	return h
}

// ClosestOnTriangle returns the point of triangle (a, b, c) closest to p
// and its barycentric coordinates (Ericson, "Real-Time Collision
// Detection", 2005, §5.1.5), with the same bits as the BVH's queries: a
// caller that narrows the candidates by other means (a walk over the
// mesh's adjacency) gets a query's Point and Bary where it picks the same
// triangle. Coordinates are exactly 0 off the closest feature (an edge or
// a corner); a zero-area triangle is taken as its three edges.
func ClosestOnTriangle(p, a, b, c geom.Vec3) (geom.Vec3, [3]float64) {
	return bvhClosestOnTri(p, a, b, c)
}

// ClosestPointWithin is ClosestPoint restricted to Dist2 ≤ maxDist²; it
// reports false (and Tri = -1) if no triangle is that close or maxDist is
// negative or NaN. A small maxDist
// prunes most of the tree, so it is faster than ClosestPoint for contact
// queries.
func (b *BVH) ClosestPointWithin(p geom.Vec3, maxDist float64) (Hit, bool) {
	if !(maxDist >= 0) {
		return Hit{Tri: -1, Dist2: math.Inf(1)}, false
	}
	return b.closest(p, math.Nextafter(maxDist*maxDist, math.Inf(1)))
}

// LowerBound returns a lower bound of the distance from p to the mesh: the
// distance to the nearest box of the subtrees Refit is split into (at most
// 2^3 box tests; every triangle lies in one of them). A query that finds
// nothing within maxDist proves only maxDist; this often proves far more
// for a point off to one side of the mesh. It returns +Inf for an empty
// BVH.
func (b *BVH) LowerBound(p geom.Vec3) float64 {
	best := math.Inf(1)
	for _, pr := range b.parts {
		best = min(best, bvhBoxDist2(&b.nodes[pr[0]], p))
	}
	return math.Sqrt(best)
}

// closest finds the closest point with Dist2 < bound.
func (b *BVH) closest(p geom.Vec3, bound float64) (Hit, bool) {
	s := bvhSearch{p: p, best: bound, slot: -1}
	if len(b.nodes) > 0 && bvhBoxDist2(&b.nodes[0], p) < s.best {
		b.descend(&s, 0)
	}
	return b.result(&s)
}

// ClosestPointFrom is ClosestPointWithin searched outward from triangle
// hint (an input triangle id): the hint first, then the other triangles
// of its leaf, then, up the path to the root, every sibling subtree whose
// box is closer than the best so far. For a point near the hint this tests
// one box per level instead of two, and the hint's distance bounds the
// search from the start. The result is ClosestPointWithin's, except among
// equally close triangles, where the hint (then the triangle found first)
// is returned. A hint out of range is ignored.
func (b *BVH) ClosestPointFrom(p geom.Vec3, maxDist float64, hint int32) (Hit, bool) {
	if !(maxDist >= 0) {
		return Hit{Tri: -1, Dist2: math.Inf(1)}, false
	}
	if hint < 0 || int(hint) >= len(b.slotOf) {
		return b.ClosestPointWithin(p, maxDist)
	}
	s := bvhSearch{p: p, best: math.Nextafter(maxDist*maxDist, math.Inf(1)), slot: -1}
	hs := b.slotOf[hint]
	b.scan(&s, hs, hs+1, -1)
	b.searchFrom(&s, hs)
	return b.result(&s)
}

// ClosestPointFromHit is ClosestPointFrom(p, maxDist, h.Tri) for a caller
// that has the closest point h to p on triangle h.Tri already (from
// ClosestOnTriangle on the positions of the last Refit, with Dist2 summed
// as |Point − p|² in x, y, z order, as a walk over the mesh gets it): it
// takes h as the hint's test and returns the same result, one triangle
// test sooner. h.Tri out of range gives ClosestPointWithin.
func (b *BVH) ClosestPointFromHit(p geom.Vec3, maxDist float64, h Hit) (Hit, bool) {
	if !(maxDist >= 0) {
		return Hit{Tri: -1, Dist2: math.Inf(1)}, false
	}
	if h.Tri < 0 || int(h.Tri) >= len(b.slotOf) {
		return b.ClosestPointWithin(p, maxDist)
	}
	s := bvhSearch{p: p, best: math.Nextafter(maxDist*maxDist, math.Inf(1)), slot: -1}
	hs := b.slotOf[h.Tri]
	if h.Dist2 < s.best {
		s.best, s.slot = h.Dist2, hs
		s.hit.Point, s.hit.Bary = h.Point, h.Bary
	}
	b.searchFrom(&s, hs)
	return b.result(&s)
}

// searchFrom goes on with search s from leaf slot hs, whose own triangle
// has been tested: the other triangles of its leaf, then up the path to
// the root every sibling subtree whose box is closer than the best so far.
func (b *BVH) searchFrom(s *bvhSearch, hs int32) {
	p := s.p
	node := b.leafOf[hs]
	n := &b.nodes[node]
	b.scan(s, n.idx, n.idx+n.count, hs)
	var stack bvhStack
	for cur := node; cur != 0; {
		par := b.parent[cur]
		sib := par + 1
		if sib == cur {
			sib = b.nodes[par].idx
		}
		if bvhBoxDist2(&b.nodes[sib], p) < s.best {
			b.descendWith(s, sib, &stack)
		}
		cur = par
	}
}

// bvhSearch is the state of a closest-point search: the query point, the
// squared distance to beat and the best triangle slot and hit so far.
type bvhSearch struct {
	p    geom.Vec3
	best float64
	slot int32
	hit  Hit
}

// scan tests leaf slots [lo, hi) but skip.
func (b *BVH) scan(s *bvhSearch, lo, hi, skip int32) {
	p := s.p
	for t := lo; t < hi; t++ {
		if t == skip {
			continue
		}
		tr := &b.tris[t]
		q, bary := bvhClosestOnTri(p, b.vx[tr[0]], b.vx[tr[1]], b.vx[tr[2]])
		dx, dy, dz := q.X-p.X, q.Y-p.Y, q.Z-p.Z
		if d2 := dx*dx + dy*dy + dz*dz; d2 < s.best {
			s.best, s.slot = d2, t
			s.hit.Point, s.hit.Bary = q, bary
		}
	}
}

// result returns the search's hit.
func (b *BVH) result(s *bvhSearch) (Hit, bool) {
	if s.slot < 0 {
		return Hit{Tri: -1, Dist2: math.Inf(1)}, false
	}
	h := s.hit
	h.Tri, h.Dist2 = b.ids[s.slot], s.best
	return h, true
}

// bvhStack is the stack of subtrees still to search, with their box
// distances (bvhMaxDepth bounds its use).
type bvhStack [64]bvhEntry

// descend searches the subtree at node (whose box is closer than s.best)
// depth first, nearer child first.
func (b *BVH) descend(s *bvhSearch, node int32) {
	var stack bvhStack
	b.descendWith(s, node, &stack)
}

// descendWith is descend on the caller's (empty) stack.
func (b *BVH) descendWith(s *bvhSearch, node int32, stack *bvhStack) {
	p := s.p
	sp := 0
	for {
		n := &b.nodes[node]
		if n.count > 0 {
			b.scan(s, n.idx, n.idx+n.count, -1)
		} else {
			l, r := node+1, n.idx
			dl, dr := bvhBoxDist2(&b.nodes[l], p), bvhBoxDist2(&b.nodes[r], p)
			if dr < dl {
				l, r, dl, dr = r, l, dr, dl
			}
			if dl < s.best {
				if dr < s.best {
					stack[sp] = bvhEntry{r, dr}
					sp++
				}
				node = l
				continue
			}
		}
		// Pop the next subtree that can still hold a closer point.
		for {
			if sp == 0 {
				return
			}
			sp--
			if stack[sp].d < s.best {
				node = stack[sp].node
				break
			}
		}
	}
}

// bvhClosestOnTri returns the point of triangle (a, b, c) closest to p and
// its barycentric coordinates, by Voronoi-region tests (Ericson, Real-Time
// Collision Detection, §5.1.5 ClosestPtPointTriangle). Degenerate
// (zero-area) triangles fall back to the closest point on the three edges.
func bvhClosestOnTri(p, a, b, c geom.Vec3) (geom.Vec3, [3]float64) {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, [3]float64{1, 0, 0} // vertex region a
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, [3]float64{0, 1, 0} // vertex region b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		den := d1 - d3 // = |ab|²
		if !(den > 0) {
			return bvhClosestOnDegenerate(p, a, b, c)
		}
		v := d1 / den // edge region ab
		return a.AddScaled(v, ab), [3]float64{1 - v, v, 0}
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c, [3]float64{0, 0, 1} // vertex region c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		den := d2 - d6 // = |ac|²
		if !(den > 0) {
			return bvhClosestOnDegenerate(p, a, b, c)
		}
		w := d2 / den // edge region ac
		return a.AddScaled(w, ac), [3]float64{1 - w, 0, w}
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		den := (d4 - d3) + (d5 - d6) // = |bc|²
		if !(den > 0) {
			return bvhClosestOnDegenerate(p, a, b, c)
		}
		w := (d4 - d3) / den // edge region bc
		return b.AddScaled(w, c.Sub(b)), [3]float64{0, 1 - w, w}
	}
	den := va + vb + vc // = |ab×ac|²
	if !(den > 0) {
		return bvhClosestOnDegenerate(p, a, b, c)
	}
	v, w := vb/den, vc/den // face region
	return a.AddScaled(v, ab).AddScaled(w, ac), [3]float64{1 - v - w, v, w}
}

// bvhClosestOnDegenerate handles zero-area triangles as three segments.
func bvhClosestOnDegenerate(p, a, b, c geom.Vec3) (geom.Vec3, [3]float64) {
	q, t := bvhClosestOnSegment(p, a, b)
	bestQ, bestB := q, [3]float64{1 - t, t, 0}
	best := q.Dist2(p)
	if q, t := bvhClosestOnSegment(p, b, c); q.Dist2(p) < best {
		bestQ, bestB, best = q, [3]float64{0, 1 - t, t}, q.Dist2(p)
	}
	if q, t := bvhClosestOnSegment(p, c, a); q.Dist2(p) < best {
		bestQ, bestB = q, [3]float64{t, 0, 1 - t}
	}
	return bestQ, bestB
}

// bvhClosestOnSegment returns the closest point a + t(b-a), t ∈ [0,1], to p.
func bvhClosestOnSegment(p, a, b geom.Vec3) (geom.Vec3, float64) {
	ab := b.Sub(a)
	l2 := ab.Len2()
	if !(l2 > 0) {
		return a, 0
	}
	t := min(max(p.Sub(a).Dot(ab)/l2, 0), 1)
	return a.AddScaled(t, ab), t
}

// ClosestPoints runs ClosestPoint for every point, storing the results in
// dst (reused when it has the capacity) and returning it. The points are
// cut into fixed chunks of 256 that workers goroutines take in turn
// (workers ≤ 0 means runtime.GOMAXPROCS(0)); each result depends only on its
// point, so the output is identical to a serial run for any workers.
func (b *BVH) ClosestPoints(dst []Hit, points []geom.Vec3, workers int) []Hit {
	dst = sdResize(dst, len(points))
	const chunk = 256
	nchunks := (len(points) + chunk - 1) / chunk
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, nchunks)
	if workers <= 1 {
		for i, p := range points {
			dst[i] = b.ClosestPoint(p)
		}
		return dst
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= nchunks {
					return
				}
				hi := min((c+1)*chunk, len(points))
				for i := c * chunk; i < hi; i++ {
					dst[i] = b.ClosestPoint(points[i])
				}
			}
		})
	}
	wg.Wait()
	return dst
}

// Raycast returns the nearest intersection of the ray orig + t·dir,
// 0 ≤ t ≤ tMax, with the mesh (both triangle sides count), or false. It
// uses the slab test for boxes and the Möller–Trumbore test for triangles
// (Möller and Trumbore, "Fast, minimum storage ray/triangle intersection",
// 1997), written out in scalars. dir need not be unit; t is in units of
// |dir|. Rays parallel to a triangle's plane miss it. Counting hits of a ray
// (e.g. for inside tests) is left to the caller by restarting past T.
func (b *BVH) Raycast(orig, dir geom.Vec3, tMax float64) (RayHit, bool) {
	hit := RayHit{Tri: -1}
	if len(b.nodes) == 0 {
		return hit, false
	}
	inv := geom.Vec3{X: 1 / dir.X, Y: 1 / dir.Y, Z: 1 / dir.Z}
	best := tMax
	bestSlot := int32(-1)
	t0, ok := bvhRayBox(&b.nodes[0], orig, inv, best)
	if !ok {
		return hit, false
	}
	var stack [64]bvhEntry
	stack[0] = bvhEntry{0, t0}
	sp := 1
	for sp > 0 {
		sp--
		if stack[sp].d > best {
			continue // a closer hit was found after this entry was pushed
		}
		node := stack[sp].node
	descend:
		for {
			n := &b.nodes[node]
			if n.count > 0 {
				for s := n.idx; s < n.idx+n.count; s++ {
					if t, u, v, ok := bvhRayTri(orig, dir, b.vx[b.tris[s][0]], b.vx[b.tris[s][1]], b.vx[b.tris[s][2]]); ok && t >= 0 && t <= best {
						best, bestSlot = t, s
						hit.Bary = [3]float64{1 - u - v, u, v}
					}
				}
				break
			}
			l, r := node+1, n.idx
			tl, okl := bvhRayBox(&b.nodes[l], orig, inv, best)
			tr, okr := bvhRayBox(&b.nodes[r], orig, inv, best)
			if okl && okr && tr < tl {
				l, r, tl, tr = r, l, tr, tl
			}
			switch {
			case okl && okr:
				stack[sp] = bvhEntry{r, tr}
				sp++
				node = l
			case okl:
				node = l
			case okr:
				node = r
			default:
				break descend
			}
		}
	}
	if bestSlot < 0 {
		return hit, false
	}
	hit.Tri, hit.T = b.ids[bestSlot], best
	return hit, true
}

// bvhRayBox is the slab test: it returns the entry parameter of the ray into
// the node's box and whether the ray meets it within [0, tMax].
func bvhRayBox(n *bvhNode, o, inv geom.Vec3, tMax float64) (float64, bool) {
	t1, t2 := (n.min.X-o.X)*inv.X, (n.max.X-o.X)*inv.X
	tmin, tmax := min(t1, t2), max(t1, t2)
	t1, t2 = (n.min.Y-o.Y)*inv.Y, (n.max.Y-o.Y)*inv.Y
	tmin, tmax = max(tmin, min(t1, t2)), min(tmax, max(t1, t2))
	t1, t2 = (n.min.Z-o.Z)*inv.Z, (n.max.Z-o.Z)*inv.Z
	tmin, tmax = max(tmin, min(t1, t2)), min(tmax, max(t1, t2))
	// A ray lying in a slab's face plane gives 0·Inf = NaN, which Go's
	// min/max propagate; treat such a box as hit (from t = 0) to stay
	// conservative.
	if math.IsNaN(tmin) || math.IsNaN(tmax) {
		return 0, true
	}
	return max(tmin, 0), tmax >= max(tmin, 0) && tmin <= tMax
}

// bvhRayTri is the Möller–Trumbore test of ray o + t·d against triangle
// (a, b, c): it returns t and the barycentrics u (of b) and v (of c).
func bvhRayTri(o, d, a, b, c geom.Vec3) (t, u, v float64, ok bool) {
	e1x, e1y, e1z := b.X-a.X, b.Y-a.Y, b.Z-a.Z
	e2x, e2y, e2z := c.X-a.X, c.Y-a.Y, c.Z-a.Z
	px, py, pz := d.Y*e2z-d.Z*e2y, d.Z*e2x-d.X*e2z, d.X*e2y-d.Y*e2x
	det := e1x*px + e1y*py + e1z*pz
	if det == 0 {
		return 0, 0, 0, false
	}
	inv := 1 / det
	sx, sy, sz := o.X-a.X, o.Y-a.Y, o.Z-a.Z
	u = (sx*px + sy*py + sz*pz) * inv
	if u < 0 || u > 1 {
		return 0, 0, 0, false
	}
	qx, qy, qz := sy*e1z-sz*e1y, sz*e1x-sx*e1z, sx*e1y-sy*e1x
	v = (d.X*qx + d.Y*qy + d.Z*qz) * inv
	if v < 0 || u+v > 1 {
		return 0, 0, 0, false
	}
	t = (e2x*qx + e2y*qy + e2z*qz) * inv
	return t, u, v, true
}
