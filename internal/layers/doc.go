// Package layers has no code of its own: its test checks that the
// repository's imports flow one way (see the README's Layout), so that
// format code, the viewer and the side roads that only read and write files
// never pull in the simulator.
package layers
