// Package scene assembles what a pleat run works on: a character (skinned
// body), the garments it wears and a motion clip on its skeleton, from files
// (MakeHuman folders, glTF characters, .mhclo garments, BVH clips) or from the
// built-in procedural default. It skins body and garments frame by frame (the
// skinning baseline every wrinkle method is measured against), exports the
// result as a skinned, animated glTF (through meshio/gltfio/anim, which also
// plays glTF files back), and renders it.
//
// BVH clips are read in any of the common units and with Y or Z up
// (detected, or set by Spec.Units and Spec.Up) and, with no name map, are
// matched to the rig by joint name and then by side and body part
// (motion.AutoMap), so clips and rigs from MotionBuilder, Mixamo, Unity,
// Blender and 3ds Max meet without a map; what is left unmatched is noted,
// and a rig limb nothing drives is an error listing the clip's joints.
//
// Units are SI (metres, seconds); +Y up; the floor is y = 0 after grounding.
package scene
