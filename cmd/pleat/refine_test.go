package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefineProcedural runs pleat refine end to end on a few frames of the
// procedural default at its coarsest, with the reference.
func TestRefineProcedural(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates three times")
	}
	dir := t.TempDir()
	out, err := run(t, "refine", "--resolution", "700", "--end", "4", "--settle", "0.1", "--every", "2",
		"--peak", "15", "--renders", "last", "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"curvature", "refined/reference", "penetration", "(coarse+refine)/reference"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"refined/frame_00003.obj", "refined.glb", "refined.pc2", "refined.obj", "coarse.glb",
		"reference.glb", "report.txt", "refined.f0003.png", "reference.f0003.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestRefineBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--curvature", "gauss"},
		{"--peak", "-1"},
		{"--fraction", "2"},
		{"--every", "0"},
	} {
		_, err := run(t, append([]string{"refine", "--out", t.TempDir()}, args...)...)
		if err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
