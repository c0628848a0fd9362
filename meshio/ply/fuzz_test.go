package ply

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/mesh"
)

func FuzzRead(f *testing.F) {
	f.Add([]byte(quadASCII))
	f.Add([]byte("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"))
	f.Add([]byte("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"))
	f.Add([]byte("ply\nformat ascii 1.0\nelement vertex 1\nproperty half x\nend_header\n"))
	f.Add(bin(binary.BigEndian, "ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\nelement face 1\nproperty list uchar ushort vertex_index\nend_header\n",
		[]float64{0, 0, 0, 1, 0, 0, 0, 1, 0}, uint8(3), []uint16{0, 1, 2}))
	f.Add(bin(binary.LittleEndian, "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nend_header\n", float32(1)))
	for _, opt := range []WriteOptions{{}, {Binary: true}} {
		var buf bytes.Buffer
		if err := WriteWith(&buf, testMesh(), opt); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	if dir := assets.Dir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.ply"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data), "fuzz.ply")
		if err != nil {
			if m != nil {
				t.Fatal("mesh with error")
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Read accepted an invalid mesh: %v", err)
		}
		checkRewrite(t, m)
	})
}

// checkRewrite writes m in double binary and reads it back unchanged.
func checkRewrite(t *testing.T, m *mesh.Mesh) {
	var buf bytes.Buffer
	if err := WriteWith(&buf, m, WriteOptions{Binary: true, Double: true}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	m2, err := Read(&buf, "again.ply")
	if err != nil {
		t.Fatalf("re-read: %v", err)
	}
	if len(m2.Verts) != len(m.Verts) || len(m2.Tris) != len(m.Tris) {
		t.Fatalf("re-read %d/%d, want %d/%d", len(m2.Verts), len(m2.Tris), len(m.Verts), len(m.Tris))
	}
}
