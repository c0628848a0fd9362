package mesh

import (
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
	"gonum.org/v1/gonum/spatial/kdtree"
)

// VertexIndex answers nearest-vertex queries over a fixed set of points with
// a k-d tree (gonum.org/v1/gonum/spatial/kdtree). The tree is built with a
// deterministic median split (quickselect with median-of-three pivots, ties
// broken by vertex id) instead of gonum's randomised pivot, so results,
// including the choice among equidistant vertices, are reproducible.
//
// Distances are squared Euclidean, in m². The index copies the positions;
// it is safe for concurrent queries. Queries allocate: Nearest one 32-byte
// query point; KNearest and Within also one boxed heap entry per candidate
// kept (gonum's container/heap), about 11 allocations for k = 8.
type VertexIndex struct {
	pts  []nearPoint
	tree *kdtree.Tree
}

// Neighbor is a vertex found by a query and its squared distance (m²).
type Neighbor struct {
	ID    int32
	Dist2 float64
}

// nearPoint is a vertex as a kdtree.Comparable (used through a pointer so
// that storing it in an interface does not allocate).
type nearPoint struct {
	p  [3]float64
	id int32
}

func (a *nearPoint) Compare(c kdtree.Comparable, d kdtree.Dim) float64 {
	return a.p[d] - c.(*nearPoint).p[d]
}

func (a *nearPoint) Dims() int { return 3 }

func (a *nearPoint) Distance(c kdtree.Comparable) float64 {
	b := c.(*nearPoint)
	dx, dy, dz := a.p[0]-b.p[0], a.p[1]-b.p[1], a.p[2]-b.p[2]
	return dx*dx + dy*dy + dz*dz
}

// nearSet is the kdtree.Interface over a slice of points; Index hands out
// pointers into it, which stay valid because build only reorders the
// sub-slices on either side of a pivot it has already taken.
type nearSet []nearPoint

func (s nearSet) Index(i int) kdtree.Comparable         { return &s[i] }
func (s nearSet) Len() int                              { return len(s) }
func (s nearSet) Slice(start, end int) kdtree.Interface { return s[start:end] }

// Pivot partitions s around its median on dimension d and returns the
// median's index.
func (s nearSet) Pivot(d kdtree.Dim) int {
	k := len(s) / 2
	less := func(a, b *nearPoint) bool {
		return a.p[d] < b.p[d] || (a.p[d] == b.p[d] && a.id < b.id)
	}
	lo, hi := 0, len(s)-1
	for hi > lo {
		m := lo + (hi-lo)/2
		if less(&s[m], &s[lo]) {
			s[m], s[lo] = s[lo], s[m]
		}
		if less(&s[hi], &s[lo]) {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if less(&s[hi], &s[m]) {
			s[hi], s[m] = s[m], s[hi]
		}
		piv := s[m]
		i, j := lo, hi
		for i <= j {
			for less(&s[i], &piv) {
				i++
			}
			for less(&piv, &s[j]) {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
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
			return k
		}
	}
	return k
}

// NewVertexIndex builds a nearest-vertex index over verts; query results
// report indices into verts. verts is not retained.
func NewVertexIndex(verts []geom.Vec3) *VertexIndex {
	pts := make(nearSet, len(verts))
	for i, v := range verts {
		pts[i] = nearPoint{p: [3]float64{v.X, v.Y, v.Z}, id: int32(i)}
	}
	return &VertexIndex{pts: pts, tree: kdtree.New(pts, false)}
}

// Len returns the number of indexed vertices.
func (x *VertexIndex) Len() int { return len(x.pts) }

// Nearest returns the vertex closest to p and its squared distance, or
// (-1, +Inf) for an empty index. Among equidistant vertices the choice is
// deterministic but not necessarily the smallest id.
func (x *VertexIndex) Nearest(p geom.Vec3) (id int32, dist2 float64) {
	q := &nearPoint{p: [3]float64{p.X, p.Y, p.Z}}
	c, d := x.tree.Nearest(q)
	if c == nil {
		return -1, math.Inf(1)
	}
	return c.(*nearPoint).id, d
}

// KNearest appends the k vertices closest to p (fewer if the index holds
// fewer) to dst[:0], sorted by (Dist2, ID), and returns it. It panics if
// k < 1.
func (x *VertexIndex) KNearest(dst []Neighbor, p geom.Vec3, k int) []Neighbor {
	if k < 1 {
		panic("mesh: VertexIndex.KNearest needs k >= 1")
	}
	keep := kdtree.NewNKeeper(k)
	x.tree.NearestSet(keep, &nearPoint{p: [3]float64{p.X, p.Y, p.Z}})
	return nearCollect(dst, keep.Heap)
}

// Within appends every vertex with squared distance ≤ r² from p to dst[:0],
// sorted by (Dist2, ID), and returns it.
func (x *VertexIndex) Within(dst []Neighbor, p geom.Vec3, r float64) []Neighbor {
	keep := kdtree.NewDistKeeper(r * r)
	x.tree.NearestSet(keep, &nearPoint{p: [3]float64{p.X, p.Y, p.Z}})
	return nearCollect(dst, keep.Heap)
}

func nearCollect(dst []Neighbor, h kdtree.Heap) []Neighbor {
	dst = dst[:0]
	for _, c := range h {
		if c.Comparable == nil { // sentinel left when fewer than k were found
			continue
		}
		dst = append(dst, Neighbor{ID: c.Comparable.(*nearPoint).id, Dist2: c.Dist})
	}
	slices.SortFunc(dst, func(a, b Neighbor) int {
		switch {
		case a.Dist2 < b.Dist2:
			return -1
		case a.Dist2 > b.Dist2:
			return 1
		}
		return int(a.ID) - int(b.ID)
	})
	return dst
}
