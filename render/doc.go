// Package render draws pleat meshes to images with a small software
// rasteriser (fogleman/fauxgl), so a person can look at results without a
// viewer: PNG frames of animations, side-by-side comparisons and curvature
// heat maps.
//
// Conventions: +Y is up; the default camera looks along −Z at the front of a
// character (MakeHuman and the procedural mannequin face +Z). Positions are in
// metres but any unit works: the camera frames the bounding box. Lighting is
// two-sided, since garments are open surfaces seen from both sides.
package render
