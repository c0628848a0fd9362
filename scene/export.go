package scene

import (
	"fmt"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
)

// OutputBody returns the body mesh that outputs (glTF, renders) show with
// the garments: the whole body, or with HideCovered the body without the
// triangles under the garments' .mhclo delete_verts
// (character.Character.HiddenBody). A garment that lifts off the body shows
// the skin under it in the first case and the background through a hole in
// the second. Vertex ids are the same in both, so the body's skin weights
// and skinned positions apply. The mesh is not to be modified.
func (s *Scene) OutputBody() *mesh.Mesh {
	if s.HideCovered {
		return s.Character.HiddenBody(s.Garments...)
	}
	return s.Character.Body
}

// GLTF returns the scene as a glTF scene: the skinned body (OutputBody) and
// each skinned garment on one skeleton, and one animation of the clip's
// joint rotations and root translation. Any glTF player skins it on the
// GPU; this is the skinning baseline.
func (s *Scene) GLTF(name string) (*gltfio.Scene, error) {
	sk := s.Character.Skeleton
	gs := &gltfio.Scene{Skeleton: anim.Skeleton(sk)}
	gs.Meshes = append(gs.Meshes, gltfio.Mesh{Name: "body", Mesh: s.OutputBody(), Skin: anim.Skin(s.Character.Weights)})
	for i, g := range s.Garments {
		n := g.Name
		if n == "" {
			n = fmt.Sprintf("garment%d", i)
		}
		gs.Meshes = append(gs.Meshes, gltfio.Mesh{Name: n, Mesh: g.Mesh, Skin: anim.Skin(g.Weights)})
	}
	gs.Animations = append(gs.Animations, anim.Animation(name, sk, s.Clip.Poses, s.Clip.FPS))
	if err := gs.Validate(); err != nil {
		return nil, err
	}
	return gs, nil
}
