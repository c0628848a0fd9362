// Package mesh holds the triangle mesh pleat works on and the geometry
// processing built on it: topology and adjacency, normals, areas, discrete
// curvature, Laplacian smoothing, subdivision and spatial queries.
//
// Conventions:
//   - Positions are in metres (file readers convert at the edges), +Y up.
//   - Triangles are counter-clockwise seen from outside; vertex ids are 0-based
//     int32 indices into Mesh.Verts.
//   - Texture / fabric coordinates are stored per triangle corner (Mesh.UVTris
//     indexes Mesh.UVs), so seams keep distinct coordinates on each side.
//   - Functions never modify their input mesh unless their name says so; those
//     that return per-vertex data take an optional dst slice to reuse.
//   - Bugs in the caller (mismatched slice lengths) panic with "mesh: ..."; bad
//     data (out-of-range indices, NaN coordinates) is reported by Validate as an
//     error naming the element.
package mesh
