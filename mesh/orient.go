package mesh

import "github.com/pleat-dev/pleat/geom"

// Orient turns triangles of m in place (swapping their second and third
// corners, and those of UVTris and NormalTris alongside) so that the two
// triangles of every manifold edge traverse it in opposite directions, as a
// consistently oriented surface's do. Garments as exported often have a few
// triangles wound the other way (the MakeHuman female_elegantsuit01 has 20
// such edges), and their normals then point into the body where their
// neighbours' point out.
//
// Each region of triangles joined through manifold edges keeps the
// orientation that covers more of its area: the minority is turned. A
// non-orientable region (a Möbius strip) cannot agree everywhere; its
// remaining disagreeing edges are counted in conflicts. Non-manifold edges
// (three or more triangles) neither join regions nor count. It returns the
// number of triangles turned.
func Orient(m *Mesh) (turned, conflicts int, err error) {
	tp, err := NewTopology(m)
	if err != nil {
		return 0, 0, err
	}
	nt := len(m.Tris)
	// rel is +1 for a triangle that keeps the orientation of its region's
	// first triangle, −1 for one that must turn to agree with it, 0 unseen.
	rel := make([]int8, nt)
	var queue, region []int32
	for s := range nt {
		if rel[s] != 0 {
			continue
		}
		rel[s] = 1
		queue = append(queue[:0], int32(s))
		region = region[:0]
		for len(queue) > 0 {
			t := queue[0]
			queue = queue[1:]
			region = append(region, t)
			for k := range 3 {
				e := tp.TriEdges[t][k]
				lo, hi := tp.EdgeTriStart[e], tp.EdgeTriStart[e+1]
				if hi-lo != 2 {
					continue
				}
				u := tp.EdgeTris[lo]
				if u == t {
					u = tp.EdgeTris[lo+1]
				}
				if rel[u] != 0 {
					continue
				}
				want := rel[t]
				if traverses(m.Tris[t], tp.Edges[e]) == traverses(m.Tris[u], tp.Edges[e]) {
					want = -want
				}
				rel[u] = want
				queue = append(queue, u)
			}
		}
		var keep, turn float64
		for _, t := range region {
			tr := m.Tris[t]
			a := geom.TriangleArea(m.Verts[tr[0]], m.Verts[tr[1]], m.Verts[tr[2]])
			if rel[t] > 0 {
				keep += a
			} else {
				turn += a
			}
		}
		if turn > keep {
			for _, t := range region {
				rel[t] = -rel[t]
			}
		}
	}
	for t := range nt {
		if rel[t] > 0 {
			continue
		}
		turned++
		m.Tris[t][1], m.Tris[t][2] = m.Tris[t][2], m.Tris[t][1]
		if m.UVTris != nil {
			m.UVTris[t][1], m.UVTris[t][2] = m.UVTris[t][2], m.UVTris[t][1]
		}
		if m.NormalTris != nil {
			m.NormalTris[t][1], m.NormalTris[t][2] = m.NormalTris[t][2], m.NormalTris[t][1]
		}
	}
	if turned == 0 {
		return 0, len(tp.InconsistentEdges), nil
	}
	after, err := NewTopology(m)
	if err != nil {
		return turned, 0, err
	}
	return turned, len(after.InconsistentEdges), nil
}

// traverses reports whether triangle t runs along edge e from e[0] to e[1].
func traverses(t [3]int32, e [2]int32) bool {
	for k := range 3 {
		if t[k] == e[0] && t[(k+1)%3] == e[1] {
			return true
		}
	}
	return false
}
