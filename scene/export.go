package scene

import (
	"fmt"

	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
)

// GLTF returns the scene as a glTF scene: the skinned body (with skin hidden
// under the garments removed) and each skinned garment on one skeleton, and
// one animation of the clip's joint rotations and root translation. Any
// glTF player skins it on the GPU; this is the skinning baseline.
func (s *Scene) GLTF(name string) (*gltfio.Scene, error) {
	sk := s.Character.Skeleton
	gs := &gltfio.Scene{Skeleton: anim.Skeleton(sk)}
	body := s.Character.HiddenBody(s.Garments...)
	gs.Meshes = append(gs.Meshes, gltfio.Mesh{Name: "body", Mesh: body, Skin: anim.Skin(s.Character.Weights)})
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
