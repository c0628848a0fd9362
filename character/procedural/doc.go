// Package procedural builds pleat's default content without any files: a
// skinned mannequin, a shirt and trousers sewn from flat panels, and
// procedural motion clips. Everything is deterministic: the same options
// give the same output bit for bit.
//
// Conventions:
//   - Metres, radians, seconds; +Y up, the character faces +Z and its left
//     is +X; the feet stand on y = 0.
//   - The rest pose is a T-pose: arms horizontal along ±X with palms down,
//     legs slightly apart. Joint names follow the CMU/MotionBuilder BVH
//     skeleton (Hips, LHipJoint, LeftUpLeg, LeftLeg, LeftFoot, LeftToeBase,
//     LowerBack, Spine, Spine1, Neck, Neck1, Head, LeftShoulder, LeftArm,
//     LeftForeArm, LeftHand and the Right/RHipJoint twins), so CMU clips
//     retarget by name. Elbows and knees are skel.Hinge joints whose
//     positive flexion bends them anatomically (forearm forward from the
//     T-pose, shank backward).
//   - Triangles are counter-clockwise seen from outside (normals point
//     away from the body); ids are 0-based.
//   - Garment UVs are pattern coordinates in metres (U weft, V warp),
//     one UV set per panel.
//   - Clips return poses relative to the rest pose, sampled at k/fps; the
//     motion package wraps them as clips.
//
// Bodies and garments are immutable after construction and safe for
// concurrent readers.
package procedural
