package mesh

import (
	"errors"
	"fmt"

	"github.com/pleat-dev/pleat/geom"
)

// Mesh is an indexed triangle mesh with optional per-corner texture
// coordinates, optional per-corner normals and named triangle groups.
type Mesh struct {
	// Verts are the vertex positions.
	Verts []geom.Vec3
	// Tris are the triangles, three indices into Verts, counter-clockwise.
	Tris [][3]int32

	// UVs are texture (pattern) coordinates; UVTris, when non-nil, has one
	// entry per triangle indexing UVs for each corner.
	UVs    []geom.Vec2
	UVTris [][3]int32

	// Normals are optional stored normals (as read from a file); NormalTris,
	// when non-nil, has one entry per triangle indexing Normals. Computed
	// normals come from VertexNormals instead.
	Normals    []geom.Vec3
	NormalTris [][3]int32

	// Groups name subsets of triangles (OBJ g/o groups, glTF primitives).
	Groups []Group
}

// Group is a named set of triangle indices.
type Group struct {
	Name string
	Tris []int32
}

// ErrEmpty is returned by Validate for a mesh with no vertices or no triangles.
var ErrEmpty = errors.New("mesh: empty mesh")

// ElementError reports a bad element of a mesh: its kind ("vertex",
// "triangle", "uv", ...), its index and what is wrong.
type ElementError struct {
	Kind  string
	Index int
	Msg   string
}

func (e *ElementError) Error() string { return fmt.Sprintf("mesh: %s %d: %s", e.Kind, e.Index, e.Msg) }

// NumVerts returns the number of vertices.
func (m *Mesh) NumVerts() int { return len(m.Verts) }

// NumTris returns the number of triangles.
func (m *Mesh) NumTris() int { return len(m.Tris) }

// HasUVs reports whether the mesh carries per-corner texture coordinates.
func (m *Mesh) HasUVs() bool { return m.UVTris != nil && len(m.UVTris) == len(m.Tris) }

// Validate checks that the mesh is non-empty, every coordinate is finite and
// every index is in range, and that no triangle repeats a vertex. It does not
// reject zero-area triangles with distinct vertices (use DegenerateTris).
func (m *Mesh) Validate() error {
	if len(m.Verts) == 0 || len(m.Tris) == 0 {
		return ErrEmpty
	}
	for i, v := range m.Verts {
		if !v.IsFinite() {
			return &ElementError{"vertex", i, fmt.Sprintf("non-finite position %v", v)}
		}
	}
	nv := int32(len(m.Verts))
	for i, t := range m.Tris {
		for _, k := range t {
			if k < 0 || k >= nv {
				return &ElementError{"triangle", i, fmt.Sprintf("vertex index %d out of range [0,%d)", k, nv)}
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return &ElementError{"triangle", i, fmt.Sprintf("repeats a vertex %v", t)}
		}
	}
	if m.UVTris != nil {
		if len(m.UVTris) != len(m.Tris) {
			return &ElementError{"uv-triangle", len(m.UVTris), fmt.Sprintf("have %d uv triangles for %d triangles", len(m.UVTris), len(m.Tris))}
		}
		nuv := int32(len(m.UVs))
		for i, t := range m.UVTris {
			for _, k := range t {
				if k < 0 || k >= nuv {
					return &ElementError{"uv-triangle", i, fmt.Sprintf("uv index %d out of range [0,%d)", k, nuv)}
				}
			}
		}
		for i, uv := range m.UVs {
			if !(geom.Vec3{X: uv.X, Y: uv.Y}).IsFinite() {
				return &ElementError{"uv", i, fmt.Sprintf("non-finite coordinate %v", uv)}
			}
		}
	}
	if m.NormalTris != nil {
		if len(m.NormalTris) != len(m.Tris) {
			return &ElementError{"normal-triangle", len(m.NormalTris), fmt.Sprintf("have %d normal triangles for %d triangles", len(m.NormalTris), len(m.Tris))}
		}
		nn := int32(len(m.Normals))
		for i, t := range m.NormalTris {
			for _, k := range t {
				if k < 0 || k >= nn {
					return &ElementError{"normal-triangle", i, fmt.Sprintf("normal index %d out of range [0,%d)", k, nn)}
				}
			}
		}
	}
	nt := int32(len(m.Tris))
	for _, g := range m.Groups {
		for _, t := range g.Tris {
			if t < 0 || t >= nt {
				return &ElementError{"group " + g.Name + " triangle", int(t), fmt.Sprintf("out of range [0,%d)", nt)}
			}
		}
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *Mesh) Clone() *Mesh {
	c := &Mesh{
		Verts:      append([]geom.Vec3(nil), m.Verts...),
		Tris:       append([][3]int32(nil), m.Tris...),
		UVs:        append([]geom.Vec2(nil), m.UVs...),
		UVTris:     cloneTris(m.UVTris),
		Normals:    append([]geom.Vec3(nil), m.Normals...),
		NormalTris: cloneTris(m.NormalTris),
	}
	for _, g := range m.Groups {
		c.Groups = append(c.Groups, Group{Name: g.Name, Tris: append([]int32(nil), g.Tris...)})
	}
	return c
}

func cloneTris(t [][3]int32) [][3]int32 {
	if t == nil {
		return nil
	}
	return append([][3]int32(nil), t...)
}

// Bounds returns the bounding box of the vertices.
func (m *Mesh) Bounds() geom.Box { return geom.BoxOf(m.Verts) }

// Group returns the group with the given name, or nil.
func (m *Mesh) Group(name string) *Group {
	for i := range m.Groups {
		if m.Groups[i].Name == name {
			return &m.Groups[i]
		}
	}
	return nil
}

// GroupVerts returns the sorted distinct vertex ids used by group g's triangles.
func (m *Mesh) GroupVerts(g *Group) []int32 {
	seen := make([]bool, len(m.Verts))
	for _, t := range g.Tris {
		for _, v := range m.Tris[t] {
			seen[v] = true
		}
	}
	var out []int32
	for i, s := range seen {
		if s {
			out = append(out, int32(i))
		}
	}
	return out
}

// RepeatedIndex reports an index that occurs twice in vs (a polygon that
// repeats a vertex, which cannot be triangulated into valid triangles).
// Short lists are scanned pairwise; long ones use a set.
func RepeatedIndex(vs []int32) (int32, bool) {
	if len(vs) <= 32 {
		for i := 1; i < len(vs); i++ {
			for j := 0; j < i; j++ {
				if vs[i] == vs[j] {
					return vs[i], true
				}
			}
		}
		return 0, false
	}
	seen := make(map[int32]struct{}, len(vs))
	for _, v := range vs {
		if _, ok := seen[v]; ok {
			return v, true
		}
		seen[v] = struct{}{}
	}
	return 0, false
}

// Extract returns the mesh of m's triangles for which keep(t) is true: the
// vertices and texture coordinates they use, renumbered in order of first
// use, and the groups restricted to them (a group left with no triangle is
// dropped; stored normals are not carried). src[i] is the vertex of m that
// new vertex i is, and tmap[t] the new index of m's triangle t, -1 for a
// triangle not kept.
func Extract(m *Mesh, keep func(t int) bool) (out *Mesh, src, tmap []int32) {
	vmap := filled(len(m.Verts), -1)
	hasUV := m.HasUVs()
	var uvmap []int32
	if hasUV {
		uvmap = filled(len(m.UVs), -1)
	}
	out = &Mesh{}
	tmap = make([]int32, len(m.Tris))
	for t, tr := range m.Tris {
		tmap[t] = -1
		if !keep(t) {
			continue
		}
		var nt, nuv [3]int32
		for k, v := range tr {
			if vmap[v] < 0 {
				vmap[v] = int32(len(out.Verts))
				out.Verts = append(out.Verts, m.Verts[v])
				src = append(src, v)
			}
			nt[k] = vmap[v]
			if hasUV {
				u := m.UVTris[t][k]
				if uvmap[u] < 0 {
					uvmap[u] = int32(len(out.UVs))
					out.UVs = append(out.UVs, m.UVs[u])
				}
				nuv[k] = uvmap[u]
			}
		}
		tmap[t] = int32(len(out.Tris))
		out.Tris = append(out.Tris, nt)
		if hasUV {
			out.UVTris = append(out.UVTris, nuv)
		}
	}
	for _, g := range m.Groups {
		ng := Group{Name: g.Name}
		for _, t := range g.Tris {
			if t >= 0 && int(t) < len(tmap) && tmap[t] >= 0 {
				ng.Tris = append(ng.Tris, tmap[t])
			}
		}
		if len(ng.Tris) > 0 {
			out.Groups = append(out.Groups, ng)
		}
	}
	return out, src, tmap
}

// filled returns n copies of v.
func filled(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}
