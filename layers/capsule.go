package layers

import (
	"math"
	"sort"
	"strings"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// Capsule is a tapered capsule (a cone with spherical caps) rigidly
// attached to a joint: volino-cordier §3.3 models each leg by two
// cylinders; a radius that varies linearly along the axis fits thighs
// better at the same cost.
type Capsule struct {
	// Name is the joint's name.
	Name string
	// Joint is the skeleton joint the capsule moves with.
	Joint int
	// A and B are the axis ends in the rest pose (m); RA and RB the radii
	// there (m).
	A, B   geom.Vec3
	RA, RB float64
}

// at returns the axis parameter t in [0,1] of the point of the axis nearest
// p, and that point's radius.
func capsuleNearest(a, b geom.Vec3, ra, rb float64, p geom.Vec3) (c geom.Vec3, r, t float64) {
	ab := b.Sub(a)
	l2 := ab.Len2()
	if l2 > 0 {
		t = min(1, max(0, p.Sub(a).Dot(ab)/l2))
	}
	return a.AddScaled(t, ab), ra + t*(rb-ra), t
}

// Dist returns the signed distance (m) of p to the capsule surface in the
// rest pose (negative inside).
func (c Capsule) Dist(p geom.Vec3) float64 {
	q, r, _ := capsuleNearest(c.A, c.B, c.RA, c.RB, p)
	return p.Dist(q) - r
}

// legNames lists, per segment, the joint names of common rigs (MakeHuman
// cmu_mb and the procedural mannequin, MakeHuman default, Mixamo, Blender
// Rigify-like); the first found wins.
var legNames = [2][3][]string{
	{{"LeftUpLeg", "upperleg01.L", "mixamorig:LeftUpLeg", "thigh.L", "LeftThigh", "L_Thigh"},
		{"LeftLeg", "lowerleg01.L", "mixamorig:LeftLeg", "shin.L", "LeftShin", "LeftCalf", "L_Calf"},
		{"LeftFoot", "foot.L", "mixamorig:LeftFoot", "L_Foot"}},
	{{"RightUpLeg", "upperleg01.R", "mixamorig:RightUpLeg", "thigh.R", "RightThigh", "R_Thigh"},
		{"RightLeg", "lowerleg01.R", "mixamorig:RightLeg", "shin.R", "RightShin", "RightCalf", "R_Calf"},
		{"RightFoot", "foot.R", "mixamorig:RightFoot", "R_Foot"}},
}

func findJoint(sk *skel.Skeleton, names []string) int {
	for _, n := range names {
		if j, ok := sk.Index(n); ok {
			return j
		}
	}
	for j := 0; j < sk.NumJoints(); j++ { // case-insensitive
		for _, n := range names {
			if strings.EqualFold(sk.Joint(j).Name, n) {
				return j
			}
		}
	}
	return -1
}

// legJoints returns [side][thigh, shin, foot] joint indices, ok false when
// a rig has no recognisable legs.
func legJoints(sk *skel.Skeleton) (j [2][3]int, ok bool) {
	for s := range 2 {
		for k := range 3 {
			j[s][k] = findJoint(sk, legNames[s][k])
			if j[s][k] < 0 {
				return j, false
			}
		}
	}
	return j, true
}

// inSubtree reports whether joint j is r or below it.
func inSubtree(sk *skel.Skeleton, j, r int) bool {
	for ; j >= 0; j = sk.Parent(j) {
		if j == r {
			return true
		}
	}
	return false
}

// FitLegCapsules fits two capsules per leg (thigh, shin) to the body's
// vertices whose strongest skin influence lies in each segment's joints,
// in the rest pose. The axis runs from the segment's joint to the next
// segment's; each radius is the 95th percentile of the radial distance of
// the segment's vertices in the axis's upper and lower halves, extended
// linearly to the ends. nil when the rig's legs are not recognised.
func FitLegCapsules(ch *character.Character) []Capsule {
	sk := ch.Skeleton
	legs, ok := legJoints(sk)
	if !ok {
		return nil
	}
	rest := sk.RestWorld()
	// dominant joint of each body vertex
	dom := make([]int32, len(ch.Body.Verts))
	for v := range dom {
		js, ws := ch.Weights.Influences(v)
		best := float32(-1)
		dom[v] = -1
		for k, w := range ws {
			if w > best {
				best, dom[v] = w, js[k]
			}
		}
	}
	var caps []Capsule
	for s := range 2 {
		for seg := range 2 {
			top, next := legs[s][seg], legs[s][seg+1]
			a, b := rest[top].T, rest[next].T
			var lo, hi []float64
			for v, p := range ch.Body.Verts {
				j := int(dom[v])
				if j < 0 || !inSubtree(sk, j, top) || inSubtree(sk, j, next) {
					continue
				}
				q, _, t := capsuleNearest(a, b, 0, 0, p)
				switch {
				case t > 0.05 && t < 0.5:
					lo = append(lo, p.Dist(q))
				case t >= 0.5 && t < 0.95:
					hi = append(hi, p.Dist(q))
				}
			}
			r1, r2 := percentile(lo, 0.95), percentile(hi, 0.95)
			if r1 == 0 {
				r1 = r2
			}
			if r2 == 0 {
				r2 = r1
			}
			if r1 == 0 {
				r1, r2 = 0.05, 0.05
			}
			// r(t) linear through (0.25, r1) and (0.75, r2)
			ra := max(0.02, r1-(r2-r1)/2)
			rb := max(0.02, r2+(r2-r1)/2)
			caps = append(caps, Capsule{Name: sk.Joint(top).Name, Joint: top, A: a, B: b, RA: ra, RB: rb})
		}
	}
	return caps
}

func percentile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sort.Float64s(x)
	return x[min(len(x)-1, int(math.Round(q*float64(len(x)-1))))]
}

// capsuleState is a capsule posed for the current substep, with its
// candidate list of floating-simulation vertices.
type capsuleState struct {
	Capsule
	cand           []int32
	a, b, va, vb   geom.Vec3 // posed ends and their velocities
	a0, b0, a1, b1 geom.Vec3 // ends at the start and end of the frame
}

// pose sets the frame-end positions from the skinning matrices.
func (c *capsuleState) pose(skin []geom.Rigid) {
	c.a0, c.b0 = c.a1, c.b1
	c.a1, c.b1 = skin[c.Joint].Apply(c.A), skin[c.Joint].Apply(c.B)
}

// at sets the substep's ends at fraction s of the frame, and their
// velocities over the frame of length dt.
func (c *capsuleState) at(s, dt float64) {
	c.a, c.b = c.a0.Lerp(c.a1, s), c.b0.Lerp(c.b1, s)
	c.va, c.vb = c.a1.Sub(c.a0).Scale(1/dt), c.b1.Sub(c.b0).Scale(1/dt)
}
