package meshio

import (
	"fmt"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
)

// loadGLTF reads every mesh of a glTF file (skinned ones in bind pose) and
// merges them into one mesh with one group per glTF mesh.
func loadGLTF(path string) (*mesh.Mesh, error) {
	s, err := gltfio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(s.Meshes) == 0 {
		return nil, fmt.Errorf("%s: no triangle mesh", path)
	}
	if len(s.Meshes) == 1 {
		return s.Meshes[0].Mesh, nil
	}
	parts := make([]*mesh.Mesh, len(s.Meshes))
	names := make([]string, len(s.Meshes))
	for i, m := range s.Meshes {
		parts[i] = m.Mesh
		names[i] = m.Name
		if names[i] == "" {
			names[i] = fmt.Sprintf("mesh%d", i)
		}
	}
	return Merge(parts, names), nil
}

// Merge concatenates meshes into one, renumbering vertices, UVs and normals;
// each part becomes a group named by names[i] (its own groups are dropped).
func Merge(parts []*mesh.Mesh, names []string) *mesh.Mesh {
	out := &mesh.Mesh{}
	uvs := true
	for _, p := range parts {
		uvs = uvs && p.HasUVs()
	}
	for i, p := range parts {
		v0, uv0 := int32(len(out.Verts)), int32(len(out.UVs))
		t0 := int32(len(out.Tris))
		out.Verts = append(out.Verts, p.Verts...)
		g := mesh.Group{Name: names[i]}
		for k, t := range p.Tris {
			out.Tris = append(out.Tris, [3]int32{t[0] + v0, t[1] + v0, t[2] + v0})
			g.Tris = append(g.Tris, t0+int32(k))
			if uvs {
				u := p.UVTris[k]
				out.UVTris = append(out.UVTris, [3]int32{u[0] + uv0, u[1] + uv0, u[2] + uv0})
			}
		}
		if uvs {
			out.UVs = append(out.UVs, p.UVs...)
		}
		out.Groups = append(out.Groups, g)
	}
	return out
}

// saveGLTF writes a static mesh as .glb or .gltf.
func saveGLTF(path string, m *mesh.Mesh) error {
	return gltfio.WriteFile(path, &gltfio.Scene{Meshes: []gltfio.Mesh{{Name: "mesh", Mesh: m}}})
}
