package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/meshio/gltfio"
)

// TestBadFlagsFailFast: out-of-range numbers, bad placements, renders and
// unwritable outputs fail before any work, naming the flag or path.
func TestBadFlagsFailFast(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.glb")
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--verts", "100000000", "--out", out}, "--verts 100000000: want 0 (as given) to 1000000"},
		{[]string{"simulate", "--verts", "-5", "--out", out}, "--verts -5"},
		{[]string{"simulate", "--settle", "1e9", "--out", out}, "--settle 1e+09 s: want 0 to 10"},
		{[]string{"simulate", "--settle", "NaN", "--out", out}, "--settle NaN"},
		{[]string{"simulate", "--fps", "-1", "--out", out}, "--fps -1"},
		{[]string{"pose", "--fps", "-1", "--out", out}, "--fps -1"},
		{[]string{"pose", "--fps", "1e9", "--out", out}, "--fps 1e+09"},
		{[]string{"pose", "--end", "-3", "--out", out}, "--end -3"},
		{[]string{"pose", "--garment-place", "0,1,2,3", "--out", out}, "--garment-place \"0,1,2,3\": the scale must be positive"},
		{[]string{"pose", "--garment-place", "1,2", "--out", out}, "want auto, asis, SCALE or SCALE,DX,DY,DZ"},
		{[]string{"simulate", "--out", filepath.Join(blocker, "y.glb")}, "output " + filepath.Join(blocker, "y.glb") + ": cannot create its folder"},
		{[]string{"pose", "--out", dir}, "output " + dir + " is a folder"},
		{[]string{"simulate", "--scene", "sheet", "--seconds-sim", "1e9", "--out", out}, "--seconds-sim 1e+09"},
		{[]string{"pose", "--renders", "0,x", "--out", out}, `--renders: frame "x": not a number`},
		{[]string{"pose", "--units", "parsec", "--out", out}, "--units: "},
		{[]string{"pose", "--up", "w", "--out", out}, "--up: "},
	} {
		start := time.Now()
		text, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q\n%s", tc.args, err, tc.want, text)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: took %v before failing", tc.args, d)
		}
	}
}

// TestHostileBVH: a clip with absurd values (a root at 1e300, a root 5 km
// from its rest position, non-finite or absurd angles) is refused naming
// the file, line or frame, the joint and channel; nothing is written.
func TestHostileBVH(t *testing.T) {
	dir := t.TempDir()
	head := "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n\tJOINT Spine\n\t{\n\t\tOFFSET 0 10 0\n\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 10 0\n\t\t}\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0 0 0 0 0 0 0\n"
	for i, tc := range []struct{ frame, want string }{
		{"1e300 0 0 0 0 0 0 0 0", "bad0.bvh:20: frame 1 value 0 (Hips Xposition): 1e+300 is beyond"},
		// 20 units tall: decimetres, so 5e4 units is 5 km.
		{"5e4 0 0 0 0 0 0 0 0", `bad1.bvh: motion: invalid BVH: frame 1 joint "Hips": the root is 5e+03 m from its rest position, beyond 1000 m`},
		{"0 0 0 0 0 0 0 NaN 0", "bad2.bvh:20: frame 1 value 7 (Spine Yrotation): non-finite number"},
		{"0 0 0 0 0 0 0 0 -Inf", "bad3.bvh:20: frame 1 value 8 (Spine Xrotation): non-finite number"},
		{"0 0 0 0 0 0 1e200 0 0", "bad4.bvh:20: frame 1 value 6 (Spine Zrotation): 1e+200 is beyond"},
	} {
		path := filepath.Join(dir, "bad"+string(rune('0'+i))+".bvh")
		if err := os.WriteFile(path, []byte(head+tc.frame+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "x.glb")
		_, err := run(t, "pose", "--motion", path, "--out", out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.frame, err, tc.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Error("output written for a refused clip")
		}
	}
}

// TestSimulateSIGTERM: SIGTERM stops a simulation after the current frame;
// the frames done are written (a valid glTF with fewer frames than the
// clip) and the command fails saying the output is partial.
func TestSimulateSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates for a few seconds")
	}
	// Catch SIGTERM here too, so that one arriving before simulate listens
	// cannot end the test binary (the test then fails instead).
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGTERM)
	defer signal.Stop(guard)
	out := filepath.Join(t.TempDir(), "walk.glb")
	go func() {
		time.Sleep(4 * time.Second)
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	text, err := run(t, "simulate", "--seconds", "30", "--renders", "", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "interrupted: the output holds") || !strings.Contains(err.Error(), "(partial)") {
		t.Fatalf("error %v\n%s", err, text)
	}
	s, rerr := gltfio.ReadFile(out)
	if rerr != nil {
		t.Fatalf("partial output: %v", rerr)
	}
	if len(s.Meshes) == 0 {
		t.Error("partial output has no meshes")
	}
	t.Log(err)
}

// TestRendersOutOfRange: --renders frames beyond the clip fail once the
// clip is loaded, before the output is written.
func TestRendersOutOfRange(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.glb")
	_, err := run(t, "pose", "--seconds", "0.5", "--renders", "0,100000", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "--renders: frame 100000 out of range: the clip has 16 frames") {
		t.Errorf("error %v", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("output written before --renders was refused")
	}
}
