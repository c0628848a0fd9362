// Package assets locates the shared real assets (MakeHuman bodies and
// garments, CMU mocap) for tests and benchmarks.
//
// The folder is named by the environment variable PLEAT_ASSETS. A relative
// value is taken from the module root (the folder holding go.mod), not from
// the package folder a test runs in, so that
//
//	PLEAT_ASSETS=../shared/assets go test ./...
//
// works from the repository root. The module's tests read the variable
// only through Dir (a drop-in for os.Getenv("PLEAT_ASSETS")) or Require
// (which skips a test with one message when the variable is unset);
// TestNoDirectGetenv keeps it so. Count finds the module's tests that
// read the assets, for the summary line the package's own test prints.
package assets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Env is the environment variable naming the assets folder.
const Env = "PLEAT_ASSETS"

// SkipMessage is why a test that needs the assets skips.
const SkipMessage = Env + " is unset: this test needs the real assets (MakeHuman, CMU mocap); " +
	"set it to the assets folder, e.g. PLEAT_ASSETS=../shared/assets go test ./... from the repository root (see README, Real assets)"

// ModuleRoot returns the folder holding go.mod, walking up from the
// working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("assets: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Dir returns the assets folder: $PLEAT_ASSETS, a relative value joined to
// the module root (kept as given when no go.mod is found); "" when unset.
// It is a drop-in for os.Getenv("PLEAT_ASSETS") in tests.
func Dir() string {
	d := os.Getenv(Env)
	if d == "" || filepath.IsAbs(d) {
		return d
	}
	root, err := ModuleRoot()
	if err != nil {
		return d
	}
	return filepath.Join(root, d)
}

// Require returns the assets folder, skipping t with SkipMessage when
// PLEAT_ASSETS is unset and failing it when the folder does not exist.
func Require(t testing.TB) string {
	t.Helper()
	d := Dir()
	if d == "" {
		t.Skip(SkipMessage)
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		t.Fatalf("%s=%s: not a folder (%v)", Env, os.Getenv(Env), err)
	}
	return d
}
