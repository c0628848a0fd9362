package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealtimeProcedural runs pleat realtime end to end on the procedural
// default (coarse, 10 frames), with the comparison against the simulator.
func TestRealtimeProcedural(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator for the comparison")
	}
	dir := t.TempDir()
	out, err := run(t, "realtime", "--resolution", "700", "--end", "10", "--settle", "0.1", "--renders", "last",
		"--compare", "--out", filepath.Join(dir, "rt.pc2"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"tight", "loose", "frames/s", "layers vs the full simulation", "penetration", "skin through the cloth"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"rt.pc2", "rt.obj", "rt.f0009.png", "rt.sim.f0009.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestRealtimeFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--layer", "skirt"}, "--layer"},
		{[]string{"--layer", "skirt=baggy"}, "--layer"},
		{[]string{"--settle", "-1"}, "--settle"},
		{[]string{"--thickness", "0"}, "--thickness"},
		{[]string{"--substeps", "1000"}, "--substeps"},
		{[]string{"--renders", "9999", "--resolution", "700", "--end", "3"}, "--renders"},
	} {
		args := append([]string{"realtime", "--out", filepath.Join(dir, "x.glb")}, c.args...)
		out, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s\n%s", c.args, err, c.want, out)
		}
	}
}
