// Package bench holds the scripts that drive peer simulators for the
// benchmarks of package internal/bench (pleat bench sim): the Blender cloth
// script, embedded so that the pleat binary can run it from anywhere.
package bench

import _ "embed"

// BlenderCloth is the source of blender_cloth.py: Blender's cloth modifier
// on a garment with pinned vertices, colliding with an animated body, both
// read from files that internal/bench writes. See README.md.
//
//go:embed blender_cloth.py
var BlenderCloth string
