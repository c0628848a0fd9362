package gltfio

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// SplitVertices returns the vertex layout the writer uses for m. glTF keeps
// one vertex per distinct (position, uv, normal) triple, while m stores UVs
// and normals per triangle corner; so a mesh vertex whose corners disagree
// (a UV seam, a hard edge) becomes several glTF vertices. src[i] is the mesh
// vertex that glTF vertex i copies, and tris are m's triangles over glTF
// vertices. The first len(m.Verts) glTF vertices are the mesh vertices in
// order (src[i] = i); copies follow in triangle-corner order. Corners are
// compared after rounding to float32, as written.
func SplitVertices(m *mesh.Mesh) (src []int32, tris [][3]int32) {
	l := split(m)
	return l.src, l.tris
}

// layout is a mesh expanded to glTF vertices.
type layout struct {
	src  []int32      // glTF vertex -> mesh vertex
	tris [][3]int32   // over glTF vertices
	uv   [][2]float32 // glTF TEXCOORD_0 (V flipped), nil without UVs
	nrm  [][3]float32 // unit normals
}

type cornerKey struct {
	v       int32
	u, w    uint32 // float32 bits of the glTF uv
	x, y, z uint32 // float32 bits of the normal
}

func split(m *mesh.Mesh) layout {
	nv := len(m.Verts)
	hasUV := m.HasUVs()
	hasN := m.NormalTris != nil && len(m.NormalTris) == len(m.Tris)
	vn := vertexNormals(m)
	var l layout
	l.src = make([]int32, nv, nv+nv/4)
	l.nrm = make([][3]float32, nv, nv+nv/4)
	if hasUV {
		l.uv = make([][2]float32, nv, nv+nv/4)
	}
	used := make([]bool, nv)
	for i := range l.src {
		l.src[i] = int32(i)
		l.nrm[i] = f32v(vn[i])
	}
	keys := make(map[cornerKey]int32)
	l.tris = make([][3]int32, len(m.Tris))
	for t, tri := range m.Tris {
		for c, v := range tri {
			var uv [2]float32
			if hasUV {
				p := m.UVs[m.UVTris[t][c]]
				uv = [2]float32{float32(p.X), float32(1 - p.Y)}
			}
			n := l.nrm[v]
			if hasN {
				n = f32v(unitOr(m.Normals[m.NormalTris[t][c]], vn[v]))
			}
			k := cornerKey{v, math.Float32bits(uv[0]), math.Float32bits(uv[1]),
				math.Float32bits(n[0]), math.Float32bits(n[1]), math.Float32bits(n[2])}
			id, ok := keys[k]
			if !ok {
				if !used[v] {
					id = v
					used[v] = true
				} else {
					id = int32(len(l.src))
					l.src = append(l.src, v)
					l.nrm = append(l.nrm, [3]float32{})
					if hasUV {
						l.uv = append(l.uv, [2]float32{})
					}
				}
				l.nrm[id] = n
				if hasUV {
					l.uv[id] = uv
				}
				keys[k] = id
			}
			l.tris[t][c] = id
		}
	}
	return l
}

func f32v(v geom.Vec3) [3]float32 { return [3]float32{float32(v.X), float32(v.Y), float32(v.Z)} }

// unitOr returns v normalised, or fallback when v is zero or not finite.
func unitOr(v, fallback geom.Vec3) geom.Vec3 {
	l := v.Len()
	if !(l > 1e-30) || !finite(l) {
		return fallback
	}
	return v.Scale(1 / l)
}

// vertexNormals returns angle-weighted vertex normals: each triangle adds its
// unit normal times its interior angle at the vertex (Thürmer and Wüthrich
// 1998), which does not depend on how a surface is triangulated. A vertex
// with no non-degenerate triangle gets +Y, so every normal is unit length
// (the glTF validator rejects others).
func vertexNormals(m *mesh.Mesh) []geom.Vec3 {
	n := make([]geom.Vec3, len(m.Verts))
	for _, t := range m.Tris {
		a, b, c := m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]
		fn := geom.TriangleNormal(a, b, c)
		l := fn.Len()
		if !(l > 0) {
			continue
		}
		fn = fn.Scale(1 / l)
		n[t[0]] = n[t[0]].AddScaled(b.Sub(a).Angle(c.Sub(a)), fn)
		n[t[1]] = n[t[1]].AddScaled(c.Sub(b).Angle(a.Sub(b)), fn)
		n[t[2]] = n[t[2]].AddScaled(a.Sub(c).Angle(b.Sub(c)), fn)
	}
	for i := range n {
		n[i] = unitOr(n[i], geom.Vec3{Y: 1})
	}
	return n
}
