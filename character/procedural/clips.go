package procedural

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// Procedural clips drive any skeleton that uses the CMU joint names, such
// as the Mannequin's; joints a skeleton lacks are skipped. They are written
// for the reference figure's T-pose rest (refBones: arms along ±X, legs
// down, facing +Z) and retargeted onto other rest poses (an A-pose with
// bent elbows, as MakeHuman's): see rig.retarget. Each clip returns
// int(seconds·fps)+1 poses sampled at t = k/fps, relative to the rest pose.
// Every joint curve is a smooth (C∞) function of time; clips that loop
// (all of them, over their period) repeat with continuous velocity.

// ClipFunc makes a clip of the given length in seconds at fps frames per
// second for sk.
type ClipFunc func(sk *skel.Skeleton, seconds, fps float64) []skel.Pose

var clips = []struct {
	name string
	fn   ClipFunc
}{
	{"walk", Walk},
	{"armraise", ArmRaise},
	{"elbowbend", ElbowBend},
	{"kneebend", KneeBend},
	{"twist", TorsoTwist},
}

// Clips returns the names of the procedural clips, in a fixed order.
func Clips() []string {
	out := make([]string, len(clips))
	for i, c := range clips {
		out[i] = c.name
	}
	return out
}

// ClipByName returns the named clip (see Clips) for sk. It fails for an
// unknown name, non-positive fps or negative seconds.
func ClipByName(name string, sk *skel.Skeleton, seconds, fps float64) ([]skel.Pose, error) {
	if !(fps > 0) || !(seconds >= 0) || seconds*fps > 1e6 {
		return nil, fmt.Errorf("procedural: bad clip length %g s at %g fps", seconds, fps)
	}
	for _, c := range clips {
		if c.name == name {
			return c.fn(sk, seconds, fps), nil
		}
	}
	return nil, fmt.Errorf("procedural: unknown clip %q (have %v)", name, Clips())
}

// rig poses a skeleton by rotations about world axes (in the rest frame).
type rig struct {
	sk   *skel.Skeleton
	rest []geom.Rigid
	p    skel.Pose
	// fix and bend retarget the clips onto the skeleton's rest pose (see
	// retarget): fix[j] is a world rotation at rest applied before the
	// clip's own rotation of joint j, bend[j] the rest flexion of hinge j
	// beyond the reference figure's, radians. Joints whose rest matches
	// the reference's have no entry, so clips on the Mannequin are exactly
	// those written for it.
	fix  map[int]geom.Quat
	bend map[int]float64
}

func newRig(sk *skel.Skeleton) *rig {
	r := &rig{sk: sk, rest: sk.RestWorld(), fix: map[int]geom.Quat{}, bend: map[int]float64{}}
	r.retarget()
	return r
}

// refLimbs are the limbs retargeted, left side (root, middle and end
// joints: shoulder, elbow, wrist; hip, knee, ankle).
var refLimbs = [][3]string{{"LeftArm", "LeftForeArm", "LeftHand"}, {"LeftUpLeg", "LeftLeg", "LeftFoot"}}

// retargetTol (radians) is the largest difference from the reference's
// rest directions and flexions that is left alone (rounding of a scaled
// reference skeleton).
const retargetTol = 1e-6

// retarget finds the corrections that put each limb of the skeleton's rest
// pose in the reference figure's T-pose before a clip's rotations apply, so
// that a clip means the same motion whatever the rig's rest pose: "arms
// 78° below horizontal" on an A-pose rest (MakeHuman: upper arms 50° below
// horizontal, elbows bent 47°) lowers the arms 28° further, not 78°, and
// an elbow flexion of 0 is a straight arm.
//
// The upper bone (ball joint) turns by the shortest rotation from its rest
// direction, head to the middle joint, onto the reference's. The lower
// bone's flexion is measured about its hinge axis h, as the angle from the
// upper bone's direction to its own in the plane perpendicular to h,
//
//	β(a, b) = atan2(h·(a⊥ × b⊥), a⊥·b⊥),
//
// for the rig (its rest directions, its hinge axis) and for the reference
// (its directions, the rig's hinge axis carried by the upper bone's fix);
// the difference is subtracted from every flexion the clips ask for. A
// lower bone that is a ball joint is turned onto the reference's direction
// instead (after its parent's fix).
func (r *rig) retarget() {
	for _, l := range refLimbs {
		for _, right := range []bool{false, true} {
			var js [3]int
			var ref [3]geom.Vec3
			ok := true
			for k, n := range l {
				if right {
					n = mirrorName(n)
				}
				j, found := r.sk.Index(n)
				h, inRef := refHead(l[k])
				if !found || !inRef {
					ok = false
					break
				}
				if right {
					h = mirrorX(h)
				}
				js[k], ref[k] = j, h
			}
			if ok {
				r.retargetLimb(js, ref)
			}
		}
	}
}

// retargetLimb sets the corrections of one limb: joints js (upper, lower,
// end) whose reference rest positions are ref.
func (r *rig) retargetLimb(js [3]int, ref [3]geom.Vec3) {
	du := r.rest[js[1]].T.Sub(r.rest[js[0]].T)
	dl := r.rest[js[2]].T.Sub(r.rest[js[1]].T)
	ru, rl := ref[1].Sub(ref[0]), ref[2].Sub(ref[1])
	if du.Len() == 0 || dl.Len() == 0 {
		return
	}
	fix := geom.QuatIdentity()
	if r.sk.Joint(js[0]).Kind != skel.Hinge && du.Angle(ru) > retargetTol {
		fix = geom.QuatBetween(du, ru)
		r.fix[js[0]] = fix
	}
	if r.sk.Joint(js[1]).Kind != skel.Hinge {
		if want := fix.Conj().Rotate(rl); dl.Angle(want) > retargetTol {
			r.fix[js[1]] = geom.QuatBetween(dl, want)
		}
		return
	}
	ax, _, _ := r.sk.Axes(js[1])
	h := r.rest[js[1]].R.Rotate(ax)
	if b := flexAbout(du, dl, h) - flexAbout(ru, rl, fix.Rotate(h)); math.Abs(b) > retargetTol {
		r.bend[js[1]] = b
	}
}

// flexAbout is the angle (radians) that turns direction a onto direction b
// about unit axis h, both projected onto the plane perpendicular to h.
func flexAbout(a, b, h geom.Vec3) float64 {
	a = a.Sub(h.Scale(a.Dot(h)))
	b = b.Sub(h.Scale(b.Dot(h)))
	return math.Atan2(h.Dot(a.Cross(b)), a.Dot(b))
}

// refHead returns the reference figure's rest position of a left-side or
// centre joint.
func refHead(name string) (geom.Vec3, bool) {
	for _, b := range refBones {
		if b.name == name {
			return b.head, true
		}
	}
	return geom.Vec3{}, false
}

func (r *rig) reset() { r.p = skel.RestPose(r.sk) }

// rot sets joint name's rotation to q, given about world axes at rest:
// Rot = R⁻¹·q·R with R the joint's world rest orientation, so the child
// bones turn by q when the parents are at rest (and with them otherwise).
func (r *rig) rot(name string, q geom.Quat) {
	j, ok := r.sk.Index(name)
	if !ok {
		return
	}
	if c, ok := r.fix[j]; ok {
		q = q.Mul(c)
	}
	R := r.rest[j].R
	r.p.Rot[j] = R.Conj().Mul(q).Mul(R).Normalize()
}

// flex sets a hinge joint's flexion in radians, as on the reference figure
// (less the rig's extra rest flexion, bend), or turns a ball joint about
// world X.
func (r *rig) flex(name string, a float64) {
	j, ok := r.sk.Index(name)
	if !ok {
		return
	}
	if r.sk.Joint(j).Kind == skel.Hinge {
		if b, ok := r.bend[j]; ok {
			a -= b
		}
		r.p.Rot[j] = skel.JointRotation(r.sk, j, skel.Angles{Flex: a})
		return
	}
	r.rot(name, geom.QuatAxisAngle(geom.V(1, 0, 0), -a))
}

var (
	axX = geom.V(1, 0, 0)
	axY = geom.V(0, 1, 0)
	axZ = geom.V(0, 0, 1)
)

func qa(axis geom.Vec3, a float64) geom.Quat { return geom.QuatAxisAngle(axis, a) }

func deg(d float64) float64 { return d * math.Pi / 180 }

// armsDown lowers both arms by a (radians) from the T-pose, swings them
// forward by swingL/swingR and bends the elbows by elbow.
func (r *rig) armsDown(a, swingL, swingR, elbowL, elbowR float64) {
	r.rot("LeftArm", qa(axX, -swingL).Mul(qa(axZ, -a)))
	r.rot("RightArm", qa(axX, -swingR).Mul(qa(axZ, a)))
	r.flex("LeftForeArm", elbowL)
	r.flex("RightForeArm", elbowR)
}

func frames(seconds, fps float64) int { return int(math.Floor(seconds*fps+1e-9)) + 1 }

func (r *rig) clip(seconds, fps float64, pose func(t float64)) []skel.Pose {
	n := frames(seconds, fps)
	out := make([]skel.Pose, n)
	for k := range out {
		r.reset()
		pose(float64(k) / fps)
		out[k] = r.p
	}
	return out
}

// walkPeriod is the gait cycle (two steps) in seconds; walkSpeed the
// forward speed in m/s at 1.75 m height.
const (
	walkPeriod = 1.1
	walkSpeed  = 1.15
)

// Walk is a walk cycle (period 1.1 s) moving forward (+Z) at 1.15 m/s
// (scaled with the leg length): the hips bob twice per cycle and sway
// towards the stance leg, the pelvis turns with the swinging leg and the
// chest counter-rotates, the legs swing ±22° at the hip with up to 60° of
// knee flexion in swing, and the arms hang 78° down from the T-pose,
// swinging opposite to the legs with a little elbow bend. The vertical
// root motion keeps the lower ankle near its rest height.
func Walk(sk *skel.Skeleton, seconds, fps float64) []skel.Pose {
	r := newRig(sk)
	scale := legScale(r)
	var world []geom.Rigid
	return r.clip(seconds, fps, func(t float64) {
		ph := 2 * math.Pi * t / walkPeriod
		sn, cs := math.Sincos(ph)
		// Legs: left leg swings forward for ph in (−π/2, π/2).
		hipL, hipR := 0.05+0.38*sn, 0.05-0.38*sn
		kneeL := 0.12 + 0.95*math.Pow((1+cs)/2, 3)
		kneeR := 0.12 + 0.95*math.Pow((1-cs)/2, 3)
		r.rot("LeftUpLeg", qa(axX, -hipL))
		r.rot("RightUpLeg", qa(axX, -hipR))
		r.flex("LeftLeg", kneeL)
		r.flex("RightLeg", kneeR)
		r.rot("LeftFoot", qa(axX, 0.8*(hipL-kneeL)))
		r.rot("RightFoot", qa(axX, 0.8*(hipR-kneeR)))
		// Pelvis turns with the forward leg, list towards the swing side;
		// the chest counter-rotates.
		r.rot("Hips", qa(axY, -0.09*sn).Mul(qa(axZ, 0.04*cs)))
		r.rot("LowerBack", qa(axY, 0.04*sn).Mul(qa(axZ, -0.02*cs)))
		r.rot("Spine", qa(axY, 0.05*sn).Mul(qa(axZ, -0.02*cs)))
		r.rot("Spine1", qa(axY, 0.05*sn))
		r.rot("Neck", qa(axY, -0.04*sn))
		// Arms down, swinging against the legs.
		swL, swR := -0.32*sn, 0.32*sn
		r.armsDown(deg(78), swL, swR, 0.3+0.25*math.Max(swL, 0)/0.32, 0.3+0.25*math.Max(swR, 0)/0.32)
		// Root: sway, forward travel, and a height that keeps the lower
		// ankle at its rest height (smooth minimum of the two ankles).
		r.p.Root = geom.V(-0.025*cs*scale, 0, walkSpeed*scale*t)
		world = skel.FK(sk, r.p, world)
		drop := 0.0
		if l, ok := sk.Index("LeftFoot"); ok {
			if rr, ok := sk.Index("RightFoot"); ok {
				dl := world[l].T.Y - r.rest[l].T.Y
				dr := world[rr].T.Y - r.rest[rr].T.Y
				drop = smin(dl, dr, 0.04*scale)
			}
		}
		r.p.Root.Y = -drop
	})
}

// legScale returns the skeleton's leg length relative to the reference.
func legScale(r *rig) float64 {
	h, ok1 := r.sk.Index("LeftUpLeg")
	f, ok2 := r.sk.Index("LeftFoot")
	if !ok1 || !ok2 {
		return 1
	}
	return r.rest[h].T.Dist(r.rest[f].T) / refBones[2].head.Dist(refBones[4].head)
}

// cycle is 0 at t = 0, 1 at half the period and smooth: (1−cos)/2.
func cycle(t, period float64) float64 { return (1 - math.Cos(2*math.Pi*t/period)) / 2 }

// period of the one-movement clips: the whole clip, at least 1 s.
func period(seconds float64) float64 { return math.Max(seconds, 1) }

// ArmRaise raises both arms sideways from hanging (75° below horizontal)
// to 30° above it and lowers them again, once over the clip (at least 1 s).
func ArmRaise(sk *skel.Skeleton, seconds, fps float64) []skel.Pose {
	r := newRig(sk)
	T := period(seconds)
	return r.clip(seconds, fps, func(t float64) {
		a := deg(75) - deg(105)*cycle(t, T)
		r.armsDown(a, 0, 0, 0.1, 0.1)
	})
}

// ElbowBend flexes both elbows from 0 to 130° and back, once over the clip
// (at least 1 s), with the arms hanging 78° down and slightly forward.
func ElbowBend(sk *skel.Skeleton, seconds, fps float64) []skel.Pose {
	r := newRig(sk)
	T := period(seconds)
	return r.clip(seconds, fps, func(t float64) {
		e := deg(130) * cycle(t, T)
		r.armsDown(deg(78), 0.15, 0.15, e, e)
	})
}

// KneeBend is a squat, once over the clip (at least 1 s): the thighs
// swing 65° forward, the knees bend to 100°, the feet stay flat on the
// floor where they were (the root moves down and back to keep them), the
// torso leans 25° forward and the arms come forward for balance.
func KneeBend(sk *skel.Skeleton, seconds, fps float64) []skel.Pose {
	r := newRig(sk)
	T := period(seconds)
	var world []geom.Rigid
	return r.clip(seconds, fps, func(t float64) {
		c := cycle(t, T)
		hip, knee := deg(65)*c, deg(100)*c
		for _, side := range []string{"Left", "Right"} {
			r.rot(side+"UpLeg", qa(axX, -hip))
			r.flex(side+"Leg", knee)
			r.rot(side+"Foot", qa(axX, hip-knee))
		}
		r.rot("LowerBack", qa(axX, deg(12)*c))
		r.rot("Spine", qa(axX, deg(8)*c))
		r.rot("Spine1", qa(axX, deg(5)*c))
		r.armsDown(deg(78)-deg(40)*c, deg(60)*c, deg(60)*c, deg(20)*c, deg(20)*c)
		// Pin the ankles: move the root by the left ankle's displacement.
		if f, ok := sk.Index("LeftFoot"); ok {
			world = skel.FK(sk, r.p, world)
			r.p.Root = r.rest[f].T.Sub(world[f].T)
		}
	})
}

// TorsoTwist turns the upper body ±40° about the vertical, spread evenly
// over LowerBack, Spine and Spine1, once left and once right over the clip
// (at least 1 s), with the arms hanging.
func TorsoTwist(sk *skel.Skeleton, seconds, fps float64) []skel.Pose {
	r := newRig(sk)
	T := period(seconds)
	return r.clip(seconds, fps, func(t float64) {
		a := deg(40) / 3 * math.Sin(2*math.Pi*t/T)
		for _, j := range []string{"LowerBack", "Spine", "Spine1"} {
			r.rot(j, qa(axY, a))
		}
		r.armsDown(deg(78), 0, 0, 0.2, 0.2)
	})
}
