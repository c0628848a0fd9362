package assets

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoDirectGetenv: the module's tests read the assets folder through
// Dir or Require, never os.Getenv("PLEAT_ASSETS") directly, so that the
// README's relative PLEAT_ASSETS=../shared/assets works from the
// repository root whatever package folder a test runs in.
func TestNoDirectGetenv(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Skip(err)
	}
	direct := `os.Getenv("` + Env + `")`
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == filepath.Join(root, "internal", "assets") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, direct) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d reads %s: use assets.Dir() (github.com/pleat-dev/pleat/internal/assets), which takes a relative path from the module root", rel, i+1, direct)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
