package meshio

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/meshio/ply"
)

// Options adjusts reading.
type Options struct {
	// Scale multiplies every position; 0 means 1.
	Scale float64
}

// Format names a file format.
type Format string

// The formats meshio knows.
const (
	OBJ  Format = "obj"
	PLY  Format = "ply"
	GLB  Format = "glb"
	GLTF Format = "gltf"
	PC2  Format = "pc2"
)

// FormatOf returns the format of path from its extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".obj":
		return OBJ, nil
	case ".ply":
		return PLY, nil
	case ".glb":
		return GLB, nil
	case ".gltf":
		return GLTF, nil
	case ".pc2":
		return PC2, nil
	}
	return "", fmt.Errorf("%s: unknown mesh format %q (want .obj, .ply, .glb, .gltf or .pc2)", path, filepath.Ext(path))
}

// Load reads the mesh at path, choosing the reader by extension. For glTF
// files it returns all meshes merged into one (see gltfio for scenes).
func Load(path string, opt Options) (*mesh.Mesh, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	var m *mesh.Mesh
	switch f {
	case OBJ:
		r, err := obj.ReadFileDetailed(path, obj.Options{Scale: opt.Scale})
		if err != nil {
			return nil, err
		}
		return r.Mesh, nil
	case PLY:
		m, err = ply.ReadFile(path)
	case GLB, GLTF:
		m, err = loadGLTF(path)
	case PC2:
		return nil, fmt.Errorf("%s: a PC2 point cache holds positions only; give its mesh too", path)
	}
	if err != nil {
		return nil, err
	}
	if opt.Scale != 0 && opt.Scale != 1 {
		for i := range m.Verts {
			m.Verts[i] = m.Verts[i].Scale(opt.Scale)
		}
	}
	return m, nil
}

// Save writes m to path, choosing the writer by extension (PLY is written
// binary little-endian).
func Save(path string, m *mesh.Mesh) error {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	switch f {
	case OBJ:
		return obj.WriteFile(path, m)
	case PLY:
		return ply.WriteFile(path, m, ply.WriteOptions{Binary: true})
	case GLB, GLTF:
		return saveGLTF(path, m)
	}
	return fmt.Errorf("%s: cannot write a single mesh as %s", path, f)
}
