// Package sim simulates garments on an animated character: it prepares each
// garment for the cloth solver (splitting it into its separate pieces,
// refining to the wanted resolution with skin weights carried along (long
// triangles split until the vertex count is reached, so that edge lengths
// even out),
// finding the layer order and the waistband or collar to attach), then steps
// package cloth frame by frame against the skinned body (package collide;
// by default a collision proxy: the body simplified by mesh.Simplify to a
// tolerance tied to the garment's edge length and moved out to enclose the
// body, several times cheaper to skin, refit and query),
// with layered cloth–cloth collision between pieces, a 10 % strain limit
// and a speed safety net (cloth.Options), and reports per frame timings, CG
// iterations, stretch and where it is worst, penetration and kinetic
// energy.
//
// Units are SI (metres, seconds, kilograms); +Y up. A run is deterministic:
// the same scene and options give bit-identical frames on one platform.
package sim
