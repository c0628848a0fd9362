// Package viewer serves pleat's web viewer: a small WebGL2 page of our own
// (embedded in the binary, no third-party code, no network) that plays any
// pleat output (glTF animations, a PC2 cache with its mesh, a folder of OBJ
// frames whose topology may change from frame to frame, a .usda/.usdz of time-sampled meshes, a static OBJ/PLY/glTF mesh)
// with an orbit camera, wrinkle-revealing lighting, a mean-curvature heat
// map, and two to four results side by side on one clock.
//
// Across panels a garment keeps one colour, chosen by its mesh name; the
// body can be hidden; and a difference view colours each garment whose
// topology (vertex count and triangles) matches a garment in another panel
// by the per-vertex distance to it at the same time (metres; every panel
// is compared with the first that matches, the first with the second),
// with the mean and largest distance printed per panel.
//
// The Go side decodes every format itself (Load) and hands the page plain
// arrays, so the page needs no file parsers:
//
//	GET /                          the page (index.html, viewer.js, style.css)
//	GET /api/items                 JSON list of the results (ItemInfo)
//	GET /api/item/{i}/mesh         binary topology of item i (see meshBlob)
//	GET /api/item/{i}/mesh/{k}     topology k of item i, for items whose
//	                               topology changes per frame
//	GET /api/item/{i}/frame/{f}    binary positions and per-vertex mean
//	                               curvature of frame f (see frameBlob)
//
// Safety: a Server reads only the files it was given, addressed by item
// index; no request names a file. Request paths holding "..", encoded dots
// or slashes (%2e, %2f, %5c), backslashes or an empty segment ("//") get
// 400, anything else not listed above 404. The default address binds the
// loopback interface only, and while bound there the server also refuses
// (403) requests whose Host header is a DNS name other than localhost,
// which stops DNS-rebinding pages from reading it.
//
// An OBJ sequence (pleat refine's output, refined patches appearing and
// disappearing) may change vertex count and triangles per frame. The
// server numbers the distinct topologies in the order it meets them
// (frame 0's is 0; frames are decoded lazily, so a long sequence costs
// nothing up front); each frame names its topology and the page fetches a
// topology's triangles once, the first time a frame needs it. The heat
// map is per frame; the difference view compares a garment only with
// partners of the same topology at that moment, and greys it otherwise.
//
// Units are those of the files (pleat writes metres); +Y up. Curvature is
// the cotangent mean curvature H in m⁻¹ (mesh.CurvatureCotan), convex
// positive; the curvature sum is Σ|H_i|A_i in metres
// (mesh.CurvatureStats.AbsSum).
package viewer
