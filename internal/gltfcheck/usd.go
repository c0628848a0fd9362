package gltfcheck

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// USDMesh is what three.js' USDLoader built for one mesh prim.
type USDMesh struct {
	Name              string
	Triangles         int
	Positions         int
	Indexed           bool
	DistinctPositions int
	UVs               int
	Normals           int
	Min, Max          [3]float64
}

// USDFile is the loader's result for one file.
type USDFile struct {
	File   string
	OK     bool
	Error  string
	Meshes []USDMesh
	// USDZLoader lists name:triangles:distinct positions of the meshes
	// three.js' USDZLoader built (.usdz files only).
	USDZLoader string
}

// LoadUSD loads .usda/.usdz files with three.js' USDLoader in Node
// (tools/gltfcheck/usdcheck.mjs) and returns what it built. It skips t
// when Node or the npm packages are missing (fails instead when
// PLEAT_REQUIRE_GLTFCHECK=1), and fails t when a file does not load.
func LoadUSD(t testing.TB, files ...string) []USDFile {
	t.Helper()
	if why, ok := Available(); !ok {
		if os.Getenv("PLEAT_REQUIRE_GLTFCHECK") == "1" {
			t.Fatalf("three.js USD check required but unavailable: %s", why)
		}
		t.Skipf("three.js USD check skipped: %s", why)
	}
	root, _ := RepoRoot()
	cmd := exec.Command("node", append([]string{filepath.Join(root, "tools", "gltfcheck", "usdcheck.mjs")}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("usdcheck stderr:\n%s", stderr.Bytes())
	}
	var out []USDFile
	if jerr := json.Unmarshal(stdout.Bytes(), &out); jerr != nil {
		t.Fatalf("usdcheck: %v (exit %v); stdout:\n%s", jerr, err, stdout.Bytes())
	}
	for _, f := range out {
		if !f.OK {
			t.Errorf("three.js USDLoader: %s: %s", f.File, f.Error)
		}
	}
	if err != nil && !t.Failed() {
		t.Fatalf("usdcheck: %v", err)
	}
	return out
}
