package procedural

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// aPoseBones is the reference figure with its arms lowered by down
// (radians) about +Z at the shoulder and its elbows bent by bend about
// their hinge axes, as an A-pose rig (MakeHuman: 50° and 47°).
func aPoseBones(down, bend float64) []boneDef {
	defs := append([]boneDef(nil), refBones...)
	at := func(name string) int {
		for i, b := range defs {
			if b.name == name {
				return i
			}
		}
		panic(name)
	}
	// turn rotates the named bones' heads and tails by q about point o.
	turn := func(q geom.Quat, o geom.Vec3, names ...string) {
		for _, n := range names {
			b := &defs[at(n)]
			b.head = o.Add(q.Rotate(b.head.Sub(o)))
			b.tail = o.Add(q.Rotate(b.tail.Sub(o)))
			if b.hinge != (geom.Vec3{}) {
				b.hinge = q.Rotate(b.hinge)
			}
		}
	}
	arm := geom.QuatAxisAngle(geom.V(0, 0, 1), -down)
	turn(arm, defs[at("LeftArm")].head, "LeftArm", "LeftForeArm", "LeftHand")
	fore := defs[at("LeftForeArm")]
	turn(geom.QuatAxisAngle(fore.hinge, bend), fore.head, "LeftHand")
	// The forearm bone itself turns about its head.
	f := &defs[at("LeftForeArm")]
	f.tail = f.head.Add(geom.QuatAxisAngle(f.hinge, bend).Rotate(f.tail.Sub(f.head)))
	return defs
}

// TestRetarget: every clip moves the arms of an A-pose rig to where it
// moves the T-pose reference's (joint positions within 1 µm), and on the
// reference itself the rig has no corrections (its clips are exactly the
// ones written for it).
func TestRetarget(t *testing.T) {
	tpose, err := skeletonOf(refBones, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := newRig(tpose); len(r.fix) != 0 || len(r.bend) != 0 {
		t.Fatalf("the reference skeleton got corrections: fix %v, bend %v", r.fix, r.bend)
	}
	apose, err := skeletonOf(aPoseBones(50*math.Pi/180, 47*math.Pi/180), 1)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(apose)
	if len(r.fix) != 2 || len(r.bend) != 2 {
		t.Fatalf("A-pose: fix %d joints, bend %d, want 2 and 2 (the upper arms, the elbows)", len(r.fix), len(r.bend))
	}
	for _, name := range Clips() {
		pt, err := ClipByName(name, tpose, 2, 15)
		if err != nil {
			t.Fatal(err)
		}
		pa, err := ClipByName(name, apose, 2, 15)
		if err != nil {
			t.Fatal(err)
		}
		var wt, wa []geom.Rigid
		worst, at := 0.0, ""
		for f := range pt {
			wt = skel.FK(tpose, pt[f], wt)
			wa = skel.FK(apose, pa[f], wa)
			for _, j := range []string{"LeftForeArm", "LeftHand", "RightForeArm", "RightHand", "LeftFoot", "RightToeBase"} {
				jt, _ := tpose.Index(j)
				ja, _ := apose.Index(j)
				if d := wt[jt].T.Dist(wa[ja].T); d > worst {
					worst, at = d, j
				}
			}
		}
		if worst > 1e-6 {
			t.Errorf("%s: the A-pose rig's %s is %.2f mm from the reference's", name, at, worst*1000)
		}
	}
}
