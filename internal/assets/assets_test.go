package assets

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestMain prints, when PLEAT_ASSETS is unset, one line saying how many of
// the module's tests read the real assets and what to set.
//
// `go test ./...` shows the output of a passing package only with -v, so
// the line also goes to the controlling terminal (/dev/tty) when there is
// one: a newcomer running the README's `go test ./...` in a shell sees it
// among the "ok" lines. It does not show in logs without a terminal (CI
// sets PLEAT_ASSETS anyway), nor when go test replays a cached result.
func TestMain(m *testing.M) {
	code := m.Run()
	if os.Getenv(Env) == "" {
		if line := summary(); line != "" {
			fmt.Println(line)
			if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
				fmt.Fprintln(tty, line)
				tty.Close()
			}
		}
	}
	os.Exit(code)
}

// summary returns the skip line, or "" when the module cannot be scanned.
func summary() string {
	root, err := ModuleRoot()
	if err != nil {
		return ""
	}
	byPkg, err := Count(root)
	if err != nil {
		return ""
	}
	delete(byPkg, "internal/assets") // this package's own tests
	n := 0
	for _, ts := range byPkg {
		n += len(ts)
	}
	return fmt.Sprintf("note: %d tests in %d packages need the real assets and skip (or run only their built-in cases): %s is unset; "+
		"run PLEAT_ASSETS=../shared/assets go test ./... from the repository root to include them (README, Real assets)", n, len(byPkg), Env)
}

func TestDir(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ env, want string }{
		{"", ""},
		{"/abs/assets", "/abs/assets"},
		{"../shared/assets", filepath.Join(root, "../shared/assets")},
		{"assets", filepath.Join(root, "assets")},
	} {
		t.Setenv(Env, tc.env)
		if got := Dir(); got != tc.want {
			t.Errorf("%s=%q: Dir %q, want %q", Env, tc.env, got, tc.want)
		}
	}
}

func TestRequire(t *testing.T) {
	t.Setenv(Env, t.TempDir())
	if d := Require(t); !filepath.IsAbs(d) {
		t.Errorf("Require: %q", d)
	}
}

// TestCount checks the scan on a small package: a test that reads the
// variable, one that calls a helper that does, one through assets.Require,
// and one that does neither.
func TestCount(t *testing.T) {
	dir := t.TempDir()
	src := `package x
import ("os"; "testing"; "example/internal/assets")
func fixture(t *testing.T) string { return os.Getenv("PLEAT_ASSETS") }
func TestDirect(t *testing.T) { _ = os.Getenv("PLEAT_ASSETS") }
func TestHelper(t *testing.T) { _ = fixture(t) }
func TestRequire(t *testing.T) { _ = assets.Require(t) }
func TestNone(t *testing.T) {}
func FuzzSeeds(f *testing.F) { _ = fixture(nil) }
`
	if err := os.MkdirAll(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x", "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	aliased := `package x
import ("testing"; pa "example/internal/assets")
func TestAliased(t *testing.T) { _ = pa.Dir() }
func TestOther(t *testing.T) { _ = assets.Dir() }
`
	if err := os.WriteFile(filepath.Join(dir, "x", "y_test.go"), []byte(aliased), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Count(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got["x"], " ") != "TestAliased TestDirect TestHelper TestRequire" || len(got) != 1 {
		t.Errorf("Count: %v", got)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	all, err := Count(root)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	n := 0
	for p, ts := range all {
		pkgs = append(pkgs, fmt.Sprintf("%s (%d)", p, len(ts)))
		n += len(ts)
	}
	sort.Strings(pkgs)
	t.Logf("%d asset tests: %s", n, strings.Join(pkgs, ", "))
}
