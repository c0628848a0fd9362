package layers

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pleat-dev/pleat"

// simulator is the simulator side: scene (loading, arm clearance), sim,
// collide and cloth, with any subpackages.
var simulator = []string{"scene", "sim", "collide", "cloth"}

// codecs are the packages that must not depend on the simulator, with any
// subpackages: format code and glTF playback (meshio/...), the viewer and
// wrinkle-flow compression. They write and play glTF through
// meshio/gltfio/anim.
var codecs = []string{"meshio", "viewer", "flow"}

// TestCodecsDoNotImportSimulator walks the non-test imports of every codec
// package (go/build, for this platform) and fails with the import chain
// when one reaches a simulator package.
func TestCodecsDoNotImportSimulator(t *testing.T) {
	root := moduleRoot(t)
	var pkgs []string
	for _, c := range codecs {
		pkgs = append(pkgs, packagesUnder(t, root, c)...)
	}
	if len(pkgs) < len(codecs) {
		t.Fatalf("found only %v under %s", pkgs, root)
	}
	imports := map[string][]string{} // module-relative path -> its module imports
	for _, p := range pkgs {
		if chain := find(t, root, p, imports, map[string]bool{}); chain != nil {
			t.Errorf("%s imports the simulator: %s", p, strings.Join(chain, " -> "))
		}
	}
	t.Logf("checked %d packages: %s", len(pkgs), strings.Join(pkgs, " "))
}

// find returns the import chain from pkg to the first simulator package it
// reaches, or nil.
func find(t *testing.T, root, pkg string, imports map[string][]string, seen map[string]bool) []string {
	if isSimulator(pkg) {
		return []string{pkg}
	}
	if seen[pkg] {
		return nil
	}
	seen[pkg] = true
	deps, ok := imports[pkg]
	if !ok {
		bp, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(pkg)), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range bp.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				deps = append(deps, rel)
			}
		}
		imports[pkg] = deps
	}
	for _, d := range deps {
		if chain := find(t, root, d, imports, seen); chain != nil {
			return append([]string{pkg}, chain...)
		}
	}
	return nil
}

func isSimulator(pkg string) bool {
	return slices.ContainsFunc(simulator, func(s string) bool {
		return pkg == s || strings.HasPrefix(pkg, s+"/")
	})
}

// packagesUnder lists the module-relative paths of the directories under
// dir (itself included) that hold a non-test Go package, skipping testdata.
func packagesUnder(t *testing.T, root, dir string) []string {
	var out []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return filepath.SkipDir
		}
		if _, err := build.ImportDir(path, 0); err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// moduleRoot returns the folder holding go.mod, searching up from the
// test's working directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's folder")
		}
		dir = parent
	}
}
