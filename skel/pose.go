package skel

import "github.com/pleat-dev/pleat/geom"

// Pose is one frame of a skeleton's motion.
type Pose struct {
	// Root is a world-space displacement in metres added to the rest
	// translation of every root joint: a root's local transform is
	// Rigid{R: Rest.R·Rot[j], T: Rest.T + Root}. (A BVH root channel
	// position P becomes Root = P − OFFSET of the root.)
	Root geom.Vec3
	// Rot[j] is joint j's rotation relative to its rest orientation, acting
	// in the joint's own frame: local[j] = Rigid{R: Rest.R·Rot[j], T: Rest.T}.
	// Unit quaternions; len(Rot) = NumJoints.
	Rot []geom.Quat
}

// RestPose returns the rest pose of sk: Root = 0, all Rot identity.
func RestPose(sk *Skeleton) Pose {
	p := Pose{Rot: make([]geom.Quat, sk.NumJoints())}
	for j := range p.Rot {
		p.Rot[j] = geom.QuatIdentity()
	}
	return p
}

// Clone returns a deep copy of p.
func (p Pose) Clone() Pose {
	return Pose{Root: p.Root, Rot: append([]geom.Quat(nil), p.Rot...)}
}

// Local returns joint j's local transform in pose p (see Pose).
func Local(sk *Skeleton, p Pose, j int) geom.Rigid {
	jt := &sk.joints[j]
	l := geom.Rigid{R: jt.Rest.R.Mul(p.Rot[j]), T: jt.Rest.T}
	if jt.Parent < 0 {
		l.T = l.T.Add(p.Root)
	}
	return l
}

func grow[T any](dst []T, n int) []T {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]T, n)
}

func checkPose(sk *Skeleton, p Pose) {
	if len(p.Rot) != len(sk.joints) {
		panic("skel: pose length does not match skeleton")
	}
}

// FK computes forward kinematics: the world transform of every joint,
// world[j] = world[parent]·Local(j), into dst (reused if large enough) and
// returns it. It panics if len(p.Rot) ≠ NumJoints.
func FK(sk *Skeleton, p Pose, dst []geom.Rigid) []geom.Rigid {
	checkPose(sk, p)
	dst = grow(dst, len(sk.joints))
	for j := range sk.joints {
		jt := &sk.joints[j]
		r := jt.Rest.R.Mul(p.Rot[j])
		if jt.Parent < 0 {
			dst[j] = geom.Rigid{R: r.Normalize(), T: jt.Rest.T.Add(p.Root)}
			continue
		}
		w := dst[jt.Parent]
		dst[j] = geom.Rigid{R: w.R.Mul(r).Normalize(), T: w.R.Rotate(jt.Rest.T).Add(w.T)}
	}
	return dst
}

// SkinMatrices computes world(p)[j]·world(rest)[j]⁻¹ for every joint into
// dst (reused if large enough) and returns it: the transforms that carry a
// bind-pose vertex rigidly attached to joint j to its posed position, as
// LBS and DQS expect. It panics if len(p.Rot) ≠ NumJoints.
func SkinMatrices(sk *Skeleton, p Pose, dst []geom.Rigid) []geom.Rigid {
	dst = FK(sk, p, dst)
	for j := range dst {
		dst[j] = dst[j].Mul(sk.invRestW[j])
	}
	return dst
}

// InterpPose sets dst to the interpolation of a and b at t in [0, 1]:
// Root is lerped and each Rot slerped along the shorter arc (geom.Slerp).
// dst.Rot is reused if large enough; dst may alias a or b. It panics if a
// and b have different lengths.
func InterpPose(dst *Pose, a, b Pose, t float64) {
	if len(a.Rot) != len(b.Rot) {
		panic("skel: pose lengths differ")
	}
	rot := grow(dst.Rot, len(a.Rot))
	for j := range rot {
		rot[j] = geom.Slerp(a.Rot[j], b.Rot[j], t)
	}
	dst.Root = a.Root.Lerp(b.Root, t)
	dst.Rot = rot
}
