// Package meshio picks a mesh reader or writer by file extension, over the
// format packages beneath it: obj (.obj), ply (.ply), pc2 (.pc2 point
// caches) and gltfio (.glb, .gltf). Use the format packages directly for
// format-specific options.
//
// Units: the formats carry none. Positions are returned as stored in the file
// multiplied by Options.Scale (MakeHuman's OBJ files are in decimetres: use
// 0.1); writers store positions as given.
package meshio
