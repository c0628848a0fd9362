package refine

import (
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// pnMid returns the middle of the PN-triangle edge curve (Vlachos, Peters,
// Boyd and Mitchell 2001, "Curved PN triangles"): the cubic Bézier with
// ends pa, pb and inner control points pa + (d − (d·na)na)/3 and
// pb − (d − (d·nb)nb)/3, d = pb − pa, evaluated at 1/2:
//
//	(pa + pb)/2 + ((d·nb)nb − (d·na)na)/8.
//
// On a circle through pa and pb with its normals it is within O(θ⁴) of the
// arc's midpoint (θ the half-angle), against O(θ²) for the straight
// midpoint.
//
// The offset is capped at pnMaxOffset times the edge length: across a
// sharp coarse fold (normals far apart) the cubic bulges, and its half
// edges would start the refined cloth stretched against its rest shape.
func pnMid(pa, pb, na, nb geom.Vec3) geom.Vec3 {
	d := pb.Sub(pa)
	off := nb.Scale(d.Dot(nb)).Sub(na.Scale(d.Dot(na))).Scale(1.0 / 8)
	if l, lim := off.Len(), pnMaxOffset*d.Len(); l > lim {
		off = off.Scale(lim / l)
	}
	return pa.Add(pb).Scale(0.5).Add(off)
}

// pnMaxOffset caps the PN midpoint's offset from the straight midpoint, as
// a fraction of the edge length: a perpendicular offset of 0.1·L lengthens
// the half edges by 2 %. (A circle's sagitta at the middle of a chord L is
// L²/(8R): 0.1·L where the chord spans 47° of arc.)
const pnMaxOffset = 0.1

// keyPositions fills dst (len n + edges) with the positions of every key of
// a mesh with topology top at positions x: x itself for the vertices, the
// PN midpoint (with angle-weighted vertex normals) for each edge. nrm is a
// scratch buffer for the normals, returned for reuse.
func keyPositions(top *mesh.Topology, tris [][3]int32, x, dst, nrm []geom.Vec3) ([]geom.Vec3, []geom.Vec3) {
	n := len(x)
	nrm = mesh.VertexNormals(&mesh.Mesh{Verts: x, Tris: tris}, nrm)
	if cap(dst) < n+len(top.Edges) {
		dst = make([]geom.Vec3, n+len(top.Edges))
	}
	dst = dst[:n+len(top.Edges)]
	copy(dst, x)
	for e, ab := range top.Edges {
		a, b := ab[0], ab[1]
		dst[n+e] = pnMid(x[a], x[b], nrm[a], nrm[b])
	}
	return dst, nrm
}

// refined returns the mesh of coarse refined at tris (mesh.SubdivideTris,
// red–green) and the key of each of its vertices, with rest positions from
// keys (by key).
func refined(coarse *mesh.Mesh, top *mesh.Topology, tris []int32, keyRest []geom.Vec3) (*mesh.Mesh, *mesh.SubdivMap, []int32) {
	m, sm := mesh.SubdivideTris(coarse, tris)
	keys := make([]int32, len(m.Verts))
	n := int32(sm.NumOrig)
	for i := range keys {
		if i < sm.NumOrig {
			keys[i] = int32(i)
			continue
		}
		p := sm.Parents[i-sm.NumOrig]
		e, _ := top.Edge(p[0], p[1])
		keys[i] = n + e
	}
	for i, k := range keys {
		m.Verts[i] = keyRest[k]
	}
	return m, sm, keys
}
