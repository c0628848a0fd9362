package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResynth builds a two-clip database of the coarse procedural suit
// (one clip cached as PC2), resynthesises a third motion from it, runs the
// leave-one-out report, rebuilds from the cache and checks the errors for
// a truncated database and a missing clip.
func TestResynth(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates two short clips")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "db.prsd")
	cache := filepath.Join(dir, "walk.pc2")
	glb := filepath.Join(dir, "knee.glb")
	small := []string{"--resolution", "700", "--seconds", "0.4"}
	build := append([]string{"resynth", "build", "--settle", "0.1", "--out", db, "walk=" + cache, "kneebend=" + glb}, small...)
	text, err := run(t, build...)
	if err != nil {
		t.Fatalf("resynth build: %v\n%s", err, text)
	}
	for _, want := range []string{"clip       walk: 13 frames", "clip       kneebend: 13 frames", "wrote " + db} {
		if !strings.Contains(text, want) {
			t.Errorf("build output lacks %q:\n%s", want, text)
		}
	}
	out := filepath.Join(dir, "elbow.pc2")
	report := filepath.Join(dir, "elbow.csv")
	text, err = run(t, append([]string{"resynth", "--db", db, "--motion", "elbowbend", "--out", out, "--report", report}, small...)...)
	if err != nil {
		t.Fatalf("resynth: %v\n%s", err, text)
	}
	for _, want := range []string{"path       13 frames in", "smoothing", "wrote " + out, "wrote " + report} {
		if !strings.Contains(text, want) {
			t.Errorf("resynth output lacks %q:\n%s", want, text)
		}
	}
	if text, err = run(t, "resynth", "eval", "--db", db); err != nil || !strings.Contains(text, "mean") {
		t.Errorf("resynth eval: %v\n%s", err, text)
	}
	if _, err := run(t, "resynth", "eval", "--db", db, "--smooth", "40"); err == nil || !strings.Contains(err.Error(), "Smooth") {
		t.Errorf("resynth eval --smooth 40: error %v, want one naming Smooth", err)
	}
	// The walk again, against its cached simulation.
	text, err = run(t, append([]string{"resynth", "--db", db, "--without", "walk", "--motion", "walk", "--truth", cache, "--out", filepath.Join(dir, "walk.glb")}, small...)...)
	if err != nil || !strings.Contains(text, "skinning") {
		t.Errorf("resynth --truth: %v\n%s", err, text)
	}
	// A rebuild reads the cache instead of simulating.
	if text, err = run(t, build...); err != nil || !strings.Contains(text, "cache      "+cache) || !strings.Contains(text, "cache      "+glb) {
		t.Errorf("rebuild from the caches: %v\n%s", err, text)
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.prsd")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "resynth", "--db", cut, "--out", filepath.Join(dir, "y.pc2")); err == nil || !strings.Contains(err.Error(), cut) {
		t.Errorf("truncated database: error %v, want one naming %s", err, cut)
	}
	if _, err := run(t, "resynth", "--db", db, "--without", "nosuch", "--out", filepath.Join(dir, "z.pc2")); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("--without nosuch: error %v", err)
	}
}
