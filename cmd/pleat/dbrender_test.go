package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDBRender builds a two-sample database on the coarse procedural suit
// and renders its bent elbow: one PNG of two views, and with --deep a
// report of the garment inside the body; a bad --sample is an error
// naming it.
func TestDBRender(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 2 samples")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "elbow.json")
	if err := os.WriteFile(spec, []byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
 {"role": "left_elbow", "flex": {"min": 0, "max": 90, "step": 90}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "elbow.pdb")
	if text, err := run(t, "builddb", "--resolution", "700", "--spec", spec, "--transition", "0.2", "--settle-time", "0.4", "--jobs", "1", "--out", db); err != nil {
		t.Fatalf("builddb: %v\n%s", err, text)
	}
	out := filepath.Join(dir, "renders")
	text, err := run(t, "db", "render", db, "--sample", "left_elbow=80", "--width", "120", "--height", "150", "--out", out)
	if err != nil {
		t.Fatalf("db render: %v\n%s", err, text)
	}
	path := filepath.Join(out, "sample001_left_elbow_flex90.png")
	if !strings.Contains(text, path) {
		t.Errorf("output does not name %s:\n%s", path, text)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 240 || b.Dy() != 150 {
		t.Errorf("image %v, want two views of 120×150", b)
	}
	text, err = run(t, "db", "render", db, "--sample", "left_elbow=90", "--width", "120", "--height", "150", "--deep", "--out", out)
	if err != nil || !strings.Contains(text, "garment vertices more than 2 mm inside the body (green)") {
		t.Errorf("db render --deep: %v, output does not report the deep vertices:\n%s", err, text)
	}
	for _, bad := range []string{"elbow=90", "left_elbow=x", "left_elbow=10,20"} {
		if _, err := run(t, "db", "render", db, "--sample", bad, "--out", out); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("--sample %s: error %v", bad, err)
		}
	}
}
