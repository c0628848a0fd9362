// Package usd writes and reads animated triangle meshes as OpenUSD layers:
// text .usda files and .usdz packages, the scene format Houdini, Maya,
// Unreal and Omniverse pipelines take.
//
// # What is written
//
// One layer whose default prim is an Xform holding one UsdGeomMesh per
// Mesh, in the order given. Each mesh has
//
//   - faceVertexCounts (all 3) and faceVertexIndices: the triangles in the
//     given order, so vertex i of the input is point i of the prim (stable
//     vertex order: a point cache or a simulation's frames map one to one);
//   - points: one time sample per frame (time code StartTime+f), or a
//     default value for a static mesh; extent beside them, sampled alike;
//   - normals (when given): one per point, interpolation "vertex", sampled
//     like the points;
//   - primvars:st: the UVs, interpolation "faceVarying" with
//     primvars:st:indices when the mesh has per-corner UV triangles,
//     "vertex" when it has one UV per vertex;
//   - orientation "rightHanded" (counter-clockwise front faces, pleat's
//     convention), subdivisionScheme "none" (a polygon mesh, not a
//     subdivision cage) and, on request, doubleSided.
//
// The layer metadata carry upAxis, metersPerUnit, timeCodesPerSecond and
// framesPerSecond (both the frame rate), startTimeCode and endTimeCode.
// Prim names are the mesh names made valid USD identifiers (letters,
// digits, '_', not starting with a digit; made unique by a suffix); the
// name as given is kept in customData.pleatName.
//
// Sources: OpenUSD's UsdGeomMesh, UsdGeomPointBased and UsdGeomPrimvar
// schema documentation, and the "Usdz File Format Specification" (Pixar,
// version 1.3): a usdz package is a zip archive whose files are stored
// uncompressed and unencrypted, each file's data starting at a multiple of
// 64 bytes from the start of the archive, the first file being the root
// layer. Here the root layer is the .usda text; three.js' USDLoader and
// OpenUSD both accept usda inside usdz.
//
// # Units and numbers
//
// Positions are written as given (pleat: metres, +Y up, so metersPerUnit 1
// and upAxis "Y" are the defaults). USD stores point3f, normal3f and
// texCoord2f as float32: each value is rounded to the nearest float32 and
// written as the shortest decimal that reads back to that float32, so a
// reader recovers every written float32 bit for bit. Non-finite values,
// and finite values beyond float32's range, are errors naming the mesh,
// frame and vertex.
//
// # Reading
//
// Read parses the subset of the usda text format that describes meshes:
// layer metadata, nested prims of any type, typed attributes with default
// values, time samples and metadata. It returns every Mesh prim; other
// prims and attributes are skipped. Polygons with more than three corners
// are split into triangle fans. Errors name the line. It is meant for
// round-trip tests and for reading pleat's own output, not as a general
// USD composition engine (no references, payloads, variants or
// sublayers).
package usd
