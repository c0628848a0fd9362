// Package anim connects pleat's animation data to glTF scenes: it converts
// a skel.Skeleton, skel.Weights and a sequence of skel.Pose into the plain
// gltfio types for writing (Skeleton, Skin, Animation), and plays a glTF
// scene's animation back into per-frame vertex positions (Player).
//
// It sits beside the gltfio codec rather than in it so that gltfio stays a
// pure codec over geom and mesh, and beneath the simulator so that packages
// that only write or play glTF (flow, viewer, wrinkle) need not import
// scene, sim, collide or cloth.
//
// # Conventions
//
// Joints keep the skeleton's order and rest transforms; a pose's joint
// rotation is written as the local rotation Rest.R·Rot[j], and a root's
// translation as Rest.T + Root (see skel.Local). Times are seconds. Player
// evaluates at key frames only (no interpolation between them): morph
// targets first, then linear blend skinning with the skin's inverse bind
// matrices, or the inverse rest world transforms when a skin has none.
package anim
