// Package ply reads and writes Stanford PLY polygon meshes.
//
// Read accepts the three encodings (ascii, binary_little_endian and
// binary_big_endian, version 1.0) and every scalar type of the format under
// both its classic and its sized name: char/int8, uchar/uint8, short/int16,
// ushort/uint16, int/int32, uint/uint32, float/float32 and double/float64.
//
// From the "vertex" element it takes x, y, z (required), a texture
// coordinate from the first pair present of u,v / s,t / texture_u,texture_v /
// texture_s,texture_t, and a normal from nx, ny, nz. From the "face" element
// it takes the list "vertex_indices" (or "vertex_index"), with any integral
// count and index types, and an optional per-corner list "texcoord" of 2n
// values (MeshLab's wedge texture coordinates). Every other property and
// element (edges, materials, ...) is parsed past and ignored, in all three
// encodings.
//
// Conventions of the resulting mesh.Mesh:
//
//   - Vertices keep file order; vertex ids are the PLY indices.
//   - Faces of n > 3 corners are split into a fan from their first corner,
//     keeping the winding. A face with fewer than 3 corners, an index out of
//     range, or a repeated index is an error naming the face.
//   - Per-vertex texture coordinates become per-corner ones whose index equals
//     the vertex id (Mesh.UVTris equals Mesh.Tris); face texcoord lists, when
//     present, take precedence and give one UV per corner. Per-vertex normals
//     likewise give Mesh.NormalTris equal to Mesh.Tris.
//   - Non-finite positions, texture coordinates or normals are errors.
//   - PLY has no groups: Mesh.Groups is nil.
//
// Errors are *Error values naming the file, the line (header and ascii
// bodies) and the element and its index ("scan.ply:17: face 3: ...").
// Counts in the header are capped at math.MaxInt32 and the reader never
// allocates ahead of the data actually present, so a header that promises
// more than the input holds fails with a truncation error instead of
// exhausting memory.
//
// Write produces ascii or binary_little_endian files with float (float32)
// coordinates by default, or double with WriteOptions.Double; float output of
// a coordinate beyond float32 range is an error. Texture coordinates (u, v)
// and normals (nx, ny, nz) are written per vertex only when every corner of a
// vertex carries the same value (PLY has no seams); otherwise they are
// omitted. Groups are not written. Faces are triangles: "property list uchar
// int vertex_indices".
//
// Functions in this package hold no state; they are safe for concurrent use
// on distinct arguments.
package ply
