// Package scene assembles what a pleat run works on: a character (skinned
// body), the garments it wears and a motion clip on its skeleton, from files
// (MakeHuman folders, glTF characters, .mhclo garments, BVH clips) or from the
// built-in procedural default. It skins body and garments frame by frame (the
// skinning baseline every wrinkle method is measured against), exports the
// result as a skinned, animated glTF (through meshio/gltfio/anim, which also
// plays glTF files back), and renders it.
//
// Units are SI (metres, seconds); +Y up; the floor is y = 0 after grounding.
package scene
