// Package gltfio reads and writes glTF 2.0 (.gltf and .glb) scenes: triangle
// meshes with texture coordinates and normals, a skeleton with linear blend
// skinning, morph targets, and keyframe animations of joint rotations,
// translations and morph weights. It is the edge where pleat's plain data
// (geom, mesh) meets the glTF format; no qmuntal/gltf type appears in its API.
//
// # Conventions
//
//   - Units are metres and seconds, +Y up, right-handed, triangles
//     counter-clockwise seen from the front: glTF's own conventions, so
//     positions are written and read as they are.
//   - Texture coordinates follow pleat's (and OBJ's) convention, V up: a
//     pleat UV (u, v) is glTF TEXCOORD_0 (u, 1−v), both ways.
//   - Quaternions are geom.Quat (W, X, Y, Z); glTF stores (x, y, z, w). The
//     conversion happens here.
//   - Joint transforms are rigid (geom.Rigid): a joint's Rest is its local
//     transform relative to its parent joint (or to the scene for a root).
//   - Floating-point data is stored as float32, so a round trip is exact to
//     float32 precision (relative 6e-8).
//
// # Writing
//
// Encode and WriteFile write a Scene. glTF wants one vertex per distinct
// (position, uv, normal) triple; a mesh.Mesh stores UVs and normals per
// triangle corner, so the writer splits vertices along UV seams and hard
// edges (see SplitVertices) and carries skin weights and morph
// displacements to every copy. NORMAL is always written: the mesh's own
// per-corner normals when it has them, else angle-weighted vertex normals.
// Skin influences beyond the four largest are dropped and the remaining four
// renormalised to sum to 1 (glTF's JOINTS_0/WEIGHTS_0). Animations use
// LINEAR interpolation. A .glb holds everything in one file; a .gltf is JSON
// with the binary buffer embedded as a base64 data URI (also one file, about
// 4/3 the size). Output is deterministic: the same Scene gives the same
// bytes.
//
// # Reading
//
// Decode and ReadFile accept .glb and .gltf (embedded data URIs, or external
// buffers next to the file with ReadFile or Decoder.FS). Every mesh instance
// of the default scene becomes a Mesh: its triangle primitives (TRIANGLES,
// TRIANGLE_STRIP and TRIANGLE_FAN; points and lines are skipped) are merged,
// one mesh.Group per primitive when there are several. Non-skinned meshes
// are transformed by their node's world matrix; skinned meshes are returned
// in bind pose (their vertex data as stored, which glTF defines in the
// skeleton's space). Vertices that glTF split at seams are welded back: two
// vertices of one mesh merge when their positions, skin influences and morph
// displacements are bitwise equal (Decoder.NoWeld turns this off). UVs and
// normals stay per corner. Triangles that repeat a vertex are dropped.
//
// All skins of a file are merged into one Skeleton whose joints are the skin
// joints in order of first appearance; a joint's parent is its nearest
// ancestor node that is also a joint. Node scale is allowed only where it is
// uniform and positive: it is baked into the translations below it (and into
// mesh positions), so every joint transform is rigid. Non-uniform or negative
// scale above a joint is an error; on a plain mesh node it is applied.
// Animated scale, and animated nodes that are neither joints nor mesh nodes,
// are ignored. Each glTF animation is resampled onto the union of its channel
// key times: LINEAR, STEP and CUBICSPLINE samplers are all evaluated exactly
// at those times.
//
// Malformed input (bad magic, truncated chunks, indices out of range,
// accessors that overrun their buffers, NaN values) gives a *FormatError
// naming the file and the element, never a panic.
package gltfio
