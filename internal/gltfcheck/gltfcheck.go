// Package gltfcheck lets Go tests run the project's JavaScript glTF checks
// (Khronos' glTF validator and three.js' GLTFLoader, see tools/gltfcheck) on
// the files they write. The checks need Node.js and `npm ci` in
// tools/gltfcheck; without them a test is skipped with a message, unless the
// environment variable PLEAT_REQUIRE_GLTFCHECK=1 (set by CI) makes that a
// failure.
package gltfcheck

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RepoRoot returns the repository root (the folder holding go.mod) found by
// walking up from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("gltfcheck: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Available reports whether node and the installed checker are present; the
// string says what is missing when they are not.
func Available() (string, bool) {
	root, err := RepoRoot()
	if err != nil {
		return err.Error(), false
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not installed", false
	}
	if _, err := os.Stat(filepath.Join(root, "tools", "gltfcheck", "node_modules", "gltf-validator")); err != nil {
		return "run `npm ci` in tools/gltfcheck to install the glTF validator and three.js", false
	}
	return "", true
}

// Check runs the validator and the three.js loader on the given glTF/GLB
// files and fails t on any validator error or loading failure. Extra
// arguments to the checker (such as --expect-skin) may precede the paths.
func Check(t testing.TB, args ...string) {
	t.Helper()
	if why, ok := Available(); !ok {
		if os.Getenv("PLEAT_REQUIRE_GLTFCHECK") == "1" {
			t.Fatalf("glTF checks required but unavailable: %s", why)
		}
		t.Skipf("glTF checks skipped: %s", why)
	}
	root, _ := RepoRoot()
	cmd := exec.Command("node", append([]string{filepath.Join(root, "tools", "gltfcheck", "check.mjs")}, args...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("gltfcheck:\n%s", out)
	if err != nil {
		t.Fatalf("glTF check failed: %v", err)
	}
}
