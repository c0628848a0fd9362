// Package obj reads and writes Wavefront OBJ meshes.
//
// Read accepts the subset of OBJ that describes a polygon mesh:
//
//   - v x y z [w | r g b [a]]: a position; the optional w and vertex colours
//     are checked to be numbers and otherwise ignored.
//   - vt u [v [w]]: a texture coordinate (v defaults to 0, w is ignored).
//   - vn x y z: a normal.
//   - f with corners v, v/vt, v//vn or v/vt/vn; indices are 1-based, and
//     negative indices count back from the last element read so far
//     (-1 is the most recent). Zero and out-of-range indices are errors.
//   - g name and o name: start a group; the rest of the line (trimmed) is
//     the name, so "g a b" is one group called "a b". Both g and o set the
//     current group; the most recent one wins. A repeated name continues the
//     same group. Groups that end up with no faces are dropped.
//   - usemtl, mtllib, s, l, p, curve and free-form statements, and unknown
//     statements, are ignored. '#' starts a comment; a line ending in '\'
//     continues on the next line; CRLF line ends are accepted.
//
// Conventions of the resulting mesh.Mesh:
//
//   - All vertices are kept in file order, referenced or not, so vertex ids
//     equal OBJ indices minus one. Positions are multiplied by Options.Scale
//     (1 by default; MakeHuman's base.obj is in decimetres, use 0.1).
//   - Triangles (three corners) are kept; quads are split along the 0-2
//     diagonal unless that makes a triangle face against the quad's normal
//     (a concave quad), in which case the 1-3 diagonal is used. Polygons of
//     5 to 128 corners are ear-clipped in their best-fit (Newell) plane, with a
//     fan from the first corner as fallback for self-intersecting or
//     degenerate outlines and for larger polygons. The winding of the source
//     polygon is kept. ReadDetailed reports which polygon each triangle came
//     from.
//   - A face that repeats a vertex index (f 1 2 2) is an error naming the
//     line, not silently dropped: it cannot be triangulated into the
//     manifold, non-degenerate triangles mesh.Validate requires.
//   - Texture coordinates are per corner (Mesh.UVTris). If no face corner has
//     a vt index, UVs and UVTris are nil. If some corners have one and others
//     do not, the corners without one point at an extra (0,0) coordinate
//     appended after the file's vt entries.
//   - Normals are per corner as well (Mesh.NormalTris), but only if every
//     corner has a vn index; otherwise Normals keeps the file's vn entries and
//     NormalTris is nil.
//   - Faces before the first g or o line belong to a group named "default",
//     but only if the file has at least one non-empty named group; a file
//     without groups gives a mesh with no groups.
//
// Errors are *Error values that name the file and line ("base.obj:123: ...").
// A file with no faces is an error. Inputs are capped (lines of at most
// MaxLineBytes, at most MaxElements of each kind) so that malformed or
// hostile input cannot exhaust memory.
//
// Write emits v, vt, vn and f lines with the shortest decimal form that
// parses back to the identical float64, so Write followed by Read gives the
// same positions, texture coordinates and normals bit for bit. Triangles that
// belong to no group are written first, then each group's triangles under a g
// line; a triangle in several groups is written once, in the first of them.
// When groups are not contiguous runs in triangle order, reading the file
// back therefore renumbers the triangles.
//
// Functions in this package hold no state; they are safe for concurrent use
// on distinct arguments.
package obj
