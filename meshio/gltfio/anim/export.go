package anim

import (
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/skel"
)

// Skeleton converts a skeleton to glTF joints (same order and rests).
func Skeleton(sk *skel.Skeleton) *gltfio.Skeleton {
	out := &gltfio.Skeleton{Joints: make([]gltfio.Joint, sk.NumJoints())}
	for j := range out.Joints {
		jt := sk.Joint(j)
		out.Joints[j] = gltfio.Joint{Name: jt.Name, Parent: jt.Parent, Rest: jt.Rest}
	}
	return out
}

// Skin converts CSR skin weights to glTF influences (the writer keeps the
// four largest per vertex).
func Skin(w skel.Weights) *gltfio.Skin {
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

// Animation converts poses sampled at fps into joint tracks: local rotation
// Rest.R·Rot[j] for every joint and the translation of the roots, key f at
// time f/fps.
func Animation(name string, sk *skel.Skeleton, poses []skel.Pose, fps float64) gltfio.Animation {
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
