package skel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func TestAnglesRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	sk := randomSkeleton(rnd, 30)
	for j := 0; j < sk.NumJoints(); j++ {
		for range 50 {
			var a Angles
			if sk.Joint(j).Kind == Hinge {
				a.Flex = (2*rnd.Float64() - 1) * 3.1
			} else {
				// |swing| < π and |twist| < π so the angles are unique.
				s, th := 3.1*rnd.Float64(), 2*math.Pi*rnd.Float64()
				a.Swing = [2]float64{s * math.Cos(th), s * math.Sin(th)}
				a.Twist = (2*rnd.Float64() - 1) * 3.1
			}
			q := JointRotation(sk, j, a)
			p := RestPose(sk)
			p.Rot[j] = q
			got := JointAngles(sk, p, j)
			// Twist and swing near ±π lose accuracy as sin → 0; 1e-9 rad is
			// still far below any pose resolution.
			if !near(got.Flex, a.Flex, 1e-9) || !near(got.Twist, a.Twist, 1e-9) ||
				!near(got.Swing[0], a.Swing[0], 1e-9) || !near(got.Swing[1], a.Swing[1], 1e-9) {
				t.Fatalf("joint %d (%v): %+v -> %+v", j, sk.Joint(j).Kind, a, got)
			}
		}
	}
	// Rotation -> angles -> rotation for arbitrary ball-joint rotations.
	for range 200 {
		q := randomQuat(rnd)
		if got := JointRotation(sk, 0, RotationAngles(sk, 0, q)); !nearRot(got, q, 1e-12) {
			t.Fatalf("%v -> %v", q, got)
		}
	}
}

func TestAnglesTwistAndHinge(t *testing.T) {
	sk, err := FromBones([]Bone{
		{Name: "upperarm", Head: geom.V(0.2, 1.4, 0), Tail: geom.V(0.45, 1.4, 0.1), Roll: 0.4},
		{Name: "forearm", Parent: "upperarm", Head: geom.V(0.45, 1.4, 0.1), Tail: geom.V(0.7, 1.4, 0), Kind: Hinge},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ang := range []float64{-3, -1, -1e-3, 0, 0.5, 2, math.Pi} {
		// Pure twist about the bone (local +Y): zero swing.
		p := RestPose(sk)
		p.Rot[0] = geom.QuatAxisAngle(geom.V(0, 1, 0), ang)
		if a := JointAngles(sk, p, 0); a.SwingAngle() > 1e-15 || !near(a.Twist, ang, tol) {
			t.Errorf("twist %g: %+v", ang, a)
		}
		// Hinge: flexion equals the rotation angle about its axis (+X default).
		p.Rot[1] = geom.QuatAxisAngle(geom.V(1, 0, 0), ang)
		if a := JointAngles(sk, p, 1); !near(a.Flex, ang, tol) {
			t.Errorf("hinge %g: %+v", ang, a)
		}
	}
	// Pure swing: bone direction moves by the swing angle, twist is zero.
	p := RestPose(sk)
	p.Rot[0] = JointRotation(sk, 0, Angles{Swing: [2]float64{0.3, -0.4}})
	w, rw := FK(sk, p, nil), sk.RestWorld()
	dir := func(w []geom.Rigid) geom.Vec3 { return w[1].T.Sub(w[0].T) }
	if a := JointAngles(sk, p, 0); !near(a.Twist, 0, tol) || !near(dir(w).Angle(dir(rw)), 0.5, 1e-12) {
		t.Errorf("swing: %+v, bone moved %g", a, dir(w).Angle(dir(rw)))
	}
}
