package mesh

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// topoF64 returns dst resized to n (reusing its storage when large enough)
// and zeroed.
func topoF64(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}

// topoVec3 is topoF64 for []geom.Vec3.
func topoVec3(dst []geom.Vec3, n int) []geom.Vec3 {
	if cap(dst) < n {
		return make([]geom.Vec3, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}

// TriAreas returns the area of each triangle, |(b−a)×(c−a)|/2 (m²), in dst
// (reused when its capacity suffices).
func TriAreas(m *Mesh, dst []float64) []float64 {
	dst = topoF64(dst, len(m.Tris))
	for i, t := range m.Tris {
		a := m.Verts[t[0]]
		dst[i] = m.Verts[t[1]].Sub(a).Cross(m.Verts[t[2]].Sub(a)).Len() / 2
	}
	return dst
}

// TotalArea returns the surface area of m (m²), the sum of its triangle areas.
func TotalArea(m *Mesh) float64 {
	var s float64
	for _, t := range m.Tris {
		a := m.Verts[t[0]]
		s += m.Verts[t[1]].Sub(a).Cross(m.Verts[t[2]].Sub(a)).Len()
	}
	return s / 2
}

// FaceNormals returns the unit normal of each triangle,
// n = (b−a)×(c−a)/|(b−a)×(c−a)|, pointing to the side from which the
// triangle is counter-clockwise. Zero-area triangles get the zero vector.
// dst is reused when its capacity suffices.
func FaceNormals(m *Mesh, dst []geom.Vec3) []geom.Vec3 {
	dst = topoVec3(dst, len(m.Tris))
	for i, t := range m.Tris {
		a := m.Verts[t[0]]
		n := m.Verts[t[1]].Sub(a).Cross(m.Verts[t[2]].Sub(a))
		if l := n.Len(); l > 0 {
			dst[i] = n.Scale(1 / l)
		}
	}
	return dst
}

// VertexNormals returns angle-weighted unit vertex normals (Thürmer and
// Wüthrich 1998, "Computing vertex normals from polygonal facets"):
// n_i ∝ Σ_t θ_t,i n_t over the triangles t at vertex i, where θ_t,i is the
// interior angle of t at i and n_t its unit face normal. The result does
// not depend on how a region is triangulated. Isolated vertices, and
// vertices whose weighted sum vanishes, get the zero vector. dst is reused
// when its capacity suffices.
func VertexNormals(m *Mesh, dst []geom.Vec3) []geom.Vec3 {
	dst = topoVec3(dst, len(m.Verts))
	for _, t := range m.Tris {
		n, a, ok := cornerAngles(m, t)
		if !ok {
			continue
		}
		dst[t[0]] = dst[t[0]].AddScaled(a[0], n)
		dst[t[1]] = dst[t[1]].AddScaled(a[1], n)
		dst[t[2]] = dst[t[2]].AddScaled(a[2], n)
	}
	for i, n := range dst {
		if l := n.Len(); l > 0 {
			dst[i] = n.Scale(1 / l)
		}
	}
	return dst
}

// cornerAngles returns triangle t's unit normal and interior angles at its
// three corners, and false for a degenerate triangle. The angles come from
// atan2(|u×v|, u·v) = atan2(2A, u·v), accurate for all angles, unlike
// acos; the third is π minus the other two.
func cornerAngles(m *Mesh, t [3]int32) (geom.Vec3, [3]float64, bool) {
	p0, p1, p2 := m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]
	e0, e1, e2 := p1.Sub(p0), p2.Sub(p1), p0.Sub(p2)
	n := e0.Cross(e1)
	ln := n.Len()
	if ln == 0 {
		return geom.Vec3{}, [3]float64{}, false
	}
	a0 := math.Atan2(ln, -e2.Dot(e0))
	a1 := math.Atan2(ln, -e0.Dot(e1))
	return n.Scale(1 / ln), [3]float64{a0, a1, math.Pi - a0 - a1}, true
}

// VertexNormalAt returns vertex v's normal as VertexNormals gives it, with
// the same bits, from fan, the triangles at v in ascending order (as
// Topology.VertTriangles lists them): for a caller that needs the normals
// of a few vertices of a moving mesh, not all of them.
func VertexNormalAt(m *Mesh, v int32, fan []int32) geom.Vec3 {
	var sum geom.Vec3
	for _, ti := range fan {
		t := m.Tris[ti]
		n, a, ok := cornerAngles(m, t)
		if !ok {
			continue
		}
		k := 2
		switch v {
		case t[0]:
			k = 0
		case t[1]:
			k = 1
		}
		sum = sum.AddScaled(a[k], n)
	}
	if l := sum.Len(); l > 0 {
		sum = sum.Scale(1 / l)
	}
	return sum
}

// MixedAreas returns the mixed Voronoi area of each vertex (m²) after Meyer,
// Desbrun, Schröder and Barr 2003, "Discrete differential-geometry operators
// for triangulated 2-manifolds", Fig. 4: a non-obtuse triangle gives each
// corner P its Voronoi part (|PR|² cot Q + |PQ|² cot R)/8; an obtuse
// triangle gives area/2 to the obtuse corner and area/4 to the others. The
// areas tile the surface: they sum to TotalArea. Zero-area triangles add
// nothing. dst is reused when its capacity suffices.
func MixedAreas(m *Mesh, dst []float64) []float64 {
	dst = topoF64(dst, len(m.Verts))
	for _, t := range m.Tris {
		p0, p1, p2 := m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]
		e0, e1, e2 := p1.Sub(p0), p2.Sub(p1), p0.Sub(p2) // opposite corners 2, 0, 1
		dbl := e0.Cross(e2).Len()                        // 2·area
		if dbl == 0 {
			continue
		}
		area := dbl / 2
		// u·v at each corner: corner 0 between e0 and −e2, etc.
		d0, d1, d2 := -e2.Dot(e0), -e0.Dot(e1), -e1.Dot(e2)
		switch {
		case d0 < 0:
			dst[t[0]] += area / 2
			dst[t[1]] += area / 4
			dst[t[2]] += area / 4
		case d1 < 0:
			dst[t[0]] += area / 4
			dst[t[1]] += area / 2
			dst[t[2]] += area / 4
		case d2 < 0:
			dst[t[0]] += area / 4
			dst[t[1]] += area / 4
			dst[t[2]] += area / 2
		default:
			c0, c1, c2 := d0/dbl, d1/dbl, d2/dbl // cotangents
			l0, l1, l2 := e0.Len2(), e1.Len2(), e2.Len2()
			dst[t[0]] += (l0*c2 + l2*c1) / 8
			dst[t[1]] += (l0*c2 + l1*c0) / 8
			dst[t[2]] += (l1*c0 + l2*c1) / 8
		}
	}
	return dst
}
