// Package character holds skinned characters and the garments fitted to
// them: a body mesh in its rest pose, the skeleton whose rest pose it is,
// per-vertex skinning weights, and garments with weights derived from the
// body. It imports MakeHuman assets (base.obj, .mhskel, .mhw, .mhclo) and
// skinned glTF files. The procedural default mannequin lives in
// character/procedural.
//
// # Conventions
//
//   - Metres, radians, right-handed, +Y up, the character facing +Z with its
//     left at +X (MakeHuman's axes). MakeHuman files are in decimetres
//     (MHUnit); loaders convert. LoadMakeHuman keeps the base.obj origin
//     (between the hips) unless MakeHumanOptions.Ground moves the soles to
//     Y = 0.
//   - Triangles are counter-clockwise seen from outside; quads from OBJ
//     files are triangulated by meshio/obj.
//   - Bone frames follow Blender and skel.FromBones: a bone's local +Y runs
//     from head to tail. See MHSkel.SkelBones for how rolls are derived from
//     MakeHuman rotation planes (local X = plane normal, as MakeHuman does)
//     and from numeric rolls (read as Blender rolls in Blender's +Z-up
//     frame). Knees and elbows are skel.Hinge joints whose axis is the
//     normal of the limb's bending plane.
//   - Vertex ids are 0-based. A MakeHuman character keeps two numberings:
//     Body vertices (the kept groups, compacted) and base vertices (all of
//     base.obj, which .mhskel, .mhw and .mhclo index); BaseMesh maps between
//     them. With the default group "body" the two coincide on the body.
//   - Weights are normalised per vertex (sum 1 in float64 before rounding to
//     float32), influences sorted by joint, any number per vertex
//     (MakeHuman uses up to 12; use skel.Weights.TopK for 4-bone exports).
//
// # MakeHuman weights onto another rig
//
// The .mhw weights belong to MakeHuman's default 163-bone rig. A rig such
// as cmu_mb lists for each bone the default bones it stands for
// (weights_reference, else reference); RigWeights sums their weights, gives
// the weight of default bones no target bone claims to the bones claiming
// their nearest ancestor, and what remains to the root.
//
// # Garments
//
// A .mhclo binding places each garment vertex at a weighted sum of three
// base vertices plus an offset scaled per axis by the body's proportions
// (Binding). MakeHuman garments bind to the helper-tights vertices, which
// sit a few millimetres off the skin; the garment's skin weights blend
// those vertices' weights with the binding weights (BlendWeights).
// Character.HiddenBody removes the skin a garment's delete_verts hides.
//
// A garment that comes as a plain mesh (OBJ, glTF) modelled on any
// character in its rest pose is bound by Character.LoadMeshGarment: each
// vertex to its closest point on the body surface, with its offset kept in
// that triangle's frame (SurfaceBinding) and the body's skin weights
// interpolated there. The garment is split into its connected pieces, named
// by OBJ group or glTF node; named vertex groups become pins. When the
// file's units or origin differ from the character's (decimetres, or
// MakeHuman's base.obj frame on a grounded body), FitPlacement finds them.
// Garments modelled inside a glTF character's own file (other skinned or
// static meshes) are worn by LoadGLTFDressed: carried into the body's bind
// pose and bound the same way, placed as the file has them.
//
// # Errors
//
// Bad file data gives a *ParseError naming the file, the line (for the
// line-based .mhclo) and the field; bad skeleton or weight data gives the
// skel package's *JointError or *VertexError. Parsers cap counts (MaxVerts,
// MaxDeleteVerts, MaxFileBytes) and never panic on malformed input; they
// are fuzzed. Caller bugs (mismatched slice lengths) panic with
// "character: ...". Functions hold no state and are safe for concurrent use
// on distinct arguments.
package character
