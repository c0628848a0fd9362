// Package bench runs pleat's end-to-end benchmarks and compares them with
// peer simulators measured in the same run: SimBench times package sim on
// the walking MakeHuman character with a fine garment (about 25k vertices
// asked; whole subdivision levels give more) and on a coarse procedural
// garment (about 700 vertices), and runs Blender's cloth modifier on the
// same garment mesh and frame rate, colliding with pleat's own collision
// proxy and pinning the attached loops to pleat's own attachment targets
// (bench/blender_cloth.py). Blender's steps per frame are then searched
// for the fewest that reach pleat's quality, so that speed is compared at
// its default and at matched quality.
//
// Both sides are scored by the same code (Score): the median wall time per
// frame (frame 0, the settle, excluded), the largest edge strain against
// the rest edge lengths, and the penetrations: vertex-frames more than
// 2 mm inside the full skinned body. Timings are reported, never asserted:
// the machines are small and noisy, so a report gives medians and the
// ratios measured in one run.
//
// Units are SI (metres, seconds); +Y up. Exchange files with Blender are
// little-endian float32/int32 arrays.
package bench
