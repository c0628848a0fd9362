package mesh

import (
	"fmt"
	"slices"
)

// VertFlag classifies a vertex of a Topology; flags combine with |.
type VertFlag uint8

const (
	// VertBoundary marks a vertex on at least one boundary edge (an edge with
	// exactly one adjacent triangle).
	VertBoundary VertFlag = 1 << iota
	// VertNonManifold marks a vertex whose triangle fan is not a single disk
	// (closed fan) or half-disk (open fan): bow-tie vertices where several
	// fans meet, and vertices on an edge with more than two triangles.
	VertNonManifold
	// VertIsolated marks a vertex referenced by no triangle.
	VertIsolated
)

// Topology is the connectivity of a triangle mesh, built once by NewTopology
// and read-only afterwards (safe for concurrent readers). All adjacency is in
// flat slices; variable-length lists use CSR form: the entries for item i are
// List[Start[i]:Start[i+1]].
//
// Edge e is the undirected pair Edges[e] = {a, b} with a < b; edges are sorted
// by (a, b), so ids are deterministic. Side k of triangle t is the edge from
// corner k to corner k+1 (mod 3), whose id is TriEdges[t][k].
type Topology struct {
	// NumVerts and NumTris are the sizes of the mesh the topology was built from.
	NumVerts, NumTris int

	// Edges are the unique undirected edges, Edges[e][0] < Edges[e][1], sorted.
	Edges [][2]int32
	// EdgeFirst is CSR over Edges by their first vertex: the edges {v, *}
	// are EdgeFirst[v] ≤ e < EdgeFirst[v+1]. Len NumVerts+1.
	EdgeFirst []int32
	// EdgeTriStart/EdgeTris list the triangles adjacent to each edge, in
	// ascending triangle order. 1 triangle: boundary edge; 2: interior
	// manifold edge; more: non-manifold edge.
	EdgeTriStart []int32
	EdgeTris     []int32
	// TriEdges gives, per triangle, the edge id of each side (k → k+1).
	TriEdges [][3]int32

	// VertTriStart/VertTris list the triangles using each vertex, ascending.
	VertTriStart []int32
	VertTris     []int32

	// RingStart/Ring list the 1-ring neighbours of each vertex, each once;
	// RingEdges[i] is the id of the edge to Ring[i]. For a manifold vertex
	// the neighbours are in counter-clockwise fan order seen from outside
	// (the orientation of the first triangle of the fan); for a boundary
	// vertex the fan starts at the boundary neighbour from which the fan
	// turns counter-clockwise. For a non-manifold vertex the order is
	// unspecified (first appearance in its triangles).
	RingStart []int32
	Ring      []int32
	RingEdges []int32

	// Flags classifies each vertex (VertBoundary, VertNonManifold, VertIsolated).
	Flags []VertFlag

	// BoundaryLoops are the boundary curves as ordered vertex lists, first
	// vertex not repeated at the end, walked in the direction of the
	// adjacent triangles' orientation (surface on the left seen from
	// outside). Where boundary curves touch at a non-manifold vertex, or
	// orientation is inconsistent, a loop may pass a vertex twice or be an
	// open chain.
	BoundaryLoops [][]int32

	// VertComp and TriComp give the connected component of each vertex and
	// triangle; triangles are connected when they share a vertex.
	// Components are numbered 0..NumComps-1 in order of their lowest vertex
	// id. Isolated vertices (used by no triangle) get VertComp -1 and are not
	// counted in NumComps; NumIsolated counts them.
	VertComp    []int32
	TriComp     []int32
	NumComps    int
	NumIsolated int

	// NonManifoldEdges lists edges with more than two triangles;
	// NonManifoldVerts lists vertices flagged VertNonManifold;
	// InconsistentEdges lists two-triangle edges whose triangles traverse
	// the edge in the same direction (orientation flips across the edge).
	NonManifoldEdges  []int32
	NonManifoldVerts  []int32
	InconsistentEdges []int32
}

// NewTopology builds the topology of m in O(V + T log d) time (d the maximum
// valence), without maps. It returns an *ElementError naming the triangle if
// an index is out of range or a triangle repeats a vertex; coordinates are
// not looked at.
func NewTopology(m *Mesh) (*Topology, error) {
	nv, nt := len(m.Verts), len(m.Tris)
	if int64(3*nt) >= 1<<32 || int64(nv) >= 1<<31 {
		panic("mesh: NewTopology: mesh too large for int32 ids")
	}
	for i, t := range m.Tris {
		for _, k := range t {
			if k < 0 || int(k) >= nv {
				return nil, &ElementError{"triangle", i, fmt.Sprintf("vertex index %d out of range [0,%d)", k, nv)}
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return nil, &ElementError{"triangle", i, fmt.Sprintf("repeats a vertex %v", t)}
		}
	}
	tp := &Topology{NumVerts: nv, NumTris: nt}
	tp.buildEdges(m)
	tp.buildVertTris(m)
	tp.buildRings(m)
	tp.buildComponents(m)
	tp.buildBoundaryLoops(m)
	return tp, nil
}

// buildEdges buckets the 3T half-edges by their lower vertex, sorts each
// bucket by (upper vertex, half-edge id) and collapses runs into edges.
func (tp *Topology) buildEdges(m *Mesh) {
	nv, nt := tp.NumVerts, tp.NumTris
	start := make([]int32, nv+1)
	for _, t := range m.Tris {
		for k := 0; k < 3; k++ {
			start[min(t[k], t[(k+1)%3])+1]++
		}
	}
	for i := 0; i < nv; i++ {
		start[i+1] += start[i]
	}
	he := make([]uint64, 3*nt)
	fill := append([]int32(nil), start[:nv]...)
	for ti, t := range m.Tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			lo, hi := min(a, b), max(a, b)
			he[fill[lo]] = uint64(hi)<<32 | uint64(3*ti+k)
			fill[lo]++
		}
	}
	tp.EdgeFirst = make([]int32, nv+1)
	tp.Edges = make([][2]int32, 0, 3*nt/2+nv/8+1)
	tp.EdgeTriStart = make([]int32, 0, 3*nt/2+nv/8+2)
	tp.EdgeTris = make([]int32, 0, 3*nt)
	tp.TriEdges = make([][3]int32, nt)
	for v := 0; v < nv; v++ {
		tp.EdgeFirst[v] = int32(len(tp.Edges))
		b := he[start[v]:start[v+1]]
		slices.Sort(b)
		for i := 0; i < len(b); {
			hi := int32(b[i] >> 32)
			e := int32(len(tp.Edges))
			tp.Edges = append(tp.Edges, [2]int32{int32(v), hi})
			tp.EdgeTriStart = append(tp.EdgeTriStart, int32(len(tp.EdgeTris)))
			fwd := 0 // triangles traversing the edge v→hi
			j := i
			for ; j < len(b) && int32(b[j]>>32) == hi; j++ {
				h := int(uint32(b[j]))
				t, k := h/3, h%3
				tp.EdgeTris = append(tp.EdgeTris, int32(t))
				tp.TriEdges[t][k] = e
				if m.Tris[t][k] == int32(v) {
					fwd++
				}
			}
			switch n := j - i; {
			case n > 2:
				tp.NonManifoldEdges = append(tp.NonManifoldEdges, e)
			case n == 2 && fwd != 1:
				tp.InconsistentEdges = append(tp.InconsistentEdges, e)
			}
			i = j
		}
	}
	tp.EdgeFirst[nv] = int32(len(tp.Edges))
	tp.EdgeTriStart = append(tp.EdgeTriStart, int32(len(tp.EdgeTris)))
}

func (tp *Topology) buildVertTris(m *Mesh) {
	nv := tp.NumVerts
	tp.VertTriStart = make([]int32, nv+1)
	for _, t := range m.Tris {
		tp.VertTriStart[t[0]+1]++
		tp.VertTriStart[t[1]+1]++
		tp.VertTriStart[t[2]+1]++
	}
	for i := 0; i < nv; i++ {
		tp.VertTriStart[i+1] += tp.VertTriStart[i]
	}
	tp.VertTris = make([]int32, 3*len(m.Tris))
	fill := append([]int32(nil), tp.VertTriStart[:nv]...)
	for ti, t := range m.Tris {
		for _, v := range t {
			tp.VertTris[fill[v]] = int32(ti)
			fill[v]++
		}
	}
}

// buildRings orders each vertex's link. The link of v is the graph on its
// neighbours with one link edge (next, prev) per incident triangle
// (v, next, prev); v is manifold iff the link is one path (boundary) or one
// cycle (interior) with every neighbour of degree ≤ 2.
func (tp *Topology) buildRings(m *Mesh) {
	nv := tp.NumVerts
	tp.Flags = make([]VertFlag, nv)
	for _, e := range tp.NonManifoldEdges {
		tp.Flags[tp.Edges[e][0]] |= VertNonManifold
		tp.Flags[tp.Edges[e][1]] |= VertNonManifold
	}
	for e := range tp.Edges {
		if tp.EdgeTriStart[e+1]-tp.EdgeTriStart[e] == 1 {
			tp.Flags[tp.Edges[e][0]] |= VertBoundary
			tp.Flags[tp.Edges[e][1]] |= VertBoundary
		}
	}
	tp.RingStart = make([]int32, nv+1)
	tp.Ring = make([]int32, 0, 2*len(tp.Edges))
	local := make([]int32, nv) // neighbour vertex → local index, -1 when unset
	for i := range local {
		local[i] = -1
	}
	var (
		nb   []int32    // local neighbours
		deg  []int32    // link degree of each local neighbour
		adj  [][2]int32 // first two link triangles of each local neighbour
		tnx  []int32    // per incident triangle: local index of next, prev
		tpv  []int32
		used []bool
	)
	for v := 0; v < nv; v++ {
		tp.RingStart[v] = int32(len(tp.Ring))
		tris := tp.VertTris[tp.VertTriStart[v]:tp.VertTriStart[v+1]]
		if len(tris) == 0 {
			tp.Flags[v] |= VertIsolated
			continue
		}
		nb, deg, adj, tnx, tpv = nb[:0], deg[:0], adj[:0], tnx[:0], tpv[:0]
		addNb := func(u int32, li int32) int32 {
			x := local[u]
			if x < 0 {
				x = int32(len(nb))
				local[u] = x
				nb = append(nb, u)
				deg = append(deg, 0)
				adj = append(adj, [2]int32{-1, -1})
			}
			if deg[x] < 2 {
				adj[x][deg[x]] = li
			}
			deg[x]++
			return x
		}
		for li, ti := range tris {
			t := m.Tris[ti]
			c := 0
			for t[c] != int32(v) {
				c++
			}
			tnx = append(tnx, addNb(t[(c+1)%3], int32(li)))
			tpv = append(tpv, addNb(t[(c+2)%3], int32(li)))
		}
		manifold := tp.Flags[v]&VertNonManifold == 0
		ends := 0
		for _, d := range deg {
			if d > 2 {
				manifold = false
			}
			if d == 1 {
				ends++
			}
		}
		if ends != 0 && ends != 2 {
			manifold = false
		}
		ringStart := len(tp.Ring)
		if manifold {
			// Pick the start: for a path, the end whose triangle turns
			// counter-clockwise from it; for a cycle, triangle 0's next.
			s, st := tnx[0], int32(0)
			if ends == 2 {
				s = -1
				for x, d := range deg {
					if d == 1 {
						if t := adj[x][0]; tnx[t] == int32(x) {
							s, st = int32(x), t
							break
						}
						if s < 0 {
							s, st = int32(x), adj[x][0]
						}
					}
				}
			}
			if cap(used) < len(tris) {
				used = make([]bool, len(tris))
			}
			used = used[:len(tris)]
			clear(used)
			cur, ct, visited := s, st, 0
			for {
				tp.Ring = append(tp.Ring, nb[cur])
				used[ct] = true
				visited++
				other := tnx[ct]
				if other == cur {
					other = tpv[ct]
				}
				if other == s { // closed the cycle
					break
				}
				nt := int32(-1)
				if deg[other] == 2 {
					nt = adj[other][0]
					if nt == ct {
						nt = adj[other][1]
					}
				}
				if nt < 0 || used[nt] { // end of an open fan
					tp.Ring = append(tp.Ring, nb[other])
					break
				}
				cur, ct = other, nt
			}
			if visited != len(tris) { // several fans: bow-tie vertex
				manifold = false
				tp.Ring = tp.Ring[:ringStart]
			}
		}
		if !manifold {
			tp.Flags[v] |= VertNonManifold
			tp.NonManifoldVerts = append(tp.NonManifoldVerts, int32(v))
			tp.Ring = append(tp.Ring, nb...)
		}
		for _, u := range nb {
			local[u] = -1
		}
	}
	tp.RingStart[nv] = int32(len(tp.Ring))
	tp.RingEdges = make([]int32, len(tp.Ring))
	for v := 0; v < nv; v++ {
		for i := tp.RingStart[v]; i < tp.RingStart[v+1]; i++ {
			e, _ := tp.Edge(int32(v), tp.Ring[i])
			tp.RingEdges[i] = e
		}
	}
}

func (tp *Topology) buildComponents(m *Mesh) {
	nv := tp.NumVerts
	parent := make([]int32, nv)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int32) {
		ra, rb := find(a), find(b)
		if ra < rb {
			parent[rb] = ra
		} else if rb < ra {
			parent[ra] = rb
		}
	}
	for _, t := range m.Tris {
		union(t[0], t[1])
		union(t[0], t[2])
	}
	tp.VertComp = make([]int32, nv)
	for v := 0; v < nv; v++ {
		if tp.Flags[v]&VertIsolated != 0 {
			tp.VertComp[v] = -1
			tp.NumIsolated++
			continue
		}
		r := find(int32(v))
		if r == int32(v) { // roots are the lowest vertex of their set
			tp.VertComp[v] = int32(tp.NumComps)
			tp.NumComps++
		} else {
			tp.VertComp[v] = tp.VertComp[r]
		}
	}
	tp.TriComp = make([]int32, len(m.Tris))
	for i, t := range m.Tris {
		tp.TriComp[i] = tp.VertComp[t[0]]
	}
}

// buildBoundaryLoops chains boundary edges, each directed as its single
// triangle traverses it.
func (tp *Topology) buildBoundaryLoops(m *Mesh) {
	nv := tp.NumVerts
	var bnd []int32
	for e := range tp.Edges {
		if tp.EdgeTriStart[e+1]-tp.EdgeTriStart[e] == 1 {
			bnd = append(bnd, int32(e))
		}
	}
	if len(bnd) == 0 {
		return
	}
	// from/to of each boundary edge, and CSR of boundary edges by vertex.
	from := make([]int32, len(bnd))
	to := make([]int32, len(bnd))
	start := make([]int32, nv+1)
	for i, e := range bnd {
		a, b := tp.Edges[e][0], tp.Edges[e][1]
		t := m.Tris[tp.EdgeTris[tp.EdgeTriStart[e]]]
		if (t[0] == b && t[1] == a) || (t[1] == b && t[2] == a) || (t[2] == b && t[0] == a) {
			a, b = b, a
		}
		from[i], to[i] = a, b
		start[a+1]++
		start[b+1]++
	}
	for i := 0; i < nv; i++ {
		start[i+1] += start[i]
	}
	inc := make([]int32, 2*len(bnd))
	fill := append([]int32(nil), start[:nv]...)
	for i := range bnd {
		inc[fill[from[i]]] = int32(i)
		fill[from[i]]++
		inc[fill[to[i]]] = int32(i)
		fill[to[i]]++
	}
	used := make([]bool, len(bnd))
	for i0 := range bnd {
		if used[i0] {
			continue
		}
		used[i0] = true
		s, cur := from[i0], to[i0]
		loop := []int32{s}
		// step marks and returns an unused boundary edge at v, preferring
		// one directed away from v (fwd) or towards v, and its other end.
		step := func(v int32, fwd bool) (int32, bool) {
			best, alt := int32(-1), int32(-1)
			for _, j := range inc[start[v]:start[v+1]] {
				if used[j] {
					continue
				}
				if (from[j] == v) == fwd && best < 0 {
					best = j
				} else if alt < 0 {
					alt = j
				}
			}
			if best < 0 {
				best = alt
			}
			if best < 0 {
				return -1, false
			}
			used[best] = true
			if from[best] == v {
				return to[best], true
			}
			return from[best], true
		}
		closed := true
		for cur != s {
			loop = append(loop, cur)
			var ok bool
			if cur, ok = step(cur, true); !ok {
				closed = false
				break
			}
		}
		if !closed {
			// Open chain (non-manifold or inconsistently oriented
			// boundary): extend it backwards from its start too.
			var back []int32
			for v, ok := step(s, false); ok; v, ok = step(v, false) {
				back = append(back, v)
			}
			slices.Reverse(back)
			loop = append(back, loop...)
		}
		tp.BoundaryLoops = append(tp.BoundaryLoops, loop)
	}
}

// NumEdges returns the number of unique undirected edges.
func (tp *Topology) NumEdges() int { return len(tp.Edges) }

// Edge returns the id of the edge between vertices a and b (either order)
// and whether it exists, by binary search among a's edges: O(log valence).
func (tp *Topology) Edge(a, b int32) (int32, bool) {
	if a > b {
		a, b = b, a
	}
	if a < 0 || int(b) >= tp.NumVerts {
		return -1, false
	}
	lo, hi := tp.EdgeFirst[a], tp.EdgeFirst[a+1]
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if tp.Edges[mid][1] < b {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < tp.EdgeFirst[a+1] && tp.Edges[lo][1] == b {
		return lo, true
	}
	return -1, false
}

// EdgeTriangles returns the triangles adjacent to edge e (a sub-slice; do
// not modify).
func (tp *Topology) EdgeTriangles(e int32) []int32 {
	return tp.EdgeTris[tp.EdgeTriStart[e]:tp.EdgeTriStart[e+1]]
}

// VertTriangles returns the triangles using vertex v (a sub-slice).
func (tp *Topology) VertTriangles(v int32) []int32 {
	return tp.VertTris[tp.VertTriStart[v]:tp.VertTriStart[v+1]]
}

// Neighbors returns the 1-ring of vertex v in fan order (a sub-slice; see
// Topology.Ring).
func (tp *Topology) Neighbors(v int32) []int32 { return tp.Ring[tp.RingStart[v]:tp.RingStart[v+1]] }

// Valence returns the number of neighbours of vertex v.
func (tp *Topology) Valence(v int32) int { return int(tp.RingStart[v+1] - tp.RingStart[v]) }

// IsBoundaryEdge reports whether edge e has exactly one adjacent triangle.
func (tp *Topology) IsBoundaryEdge(e int32) bool { return tp.EdgeTriStart[e+1]-tp.EdgeTriStart[e] == 1 }

// IsBoundary reports whether vertex v lies on a boundary edge.
func (tp *Topology) IsBoundary(v int32) bool { return tp.Flags[v]&VertBoundary != 0 }

// IsInterior reports whether vertex v is a manifold, non-boundary vertex
// used by at least one triangle: the vertices where discrete curvature is
// defined.
func (tp *Topology) IsInterior(v int32) bool { return tp.Flags[v] == 0 }

// IsManifold reports whether every edge has one or two triangles and every
// used vertex has a single disk or half-disk fan. Orientation is not
// considered (see InconsistentEdges).
func (tp *Topology) IsManifold() bool {
	return len(tp.NonManifoldEdges) == 0 && len(tp.NonManifoldVerts) == 0
}

// IsClosed reports whether the mesh has no boundary edges.
func (tp *Topology) IsClosed() bool { return len(tp.BoundaryLoops) == 0 }

// EulerCharacteristic returns χ = V − E + F counting only vertices used by
// triangles; a closed orientable manifold of genus g per component has
// χ = 2 − 2g, each boundary loop lowers it by one.
func (tp *Topology) EulerCharacteristic() int {
	return tp.NumVerts - tp.NumIsolated - len(tp.Edges) + tp.NumTris
}

// DegenerateTris returns the ids of the triangles of m whose area is at most
// eps (m², so eps = 0 finds exactly flat ones), or which repeat a vertex
// index. Out-of-range indices panic; run Validate first on untrusted data.
func DegenerateTris(m *Mesh, eps float64) []int32 {
	var out []int32
	for i, t := range m.Tris {
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			out = append(out, int32(i))
			continue
		}
		a, b, c := m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]
		if b.Sub(a).Cross(c.Sub(a)).Len()/2 <= eps {
			out = append(out, int32(i))
		}
	}
	return out
}
