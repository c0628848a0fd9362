// Package sim simulates garments on an animated character: it prepares each
// garment for the cloth solver (splitting it into its separate pieces,
// subdividing to the wanted resolution with skin weights carried along,
// finding the layer order and the waistband or collar to attach), then steps
// package cloth frame by frame against the skinned body (package collide),
// with layered cloth–cloth collision between pieces, and reports per frame
// timings, CG iterations, stretch, penetration and kinetic energy.
//
// Units are SI (metres, seconds, kilograms); +Y up. A run is deterministic:
// the same scene and options give bit-identical frames on one platform.
package sim
