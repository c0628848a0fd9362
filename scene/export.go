package scene

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/skel"
)

// GLTF returns the scene as a glTF scene: the skinned body (with skin hidden
// under the garments removed) and each skinned garment on one skeleton, and
// one animation of the clip's joint rotations and root translation. Any
// glTF player skins it on the GPU; this is the skinning baseline.
func (s *Scene) GLTF(name string) (*gltfio.Scene, error) {
	sk := s.Character.Skeleton
	gs := &gltfio.Scene{Skeleton: GLTFSkeleton(sk)}
	body := s.Character.HiddenBody(s.Garments...)
	gs.Meshes = append(gs.Meshes, gltfio.Mesh{Name: "body", Mesh: body, Skin: GLTFSkin(s.Character.Weights)})
	for i, g := range s.Garments {
		n := g.Name
		if n == "" {
			n = fmt.Sprintf("garment%d", i)
		}
		gs.Meshes = append(gs.Meshes, gltfio.Mesh{Name: n, Mesh: g.Mesh, Skin: GLTFSkin(g.Weights)})
	}
	gs.Animations = append(gs.Animations, GLTFAnimation(name, sk, s.Clip.Poses, s.Clip.FPS))
	if err := gs.Validate(); err != nil {
		return nil, err
	}
	return gs, nil
}

// GLTFSkeleton converts a skeleton to glTF joints (same order and rests).
func GLTFSkeleton(sk *skel.Skeleton) *gltfio.Skeleton {
	out := &gltfio.Skeleton{Joints: make([]gltfio.Joint, sk.NumJoints())}
	for j := range out.Joints {
		jt := sk.Joint(j)
		out.Joints[j] = gltfio.Joint{Name: jt.Name, Parent: jt.Parent, Rest: jt.Rest}
	}
	return out
}

// GLTFSkin converts CSR skin weights to glTF influences (the writer keeps
// the four largest per vertex).
func GLTFSkin(w skel.Weights) *gltfio.Skin {
	inf := make([][]gltfio.Influence, w.NumVerts())
	for v := range inf {
		js, ws := w.Influences(v)
		inf[v] = make([]gltfio.Influence, len(js))
		for k := range js {
			inf[v][k] = gltfio.Influence{Joint: js[k], Weight: float64(ws[k])}
		}
	}
	return &gltfio.Skin{Influences: inf}
}

// GLTFAnimation converts poses sampled at fps into joint tracks: local
// rotation Rest.R·Rot[j] for every joint and the translation of the roots.
func GLTFAnimation(name string, sk *skel.Skeleton, poses []skel.Pose, fps float64) gltfio.Animation {
	a := gltfio.Animation{Name: name}
	for f, p := range poses {
		a.Times = append(a.Times, float64(f)/fps)
		rots := make([]geom.Quat, sk.NumJoints())
		trs := make([]geom.Vec3, sk.NumJoints())
		for j := range rots {
			l := skel.Local(sk, p, j)
			rots[j], trs[j] = l.R, l.T
		}
		a.JointRotations = append(a.JointRotations, rots)
		a.JointTranslations = append(a.JointTranslations, trs)
	}
	return a
}
