// Package motion reads and writes BVH motion capture, converts it to
// skeletal clips (a skel.Skeleton plus one skel.Pose per frame), renames
// joints with name maps, resamples and trims clips, and retargets a clip
// onto a rig with another rest pose and proportions.
//
// Conventions:
//   - A BVH value is the file as written: offsets and position channels in
//     file units, rotation channels in degrees, joints in depth-first file
//     order with the root at index 0. Read and Write round-trip it bit for
//     bit (numbers are written with strconv 'g', -1).
//   - A Clip is in metres and radians, +Y up (the CMU convention too).
//     BVH.Clip takes the length of a file unit in metres (CMUUnit for the
//     CMU database). Rest orientations are the identity, rest translations
//     are the offsets, and every End Site becomes an extra leaf joint named
//     parent + "_end" (EndSuffix) so that end bones have a direction.
//   - BVH.ClipWith detects the file unit (Units: m, dm, cm, mm, in and
//     CMU's 0.056444 m, whichever makes the rest skeleton closest to
//     NominalHeight) and the up axis (+Y or +Z, from where the head is
//     relative to the feet) unless given, turns Z-up files to +Y up
//     (−90° about X), and returns notes saying what it chose.
//   - Position channels on non-root joints (six channels per joint) give
//     the joint's offset; a translation that varies over the clip moves
//     the whole skeleton when the joint's ancestors are a single chain
//     (a static reference root), else its mean is used (see BVH.Clip).
//   - Joint names in the common conventions (MotionBuilder/Mixamo, Unity
//     "UpperLeg_L", Blender "thigh.L", "L_Thigh", 3ds Max Biped "Bip01 L
//     Thigh", CMU's 3ds Max names) are recognised as a side and a body
//     part (ParsePart, Parts), and AutoMap matches a clip onto a rig by
//     them; *UnmatchedPartsError lists what could not be matched.
//   - BVH Euler channels are intrinsic rotations in listed order:
//     "Zrotation Yrotation Xrotation" means R = Rz·Ry·Rx. The root's
//     position channels give Pose.Root = (P − OFFSET)·unit.
//   - Frame f of a clip is at time f/FPS; Duration = (frames−1)/FPS.
//     CMU files start with an added T-pose frame (see DropTPose).
//   - Errors: malformed input gives a *ParseError "file:line: message";
//     inconsistent values an error wrapping ErrInvalid; joints that a strict
//     rename or retarget cannot place an *UnknownJointsError listing them.
//     Read never panics on any input (fuzzed) and caps counts (MaxJoints,
//     MaxFrames, MaxValues).
//   - Functions return new values and do not modify their inputs, except
//     BVH.RenameJoints; Clips returned by Resample, Rename and Retarget may
//     share the source skeleton. All functions are safe for concurrent use
//     on distinct values.
package motion
