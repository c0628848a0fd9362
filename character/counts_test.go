package character

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVertCountMismatch: a base mesh with fewer vertices than the rig and
// weights index (the last 200 dropped, with their faces, so no vertex is
// unused) is refused naming both counts, not with an index error deep in
// the weights.
func TestVertCountMismatch(t *testing.T) {
	dir := mhDir(t)
	opt, err := FindMakeHuman(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "body/base.obj"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	nv := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "v ") {
			nv++
		}
	}
	keep := nv - 200
	var out []string
	k := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "v ") {
			if k++; k > keep {
				continue
			}
		}
		if strings.HasPrefix(l, "f ") {
			bad := false
			for _, f := range strings.Fields(l)[1:] {
				var i int
				fmt.Sscan(strings.Split(f, "/")[0], &i)
				bad = bad || i > keep
			}
			if bad {
				continue
			}
		}
		out = append(out, l)
	}
	p := filepath.Join(t.TempDir(), "base.obj")
	if err := os.WriteFile(p, []byte(strings.Join(out, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	opt.BaseOBJ = p
	_, err = LoadMakeHuman(opt)
	want := fmt.Sprintf("base.obj has %d vertices but the", keep)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "index") {
		t.Fatalf("error %v, want %q and the file's count", err, want)
	}
	t.Log(err)
}
