// Package metrics measures garment animations the way the papers compare
// methods: the curvature sum Σ|H_i|A_i (wang2010's measure of how much
// wrinkle detail a surface has), per-vertex position error against a
// reference, and edge stretch against a rest shape.
//
// Units: positions in metres; curvature in 1/m; the curvature sum in metres
// (curvature × area); errors in metres.
package metrics
