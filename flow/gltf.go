package flow

import (
	"fmt"

	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
)

// GLTF returns f as a glTF scene that any player animates with standard
// GPU skinning and morph targets: the garment (mesh 0) in its base shape
// with its four skin influences per vertex and K morph targets named
// "wrinkle00", "wrinkle01", ...; the skeleton; and one animation with the
// joint rotations, the root translation and the morph weights (each in
// [−1, 1]) at every frame. extra meshes (e.g. the body, skinned on the same
// skeleton) are appended after the garment; their Skin influences refer to
// f.Skeleton's joints. Write it with gltfio.WriteFile.
//
// Morph targets and weights are stored as float32 in glTF (no
// KHR_mesh_quantization), so the .glb is about 2× the targets' .pflow size.
func (f *Flow) GLTF(extra ...gltfio.Mesh) (*gltfio.Scene, error) {
	sk := f.Skeleton
	gs := &gltfio.Scene{Skeleton: anim.Skeleton(sk)}
	name := f.Name
	if name == "" {
		name = "garment"
	}
	g := gltfio.Mesh{Name: name, Mesh: f.Mesh(), Skin: anim.Skin(f.Weights)}
	for i := 0; i < f.K; i++ {
		g.Morph = append(g.Morph, f.Target(i, nil))
		g.MorphNames = append(g.MorphNames, fmt.Sprintf("wrinkle%02d", i))
	}
	gs.Meshes = append(gs.Meshes, g)
	gs.Meshes = append(gs.Meshes, extra...)
	a := anim.Animation(name, sk, f.Poses, f.FPS)
	if f.K > 0 {
		tr := gltfio.MorphTrack{Mesh: 0, Weights: make([][]float64, f.NumFrames())}
		for t := range tr.Weights {
			w := make([]float64, f.K)
			for i := range w {
				w[i] = f.Weight(t, i)
			}
			tr.Weights[t] = w
		}
		a.Morphs = append(a.Morphs, tr)
	}
	gs.Animations = append(gs.Animations, a)
	if err := gs.Validate(); err != nil {
		return nil, err
	}
	return gs, nil
}
