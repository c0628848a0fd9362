package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/meshio/pc2"
	"github.com/pleat-dev/pleat/meshio/usd"
	"github.com/pleat-dev/pleat/scene"
)

// NumFrames returns the number of frames simulated.
func (r *Result) NumFrames() int {
	if len(r.Frames) == 0 {
		return 0
	}
	return len(r.Frames[0])
}

// Merged returns the pieces as one mesh (piece after piece, one group per
// piece) in their rest pose, and each frame's positions in that order.
func (r *Result) Merged() (*mesh.Mesh, [][]geom.Vec3) {
	parts := make([]*mesh.Mesh, len(r.Pieces))
	names := make([]string, len(r.Pieces))
	for i, p := range r.Pieces {
		parts[i], names[i] = p.Mesh, p.Name
	}
	m := meshio.Merge(parts, names)
	frames := make([][]geom.Vec3, r.NumFrames())
	for f := range frames {
		for i := range r.Pieces {
			frames[f] = append(frames[f], r.Frames[i][f]...)
		}
	}
	return m, frames
}

// MergedRest returns the rest positions the solver used for the vertices
// of Merged's mesh: each piece's Rest, or its mesh's vertices where it has
// none.
func (r *Result) MergedRest() []geom.Vec3 {
	var x []geom.Vec3
	for _, p := range r.Pieces {
		if p.Rest != nil {
			x = append(x, p.Rest...)
		} else {
			x = append(x, p.Mesh.Verts...)
		}
	}
	return x
}

// GLTF returns the simulation as a glTF scene: the skinned, animated body of
// s (s.OutputBody: whole unless s.HideCovered) and each garment piece as a
// mesh with one morph target per frame whose weights step through the
// frames (vertex animation; three.js plays it, and Blender imports it as
// shape keys). Large: 12 bytes per vertex per frame.
func (r *Result) GLTF(s *scene.Scene, name string) (*gltfio.Scene, error) {
	n := r.NumFrames()
	if n == 0 {
		return nil, fmt.Errorf("sim: no frames to write")
	}
	sk := s.Character.Skeleton
	gs := &gltfio.Scene{Skeleton: anim.Skeleton(sk)}
	gs.Meshes = append(gs.Meshes, gltfio.Mesh{Name: "body", Mesh: s.OutputBody(), Skin: anim.Skin(s.Character.Weights)})
	a := anim.Animation(name, sk, s.Clip.Poses[:n], r.FPS)
	for i, p := range r.Pieces {
		base := r.Frames[i][0]
		m := *p.Mesh
		m.Verts = base
		gm := gltfio.Mesh{Name: p.Name, Mesh: &m}
		w := make([][]float64, n)
		for f := 0; f < n; f++ {
			d := make([]geom.Vec3, len(base))
			for v := range d {
				d[v] = r.Frames[i][f][v].Sub(base[v])
			}
			gm.Morph = append(gm.Morph, d)
			gm.MorphNames = append(gm.MorphNames, fmt.Sprintf("frame %d", f))
			w[f] = make([]float64, n)
			w[f][f] = 1
		}
		a.Morphs = append(a.Morphs, gltfio.MorphTrack{Mesh: len(gs.Meshes), Weights: w})
		gs.Meshes = append(gs.Meshes, gm)
	}
	gs.Animations = []gltfio.Animation{a}
	return gs, gs.Validate()
}

// Write saves the garment animation by extension: .glb/.gltf or
// .usda/.usdz (with the body; see GLTF and USD), .pc2, or a folder (path
// ending in / or an existing directory) of OBJ frames.
//
// Beside a .pc2 it writes the mesh as .obj (viewers and Blender's PC2
// importer need one) in the rest shape the solver measured strain against
// (MergedRest: the garment after the initial push-out from the body and
// the inner layers), so that edge strains l/L − 1 recomputed from the two
// files reproduce FrameStats.MaxStretch. (With Options.PatternRest and
// metric UVs the rest lengths are those of the file's UVs instead.)
func (r *Result) Write(path string, s *scene.Scene) ([]string, error) {
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	if isFolder(path) {
		m, frames := r.Merged()
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, err
		}
		var files []string
		fm := *m
		for f, fr := range frames {
			fm.Verts = fr
			name := filepath.Join(path, fmt.Sprintf("frame_%05d.obj", f))
			if err := obj.WriteFile(name, &fm); err != nil {
				return files, err
			}
			files = append(files, name)
		}
		return files, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".glb", ".gltf":
		gs, err := r.GLTF(s, "simulate")
		if err != nil {
			return nil, err
		}
		return []string{path}, gltfio.WriteFile(path, gs)
	case ".pc2":
		m, frames := r.Merged()
		c := &pc2.Cache{NumPoints: len(m.Verts), Start: 0, SampleRate: 1, Frames: frames}
		if err := pc2.WriteFile(path, c); err != nil {
			return nil, err
		}
		rest := strings.TrimSuffix(path, filepath.Ext(path)) + ".obj"
		rm := *m
		rm.Verts = r.MergedRest()
		return []string{path, rest}, obj.WriteFile(rest, &rm)
	case ".usda", ".usdz":
		st, err := r.USD(s)
		if err != nil {
			return nil, err
		}
		return []string{path}, usd.WriteFile(path, st)
	}
	return nil, CheckPath(path)
}

// isFolder reports whether Write takes path as a folder of OBJ frames: it
// ends in / or is an existing directory.
func isFolder(path string) bool {
	st, err := os.Stat(path)
	return (err == nil && st.IsDir()) || strings.HasSuffix(path, "/")
}

// CheckPath says, without writing anything, whether Write takes path: a
// folder, or a file whose extension is one of .glb, .gltf, .pc2, .usda
// and .usdz (any case). Commands call it before long work.
func CheckPath(path string) error {
	if isFolder(path) {
		return nil
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".glb", ".gltf", ".pc2", ".usda", ".usdz":
		return nil
	case "":
		return fmt.Errorf("%s: no extension: write .glb, .gltf, .pc2, .usda, .usdz or a folder/ of OBJ frames", path)
	default:
		return fmt.Errorf("%s: %s is not written: write .glb, .gltf, .pc2, .usda, .usdz or a folder/ of OBJ frames", path, ext)
	}
}
