// Package skel holds the articulated character: a Skeleton of joints with
// their rest transforms, a Pose per frame, forward kinematics, per-vertex
// skinning weights, and linear blend (LBS) and dual-quaternion (DQS)
// skinning. It also expresses a joint's rotation as anatomical angles
// (hinge flexion; ball-joint swing and twist) and back, which the wrinkle
// database uses to sample joints on a grid, and flattens a skinned limb
// where its bent segments pass into each other (Creaser).
//
// Conventions:
//   - Units are metres and radians; right-handed coordinates, +Y up.
//   - Joints are identified by 0-based int indices; parents precede children
//     (Parent(j) < j), roots have Parent -1. FromBones sorts for you.
//   - Joint.Rest is the joint's local rest transform relative to its parent
//     (relative to world for a root): Rest.T is the joint's origin in the
//     parent's frame, Rest.R the rest orientation. World transforms compose
//     as world[j] = world[parent]·local[j] (geom.Rigid.Mul: right side first).
//   - A Pose rotates each joint relative to its rest orientation, in the
//     joint's own frame: local[j] = Rigid{R: Rest.R·Rot[j], T: Rest.T}.
//     Pose.Root is a world-space displacement added to the rest translation
//     of every root joint; the rest pose has Root = 0 and Rot[j] = identity.
//   - Skinning matrices are world(pose)·world(rest)⁻¹ per joint: they map a
//     rest-pose (bind-pose) vertex to its posed position.
//   - Weights are CSR: vertex v's influences are Joints[Offsets[v]:Offsets[v+1]]
//     with weights W over the same range; weights are float32 (stored data).
//   - Functions that produce per-joint or per-vertex data take a dst slice,
//     reuse it when its capacity suffices and return it resliced, so
//     steady-state frames allocate nothing (the parallel Skinner allocates
//     only for its goroutines).
//   - Caller bugs (mismatched lengths, out-of-range joint index) panic with
//     "skel: ..."; bad data is reported as a *JointError or *VertexError
//     wrapping an Err* variable and naming the joint or vertex.
//   - A Skeleton is immutable after construction and safe for concurrent use;
//     all functions here are safe for concurrent use on distinct dst slices.
package skel
