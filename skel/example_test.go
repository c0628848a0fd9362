package skel_test

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// An arm built from bones (head/tail positions, Blender convention) is bent
// at the elbow by 90°; a vertex on the forearm follows the hand.
func Example() {
	sk, err := skel.FromBones([]skel.Bone{
		{Name: "upperarm", Head: geom.V(0, 1.4, 0), Tail: geom.V(0.3, 1.4, 0)},
		{Name: "forearm", Parent: "upperarm", Head: geom.V(0.3, 1.4, 0), Tail: geom.V(0.6, 1.4, 0),
			Kind: skel.Hinge, Axis: geom.V(0, 0, 1)},
	})
	if err != nil {
		panic(err)
	}
	elbow, _ := sk.Index("forearm")

	pose := skel.RestPose(sk)
	pose.Rot[elbow] = skel.JointRotation(sk, elbow, skel.Angles{Flex: math.Pi / 2})
	world := skel.FK(sk, pose, nil)
	skin := skel.SkinMatrices(sk, pose, nil)

	// One vertex at the wrist, fully bound to the forearm.
	w := skel.NewWeights([][]skel.Influence{{{Joint: int32(elbow), W: 1}}})
	out := skel.DQS([]geom.Vec3{geom.V(0.6, 1.4, 0)}, w, skin, nil)

	fmt.Printf("elbow at %.2f\n", world[elbow].T)
	fmt.Printf("wrist at %.2f\n", out[0])
	fmt.Printf("flexion %.2f rad\n", skel.JointAngles(sk, pose, elbow).Flex)
	// Output:
	// elbow at {0.30 1.40 0.00}
	// wrist at {0.30 1.70 0.00}
	// flexion 1.57 rad
}
