package main

import (
	"strings"
	"testing"
)

// TestBenchSynth: bench synth at the smallest suit prints every stage, the
// ratio to the paper, allocations and memory; bad flags are refused.
func TestBenchSynth(t *testing.T) {
	if testing.Short() {
		t.Skip("steps the online pipeline")
	}
	text, err := run(t, "bench", "synth", "--verts", "700", "--frames", "3", "--warmup", "1", "--motion", "elbowbend")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"timing database", "wrinkle synthesis", "coarse simulation", "wrinkle transfer", "frames/s", "wang2010's 11.9 frames/s", "allocations", "decoded in the synthesizer", "FNV-1a hash"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// The same run, and the one with synthesis and coarse simulation in
	// turn, end on the same garment.
	serial, err := run(t, "bench", "synth", "--verts", "700", "--frames", "3", "--warmup", "1", "--motion", "elbowbend", "--serial")
	if err != nil {
		t.Fatalf("--serial: %v\n%s", err, serial)
	}
	if a, b := resultLine(text), resultLine(serial); a == "" || a != b {
		t.Errorf("result %q, with --serial %q: want equal", a, b)
	}
	if _, err := run(t, "bench", "synth", "--verts", "100"); err == nil || !strings.Contains(err.Error(), "--verts") {
		t.Errorf("--verts 100: got %v, want an error naming the flag", err)
	}
}

// resultLine returns bench synth's line of the last frame's hash.
func resultLine(text string) string {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "result ") {
			return line
		}
	}
	return ""
}
