package skel

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// Angles are a joint's degrees of freedom relative to its rest pose, in
// radians, in the joint's own rest frame (see Skeleton.Axes for axis, u, v).
//
// A Hinge uses only Flex: Rot = QuatAxisAngle(axis, Flex).
//
// A Ball joint uses Swing and Twist: Rot = swing·twist, where twist is the
// rotation by Twist about the bone axis and swing is the rotation whose
// rotation vector (unit axis times angle, perpendicular to the bone) is
// Swing[0]·u + Swing[1]·v; |Swing| ≤ π. For a bone along +Y with default
// axes, Swing[0] tilts the bone about X (towards +Z) and Swing[1] about Z
// (towards -X). Swing then twist is the usual decomposition (geom.SwingTwist):
// twist spins the bone about itself, swing then points it.
type Angles struct {
	Flex  float64    // hinge flexion about the hinge axis
	Swing [2]float64 // ball-joint swing rotation vector on (u, v)
	Twist float64    // ball-joint twist about the bone axis, in (-π, π]
}

// JointAngles returns the angles of joint j in pose p. For a Hinge the
// rotation is projected onto the hinge axis (any off-axis component is
// dropped) and Flex is the signed twist angle about it, in (-π, π]. For a
// Ball joint Rot[j] is split by geom.SwingTwist about the bone axis.
func JointAngles(sk *Skeleton, p Pose, j int) Angles {
	return RotationAngles(sk, j, p.Rot[j])
}

// RotationAngles returns the angles of joint j for the rest-relative local
// rotation q (a Pose.Rot entry); see JointAngles.
func RotationAngles(sk *Skeleton, j int, q geom.Quat) Angles {
	ax := sk.axes[j]
	swing, _, tw := geom.SwingTwist(q, ax[0])
	if sk.joints[j].Kind == Hinge {
		return Angles{Flex: tw}
	}
	axis, ang := swing.AxisAngle()
	rv := axis.Scale(ang)
	return Angles{Swing: [2]float64{rv.Dot(ax[1]), rv.Dot(ax[2])}, Twist: tw}
}

// JointRotation is the inverse of RotationAngles: it returns the
// rest-relative local rotation (a Pose.Rot entry) of joint j with angles a.
// Fields that do not apply to the joint's Kind are ignored.
func JointRotation(sk *Skeleton, j int, a Angles) geom.Quat {
	ax := sk.axes[j]
	if sk.joints[j].Kind == Hinge {
		return geom.QuatAxisAngle(ax[0], a.Flex)
	}
	rv := ax[1].Scale(a.Swing[0]).Add(ax[2].Scale(a.Swing[1]))
	swing := geom.QuatAxisAngle(rv, rv.Len())
	return swing.Mul(geom.QuatAxisAngle(ax[0], a.Twist))
}

// SwingAngle returns the total swing |Swing| in radians: the angle between
// the rest and posed bone directions.
func (a Angles) SwingAngle() float64 { return math.Hypot(a.Swing[0], a.Swing[1]) }
