package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pleatassets "github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/viewer"
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
	// The fixed-topology outputs play in pleat serve.
	for _, f := range []string{"refined.glb", "refined.pc2"} {
		a, err := viewer.Load(filepath.Join(dir, f), viewer.LoadOptions{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
		} else if a.NumFrames != 4 {
			t.Errorf("%s: %d frames, want 4", f, a.NumFrames)
		}
	}
}

// TestRefineSerial checks that the refinement run beside the coarse
// simulation (the default) writes the files --serial writes, byte for
// byte, and that the report times the two together.
func TestRefineSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates twice")
	}
	outs := map[string]string{}
	for _, mode := range []string{"beside", "serial"} {
		dir := t.TempDir()
		args := []string{"refine", "--resolution", "700", "--end", "8", "--settle", "0.1", "--every", "2",
			"--peak", "15", "--renders", "", "--no-reference", "--out", dir}
		if mode == "serial" {
			args = append(args, "--serial")
		}
		out, err := run(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		want := map[string]string{"beside": "coarse and refine side by side", "serial": " s + refine "}[mode]
		if !strings.Contains(out, want) {
			t.Errorf("%s: the report lacks %q:\n%s", mode, want, out)
		}
		outs[mode] = dir
	}
	for _, f := range []string{"refined.pc2", "coarse.glb", "refined/frame_00007.obj"} {
		a, errA := os.ReadFile(filepath.Join(outs["beside"], f))
		b, errB := os.ReadFile(filepath.Join(outs["serial"], f))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between the default and --serial", f)
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

// TestRefineSuit runs pleat refine on a few frames of the MakeHuman suit
// walking (PLEAT_ASSETS), without the reference.
func TestRefineSuit(t *testing.T) {
	assets := pleatassets.Dir()
	if assets == "" {
		t.Skip("PLEAT_ASSETS not set: the MakeHuman suit and the CMU walk are needed")
	}
	if testing.Short() {
		t.Skip("simulates the suit")
	}
	dir := t.TempDir()
	out, err := run(t, "refine", "--character", filepath.Join(assets, "makehuman"), "--garment", "male_casualsuit02",
		"--motion", filepath.Join(assets, "mocap/cmu/02_01_walk.bvh"), "--fps", "30", "--end", "6", "--settle", "0.2",
		"--every", "3", "--no-reference", "--renders", "", "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "mean refined area 0.0000") {
		t.Errorf("nothing refined:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "refined/frame_00005.obj")); err != nil {
		t.Error(err)
	}
}
