// Package pc2 reads and writes PC2 point caches, the simple vertex-animation
// format of 3ds Max and Blender (Mesh Cache modifier, "Export Pointcache
// (.pc2)" add-on).
//
// Layout (all little-endian):
//
//	offset  size  field
//	0       12    magic "POINTCACHE2\0"
//	12      4     int32 version, 1
//	16      4     int32 numPoints
//	20      4     float32 startFrame
//	24      4     float32 sampleRate (frames between samples; 1 = every frame)
//	28      4     int32 numSamples
//	32      ...   numSamples × numPoints × (x, y, z float32)
//
// Sample s is at frame startFrame + s·sampleRate. Positions are float32 on
// disk and float64 in memory; Write rounds to the nearest float32, and a
// value beyond float32 range is an error rather than ±Inf.
//
// Coordinates are stored exactly as given: pleat writes its own convention
// (metres, +Y up) and converts nothing on read or write. Blender is Z-up: its
// PC2 export add-on can rotate Z-up to Y-up on export ("Convert to Y-up"), and
// its Mesh Cache modifier has Forward/Up axis and Flip Axis settings; use Up
// = +Y there for pleat caches, or rotate the object 90° about X. The modifier
// takes the start frame and frame scale from its own settings. Points must be
// in the target mesh's vertex order: import the rest mesh keeping vertex
// order (a pleat PLY, or an OBJ not split by group or object), with no
// modifier that changes the vertex count before the Mesh Cache one.
//
// Read loads a whole cache; Reader streams it frame by frame into a
// caller-owned buffer; Writer streams frames out and checks their count on
// Close. Nothing is allocated ahead of the data actually read, so a header
// claiming huge counts fails with a truncation error, not an out-of-memory.
// Errors name the sample and point involved.
package pc2
