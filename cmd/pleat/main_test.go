package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
)

// run executes the CLI with args and returns its output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// TestPoseDefault: `pleat pose` with no scene flags makes the procedural
// default animation, a valid glTF, and renders.
func TestPoseDefault(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "default.glb")
	text, err := run(t, "pose", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"mannequin", "shirt", "trousers", "wrote " + out} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "default.f*.png"))
	if len(pngs) != 3 {
		t.Errorf("%d renders, want 3", len(pngs))
	}
	// render reads the glb back and draws it.
	if text, err := run(t, "render", out, "--frames", "0", "--size", "64x64", "--out", dir+"/r/"); err != nil {
		t.Fatalf("render: %v\n%s", err, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "r", "default.f0000.png")); err != nil {
		t.Error(err)
	}
	gltfcheck.Check(t, out)
}

func TestInspectAndConvert(t *testing.T) {
	dir := t.TempDir()
	obj := filepath.Join(dir, "tri.obj")
	os.WriteFile(obj, []byte("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\ng quad\nf 1/1 2/2 3/3 4/4\n"), 0o644)
	text, err := run(t, "inspect", obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vertices            4", "triangles           2", "boundary loops      1", "quad"} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, text)
		}
	}
	glb := filepath.Join(dir, "tri.glb")
	if _, err := run(t, "convert", obj, glb); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "convert", glb, filepath.Join(dir, "back.ply")); err != nil {
		t.Fatal(err)
	}
	if text, err := run(t, "inspect", filepath.Join(dir, "back.ply")); err != nil || !strings.Contains(text, "triangles           2") {
		t.Errorf("inspect after round trip: %v\n%s", err, text)
	}
	// Bad input: a clear error, no panic.
	bad := filepath.Join(dir, "bad.obj")
	os.WriteFile(bad, []byte("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n"), 0o644)
	if _, err := run(t, "inspect", bad); err == nil || !strings.Contains(err.Error(), "bad.obj") {
		t.Errorf("NaN vertex: error %v should name the file", err)
	}
	if _, err := run(t, "inspect", filepath.Join(dir, "x.stl")); err == nil {
		t.Error("unknown format: no error")
	}
}

// TestCPUProfile: --cpuprofile writes a pprof profile (gzip) whether the
// command succeeds or fails, and an unwritable path is a clear error.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	obj := filepath.Join(dir, "tri.obj")
	os.WriteFile(obj, []byte("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n"), 0o644)
	for _, tc := range []struct {
		name string
		file string
		fail bool
	}{
		{"ok", obj, false},
		{"failing command", filepath.Join(dir, "missing.obj"), true},
	} {
		prof := filepath.Join(dir, tc.name+".prof")
		_, err := run(t, "--cpuprofile", prof, "inspect", tc.file)
		if (err != nil) != tc.fail {
			t.Fatalf("%s: error %v", tc.name, err)
		}
		b, rerr := os.ReadFile(prof)
		if rerr != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: profile %s not written as gzip (%d bytes, %v)", tc.name, prof, len(b), rerr)
		}
	}
	bad := filepath.Join(dir, "no", "such", "dir", "x.prof")
	if _, err := run(t, "--cpuprofile", bad, "inspect", obj); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("unwritable profile path: error %v should name it", err)
	}
}

func TestInspectBaseOBJ(t *testing.T) {
	dir := assets.Dir()
	if dir == "" {
		t.Skip("PLEAT_ASSETS is unset: skipping the base.obj check")
	}
	text, err := run(t, "inspect", filepath.Join(dir, "makehuman/body/base.obj"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vertices            19158", "triangles           36972", "body ", "helper-tights"} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect base.obj lacks %q", want)
		}
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, c := range newRootCmd().Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Example == "" {
			t.Errorf("pleat %s --help has no example", c.Name())
		}
	}
}

// TestDemo runs the whole pipeline on a small procedural suit (a
// two-sample database, a short elbow bend), checks every output, the glTF
// files with the validator and three.js, and that a second run reads the
// cached database and --rebuild-db builds it again.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a database and simulates a clip")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "elbow.json")
	if err := os.WriteFile(spec, []byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
	 {"role": "left_elbow", "flex": {"min": 0, "max": 90, "step": 90}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "demo")
	args := []string{"demo", "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--spec", spec,
		"--resolution", "700", "--transition", "0.2", "--settle-time", "0.6", "--jobs", "1",
		"--motion", "elbowbend", "--seconds", "0.4", "--coarse-verts", "300"}
	text, err := run(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	var glbs []string
	for _, f := range []string{"reference.glb", "synthesized.glb", "skinning.glb", "flow.glb", "reference.pc2", "reference.obj", "report.html"} {
		st, err := os.Stat(filepath.Join(out, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
		if strings.HasSuffix(f, ".glb") {
			glbs = append(glbs, filepath.Join(out, f))
		}
	}
	for _, want := range []string{"database   building 2 samples", "synthesized+transfer", "wrinkle synthesis", "flow       k =", "pleat serve reference="} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q:\n%s", want, text)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Against the high-resolution reference", "wang2010 Table 1", "Renders", "mean curvature (red convex", "synthesized", "skinning", "Wrinkle flow"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if text, err = run(t, args...); err != nil || !strings.Contains(text, "(cached: 2 samples") {
		t.Errorf("second run did not use the cached database: %v\n%s", err, text)
	}
	if text, err = run(t, append(args, "--rebuild-db")...); err != nil || !strings.Contains(text, "database   building 2 samples") {
		t.Errorf("--rebuild-db did not build the database again: %v\n%s", err, text)
	}
	if _, err := run(t, "demo", "--out", out, "--end", "2", "--body-proxy", "100"); err == nil || !strings.Contains(err.Error(), "--body-proxy") {
		t.Errorf("--body-proxy 100: got %v, want an error naming the flag", err)
	}
	gltfcheck.Check(t, glbs...) // last: it skips the test when the checkers are not installed
}

// TestSimulateScene: `pleat simulate --scene` writes the glb and its PNG
// renders, and refuses outputs it cannot write.
func TestSimulateScene(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sheet.glb")
	text, err := run(t, "simulate", "--scene", "sheet", "--seconds-sim", "0.2", "--renders", "first,last", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "sheet.f*.png"))
	if len(pngs) != 2 {
		t.Errorf("%d renders, want 2:\n%s", len(pngs), text)
	}
	gltfcheck.Check(t, out)
	if text, err := run(t, "simulate", "--scene", "sheet", "--seconds-sim", "0.1", "--out", filepath.Join(dir, "sheet.pc2")); err == nil {
		t.Errorf("a .pc2 output for a test scene was accepted:\n%s", text)
	}
}
