package mesh

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
)

// SubdivMap records how a subdivided mesh derives from its input, so callers
// can carry per-vertex data (skin weights, bindings, rest positions) and
// per-triangle data (materials, pattern pieces) across the refinement.
//
// Output vertex i < NumOrig is input vertex i unchanged. Output vertex
// NumOrig+j is the midpoint of input edge Parents[j]:
//
//	x[NumOrig+j] = (x[Parents[j][0]] + x[Parents[j][1]]) / 2
//
// Output triangles TriStart[t] ≤ s < TriStart[t+1] are the children of input
// triangle t, and TriParent[s] = t.
type SubdivMap struct {
	// NumOrig is the number of vertices of the input mesh.
	NumOrig int
	// Parents holds, for each new (edge-midpoint) vertex, the ids of the two
	// input vertices of the edge it splits, in the order the edge first appears
	// in the input (corner k to corner k+1 of the first triangle using it).
	Parents [][2]int32
	// TriStart has one entry per input triangle plus one: the children of
	// input triangle t are output triangles TriStart[t] to TriStart[t+1]-1.
	TriStart []int32
	// TriParent gives, for each output triangle, its input triangle.
	TriParent []int32
}

// NumVerts returns the number of vertices of the subdivided mesh,
// NumOrig + len(Parents).
func (s *SubdivMap) NumVerts() int { return s.NumOrig + len(s.Parents) }

// InterpolateVec3 returns per-vertex data for the subdivided mesh given
// per-vertex data src of the input mesh: originals are copied and each new
// vertex gets the mean of its two parents. dst is reused when it has the
// capacity. It panics if len(src) != NumOrig.
func (s *SubdivMap) InterpolateVec3(dst, src []geom.Vec3) []geom.Vec3 {
	if len(src) != s.NumOrig {
		panic(fmt.Sprintf("mesh: InterpolateVec3 got %d values for %d vertices", len(src), s.NumOrig))
	}
	dst = sdResize(dst, s.NumVerts())
	copy(dst, src)
	for j, p := range s.Parents {
		dst[s.NumOrig+j] = src[p[0]].Add(src[p[1]]).Scale(0.5)
	}
	return dst
}

// InterpolateFloats is InterpolateVec3 for rows of stride float64 values per
// vertex (row i is src[i*stride:(i+1)*stride]), e.g. dense skin weights with
// one column per joint. Averaging two rows of convex weights gives convex
// weights. It panics if stride < 1 or len(src) != NumOrig*stride.
func (s *SubdivMap) InterpolateFloats(dst, src []float64, stride int) []float64 {
	if stride < 1 || len(src) != s.NumOrig*stride {
		panic(fmt.Sprintf("mesh: InterpolateFloats got %d values for %d vertices of stride %d", len(src), s.NumOrig, stride))
	}
	dst = sdResize(dst, s.NumVerts()*stride)
	copy(dst, src)
	for j, p := range s.Parents {
		out := dst[(s.NumOrig+j)*stride : (s.NumOrig+j+1)*stride]
		a := src[int(p[0])*stride : int(p[0]+1)*stride]
		b := src[int(p[1])*stride : int(p[1]+1)*stride]
		for c := range out {
			out[c] = 0.5 * (a[c] + b[c])
		}
	}
	return dst
}

func sdResize[T any](dst []T, n int) []T {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]T, n)
}

// Subdivide returns the global 1-to-4 midpoint subdivision of m and the map
// from the result back to m. Positions are not smoothed (no Loop weights):
// every triangle (v0, v1, v2) with edge midpoints m0 = mid(v0,v1),
// m1 = mid(v1,v2), m2 = mid(v2,v0) becomes, in this order,
//
//	(v0, m0, m2), (v1, m1, m0), (v2, m2, m1), (m0, m1, m2)
//
// so output triangles 4t..4t+3 are the children of input triangle t, all
// with the parent's counter-clockwise orientation, and the surface (and its
// area) is unchanged. Input vertices keep their ids; one vertex per input
// edge follows, in order of the edge's first appearance when triangles are
// scanned in order and corners 0→1, 1→2, 2→0.
//
// Per-corner attributes are refined the same way: each UV edge gets one
// midpoint (shared by the triangles that share the UV edge, so seams stay
// seams: triangles that share a position edge but not its UV edge get
// distinct UV midpoints), appended after m.UVs in order of first use. Stored
// normals (m.Normals/NormalTris) are interpolated likewise, as normalised
// midpoints. Each group keeps the children of its triangles.
//
// m must be valid (see Validate); m is not modified.
func Subdivide(m *Mesh) (*Mesh, *SubdivMap) {
	et := sdBuildEdges(len(m.Verts), m.Tris)
	split := make([]bool, len(et.ends))
	for i := range split {
		split[i] = true
	}
	return sdRefine(m, &et, split)
}

// SubdivideTris refines the triangles listed in tris 1-to-4 (red) and closes
// the refinement conformingly with red-green rules, so the result has no
// T-junctions (no vertex lies inside another triangle's edge):
//
//   - Every edge of a listed triangle is split at its midpoint.
//   - Closure: a triangle with two split edges gets its third edge split
//     too (it is promoted to red), repeated until every triangle has 0, 1
//     or 3 split edges.
//   - Triangles with 3 split edges are split 1-to-4 as in Subdivide; a
//     triangle (a, b, c) whose only split edge is a→b with midpoint m is
//     split green 1-to-2 into (a, m, c), (m, b, c); others are copied.
//
// Children keep the parent's orientation. Vertex numbering, attributes,
// groups and the returned map follow Subdivide (a triangle may now have 1, 2
// or 4 children; use SubdivMap.TriStart). Repeated green splits of the same
// region degrade triangle shape; for repeated adaptive refinement prefer
// refining from the original mesh with a growing set.
//
// Entries of tris may repeat; it panics if one is out of range.
func SubdivideTris(m *Mesh, tris []int32) (*Mesh, *SubdivMap) {
	et := sdBuildEdges(len(m.Verts), m.Tris)
	split := make([]bool, len(et.ends))
	nt := int32(len(m.Tris))
	for _, t := range tris {
		if t < 0 || t >= nt {
			panic(fmt.Sprintf("mesh: SubdivideTris triangle %d out of range [0,%d)", t, nt))
		}
		for _, e := range et.triEdge[t] {
			split[e] = true
		}
	}
	sdClose(&et, split)
	return sdRefine(m, &et, split)
}

// sdEdgeTable numbers the undirected edges of a triangle list in order of
// first appearance (triangles in order, corners 0→1, 1→2, 2→0).
type sdEdgeTable struct {
	// triEdge[t][k] is the edge from corner k to corner k+1 of triangle t.
	triEdge [][3]int32
	// ends[e] is edge e's ends as first seen.
	ends [][2]int32
}

// sdBuildEdges builds the edge table of tris over n vertices. Edges are
// bucketed by their smaller vertex and found by a linear scan of the bucket
// (a few entries), so it needs no hash map.
func sdBuildEdges(n int, tris [][3]int32) sdEdgeTable {
	head := make([]int32, n+1)
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			head[min(t[k], t[(k+1)%3])+1]++
		}
	}
	for i := 1; i <= n; i++ {
		head[i] += head[i-1]
	}
	fill := make([]int32, n)
	other := make([]int32, 3*len(tris))
	edge := make([]int32, 3*len(tris))
	et := sdEdgeTable{
		triEdge: make([][3]int32, len(tris)),
		ends:    make([][2]int32, 0, 3*len(tris)/2+3),
	}
	for t, tri := range tris {
		for k := 0; k < 3; k++ {
			a, b := tri[k], tri[(k+1)%3]
			lo, hi := min(a, b), max(a, b)
			start, end := head[lo], head[lo]+fill[lo]
			e := int32(-1)
			for s := start; s < end; s++ {
				if other[s] == hi {
					e = edge[s]
					break
				}
			}
			if e < 0 {
				e = int32(len(et.ends))
				et.ends = append(et.ends, [2]int32{a, b})
				other[end], edge[end] = hi, e
				fill[lo]++
			}
			et.triEdge[t][k] = e
		}
	}
	return et
}

// sdClose applies the red-green closure: any triangle with two split edges
// gets its third edge split, until none has exactly two.
func sdClose(et *sdEdgeTable, split []bool) {
	ne := len(et.ends)
	// Edge → triangles adjacency (CSR).
	start := make([]int32, ne+1)
	for _, te := range et.triEdge {
		for _, e := range te {
			start[e+1]++
		}
	}
	for i := 1; i <= ne; i++ {
		start[i] += start[i-1]
	}
	adj := make([]int32, start[ne])
	pos := append([]int32(nil), start[:ne]...)
	for t, te := range et.triEdge {
		for _, e := range te {
			adj[pos[e]] = int32(t)
			pos[e]++
		}
	}
	work := make([]int32, len(et.triEdge))
	for t := range work {
		work[t] = int32(t)
	}
	for len(work) > 0 {
		t := work[len(work)-1]
		work = work[:len(work)-1]
		te := et.triEdge[t]
		n := 0
		for _, e := range te {
			if split[e] {
				n++
			}
		}
		if n != 2 {
			continue
		}
		for _, e := range te {
			if !split[e] {
				split[e] = true
				work = append(work, adj[start[e]:start[e+1]]...)
			}
		}
	}
}

// sdCornerMids numbers the midpoints of the split edges of a per-corner
// attribute (positions, UVs, normals). attrTris gives the attribute index of
// each corner, ett the attribute's own edge table, posEdges the position edge
// table (which decides which corner edges split). It returns, per triangle and
// corner edge k, the new attribute index (nAttr + j) or -1, and the parent
// pair of each new index.
func sdCornerMids(nAttr int, ett *sdEdgeTable, posEdges *sdEdgeTable, split []bool) (mids [][3]int32, parents [][2]int32) {
	mids = make([][3]int32, len(ett.triEdge))
	newID := make([]int32, len(ett.ends))
	for i := range newID {
		newID[i] = -1
	}
	for t, te := range posEdges.triEdge {
		for k, e := range te {
			if !split[e] {
				mids[t][k] = -1
				continue
			}
			ae := ett.triEdge[t][k]
			if newID[ae] < 0 {
				newID[ae] = int32(nAttr + len(parents))
				parents = append(parents, ett.ends[ae])
			}
			mids[t][k] = newID[ae]
		}
	}
	return mids, parents
}

// sdEmit appends the children of a triangle with corner ids c and edge
// midpoint ids mid (-1 where the edge is not split) to dst, in the order
// documented on Subdivide and SubdivideTris.
func sdEmit(dst [][3]int32, c, mid [3]int32) [][3]int32 {
	switch {
	case mid[0] >= 0 && mid[1] >= 0 && mid[2] >= 0:
		return append(dst,
			[3]int32{c[0], mid[0], mid[2]},
			[3]int32{c[1], mid[1], mid[0]},
			[3]int32{c[2], mid[2], mid[1]},
			[3]int32{mid[0], mid[1], mid[2]})
	case mid[0] < 0 && mid[1] < 0 && mid[2] < 0:
		return append(dst, c)
	}
	for k := 0; k < 3; k++ {
		if mid[k] >= 0 {
			if mid[(k+1)%3] >= 0 || mid[(k+2)%3] >= 0 {
				panic("mesh: internal error: triangle with two split edges after closure")
			}
			a, b, o := c[k], c[(k+1)%3], c[(k+2)%3]
			return append(dst, [3]int32{a, mid[k], o}, [3]int32{mid[k], b, o})
		}
	}
	panic("unreachable")
}

// sdRefine builds the refined mesh for the given split edges (closed under
// the red-green rule).
func sdRefine(m *Mesh, et *sdEdgeTable, split []bool) (*Mesh, *SubdivMap) {
	nv := len(m.Verts)
	posMids, parents := sdCornerMids(nv, et, et, split)

	out := &Mesh{Verts: make([]geom.Vec3, nv, nv+len(parents))}
	copy(out.Verts, m.Verts)
	for _, p := range parents {
		out.Verts = append(out.Verts, m.Verts[p[0]].Add(m.Verts[p[1]]).Scale(0.5))
	}

	// Child counts.
	sm := &SubdivMap{NumOrig: nv, Parents: parents, TriStart: make([]int32, len(m.Tris)+1)}
	for t, mid := range posMids {
		n := int32(1)
		switch {
		case mid[0] >= 0 && mid[1] >= 0 && mid[2] >= 0:
			n = 4
		case mid[0] >= 0 || mid[1] >= 0 || mid[2] >= 0:
			n = 2
		}
		sm.TriStart[t+1] = sm.TriStart[t] + n
	}
	nout := int(sm.TriStart[len(m.Tris)])
	out.Tris = make([][3]int32, 0, nout)
	for t, tri := range m.Tris {
		out.Tris = sdEmit(out.Tris, tri, posMids[t])
	}
	sm.TriParent = make([]int32, nout)
	for t := range m.Tris {
		for s := sm.TriStart[t]; s < sm.TriStart[t+1]; s++ {
			sm.TriParent[s] = int32(t)
		}
	}

	if m.HasUVs() {
		uet := sdBuildEdges(len(m.UVs), m.UVTris)
		mids, par := sdCornerMids(len(m.UVs), &uet, et, split)
		out.UVs = make([]geom.Vec2, len(m.UVs), len(m.UVs)+len(par))
		copy(out.UVs, m.UVs)
		for _, p := range par {
			out.UVs = append(out.UVs, m.UVs[p[0]].Add(m.UVs[p[1]]).Scale(0.5))
		}
		out.UVTris = make([][3]int32, 0, nout)
		for t, tri := range m.UVTris {
			out.UVTris = sdEmit(out.UVTris, tri, mids[t])
		}
	}
	if m.NormalTris != nil && len(m.NormalTris) == len(m.Tris) {
		net := sdBuildEdges(len(m.Normals), m.NormalTris)
		mids, par := sdCornerMids(len(m.Normals), &net, et, split)
		out.Normals = make([]geom.Vec3, len(m.Normals), len(m.Normals)+len(par))
		copy(out.Normals, m.Normals)
		for _, p := range par {
			out.Normals = append(out.Normals, m.Normals[p[0]].Add(m.Normals[p[1]]).Unit())
		}
		out.NormalTris = make([][3]int32, 0, nout)
		for t, tri := range m.NormalTris {
			out.NormalTris = sdEmit(out.NormalTris, tri, mids[t])
		}
	}

	for _, g := range m.Groups {
		ng := Group{Name: g.Name}
		for _, t := range g.Tris {
			for s := sm.TriStart[t]; s < sm.TriStart[t+1]; s++ {
				ng.Tris = append(ng.Tris, s)
			}
		}
		out.Groups = append(out.Groups, ng)
	}
	return out, sm
}
