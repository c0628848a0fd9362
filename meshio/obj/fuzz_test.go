package obj

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pleatassets "github.com/pleat-dev/pleat/internal/assets"
)

func FuzzRead(f *testing.F) {
	seeds := []string{
		"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
		"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 1\nvn 0 0 1\ng a\nf 1/1/1 2/2/1 3/1/1 4/2/1\no b\nf -4//1 -2//1 -1//1\n",
		"v 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nf 1 2 3 4 5 6\n",
		"v 1 0 0\r\nv 0 2 0\r\nv -1 0 0\r\nv 0 0.5 \\\r\n0\r\nf 1 2 3 4 # dart\r\n",
		"v 0 0 0\nv 1 0 0\nf 1 2 2\n",
		"v 0 0 nan\n",
		"v 0 0 0\nf 0 1 2\n",
		"v 1e999 0 0\n",
		"f 1 2 3\n",
		"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2/ 3/\n",
		"\\",
		"g\ng x\nv 0 0 0\nv 0 0 0\nv 0 0 0\nf 1 2 3\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	if dir := pleatassets.Dir(); dir != "" {
		if fh, err := os.Open(filepath.Join(dir, "makehuman/body/base.obj")); err == nil {
			// The first 200 lines after the vertices keep the seed small.
			var b strings.Builder
			sc := bufio.NewScanner(fh)
			n := 0
			for sc.Scan() && n < 200 {
				b.WriteString(sc.Text() + "\n")
				n++
			}
			fh.Close()
			b.WriteString("f 1 2 3 4\nf 5 6 7\n")
			f.Add([]byte(b.String()))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ReadDetailed(bytes.NewReader(data), "fuzz.obj", Options{})
		if err != nil {
			if res != nil {
				t.Fatal("result with error")
			}
			return
		}
		m := res.Mesh
		if err := m.Validate(); err != nil {
			t.Fatalf("Read accepted an invalid mesh: %v", err)
		}
		if len(res.FaceOf) != len(m.Tris) || res.NumFaces() < 1 {
			t.Fatalf("bad face map: %d for %d tris", len(res.FaceOf), len(m.Tris))
		}
		if u := res.UnusedVerts(); u < 0 || u >= len(m.Verts) {
			t.Fatalf("%d unused of %d vertices", u, len(m.Verts))
		}
		// What we read, we can write and read back identically.
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Fatalf("Write: %v", err)
		}
		m2, err := Read(&buf, "again.obj")
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if len(m2.Verts) != len(m.Verts) || len(m2.Tris) != len(m.Tris) {
			t.Fatalf("re-read %d/%d, want %d/%d", len(m2.Verts), len(m2.Tris), len(m.Verts), len(m.Tris))
		}
	})
}
