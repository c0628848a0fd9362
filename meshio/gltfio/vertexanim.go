package gltfio

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// VertexAnimation turns a sequence of vertex positions into a scene that
// any glTF viewer plays: one mesh (base, named "vertexanim") with one morph
// target per frame, target i = frames[i] − base.Verts, and one animation
// ("vertexanim") whose morph weights are the unit vector e_i at time i/fps.
// With LINEAR interpolation a time between frames i and i+1 blends the two
// frames linearly, and frame i itself shows exactly frames[i]. three.js plays
// it through morphTargetInfluences and Blender imports the targets as shape
// keys named "frame 0", "frame 1", ...
//
// The weight track holds len(frames)² numbers, so this suits clips of up to
// a few hundred frames; base keeps its UVs and normals. base is not
// modified and the scene does not share its slices with frames.
func VertexAnimation(base *mesh.Mesh, frames [][]geom.Vec3, fps float64) (*Scene, error) {
	if base == nil || len(frames) == 0 {
		return nil, serr("vertex animation", "no base mesh or no frames")
	}
	if !(fps > 0) || !finite(fps) {
		return nil, serr("vertex animation", "bad frame rate %v", fps)
	}
	nv := len(base.Verts)
	nf := len(frames)
	m := Mesh{Name: "vertexanim", Mesh: base.Clone()}
	m.Morph = make([][]geom.Vec3, nf)
	m.MorphNames = make([]string, nf)
	a := Animation{Name: "vertexanim", Times: make([]float64, nf)}
	tr := MorphTrack{Mesh: 0, Weights: make([][]float64, nf)}
	for f, fr := range frames {
		if len(fr) != nv {
			return nil, serr(fmt.Sprintf("vertex animation: frame %d", f), "%d positions for %d vertices", len(fr), nv)
		}
		d := make([]geom.Vec3, nv)
		for v := range d {
			d[v] = fr[v].Sub(base.Verts[v])
		}
		m.Morph[f] = d
		m.MorphNames[f] = fmt.Sprintf("frame %d", f)
		a.Times[f] = float64(f) / fps
		w := make([]float64, nf)
		w[f] = 1
		tr.Weights[f] = w
	}
	a.Morphs = []MorphTrack{tr}
	s := &Scene{Meshes: []Mesh{m}, Animations: []Animation{a}}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}
