package meshio

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/mesh"
)

// f32 rounds to float32 precision, the precision of glTF, PLY and PC2 data.
func f32(x float64) float64 { return float64(float32(x)) }

func sameVec32(a, b geom.Vec3) bool {
	return f32(a.X) == f32(b.X) && f32(a.Y) == f32(b.Y) && f32(a.Z) == f32(b.Z)
}

// testMeshes returns a generated mesh with UVs and seams and, when
// PLEAT_ASSETS is set, MakeHuman's base.obj (quads, groups, many seams).
func testMeshes(t *testing.T) map[string]*mesh.Mesh {
	ms := map[string]*mesh.Mesh{"sphere": mesh.UVSphere(0.3, 24, 48)}
	if dir := assets.Dir(); dir != "" {
		m, err := Load(filepath.Join(dir, "makehuman/body/base.obj"), Options{Scale: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		ms["base.obj"] = m
	} else {
		t.Log("PLEAT_ASSETS unset: round trips run on generated meshes only")
	}
	return ms
}

// TestRoundTrips writes each mesh as OBJ, glTF (.glb and .gltf) and PLY,
// reads it back and requires the same vertices (to float32 precision), the
// same triangles in the same order, and the same UV at every triangle corner.
func TestRoundTrips(t *testing.T) {
	for name, m := range testMeshes(t) {
		for _, ext := range []string{".obj", ".glb", ".gltf", ".ply"} {
			t.Run(name+ext, func(t *testing.T) {
				// OBJ → format → OBJ: the chain of the issue.
				dir := t.TempDir()
				p := filepath.Join(dir, "m"+ext)
				if err := Save(p, m); err != nil {
					t.Fatal(err)
				}
				back, err := Load(p, Options{})
				if err != nil {
					t.Fatal(err)
				}
				p2 := filepath.Join(dir, "back.obj")
				if err := Save(p2, back); err != nil {
					t.Fatal(err)
				}
				back, err = Load(p2, Options{})
				if err != nil {
					t.Fatal(err)
				}
				compareMeshes(t, m, back, ext != ".ply")
			})
		}
	}
}

func near32(a, b float64) bool {
	return math.Abs(a-b) <= 0x1p-23*math.Max(1, math.Abs(a))
}

func compareMeshes(t *testing.T, a, b *mesh.Mesh, uvs bool) {
	t.Helper()
	if len(a.Verts) != len(b.Verts) || len(a.Tris) != len(b.Tris) {
		t.Fatalf("sizes: %d v %d t, want %d v %d t", len(b.Verts), len(b.Tris), len(a.Verts), len(a.Tris))
	}
	for i := range a.Verts {
		if !sameVec32(a.Verts[i], b.Verts[i]) {
			t.Fatalf("vertex %d: %v, want %v", i, b.Verts[i], a.Verts[i])
		}
	}
	// Triangles may come back in another order (writers group them); match
	// them by their vertex triple.
	idx := map[[3]int32]int{}
	for i, tr := range b.Tris {
		idx[tr] = i
	}
	for i, tr := range a.Tris {
		j, ok := idx[tr]
		if !ok {
			t.Fatalf("triangle %d %v missing", i, tr)
		}
		if !uvs || !a.HasUVs() {
			continue
		}
		if !b.HasUVs() {
			t.Fatal("UVs lost")
		}
		for c := 0; c < 3; c++ {
			ua, ub := a.UVs[a.UVTris[i][c]], b.UVs[b.UVTris[j][c]]
			// glTF stores V flipped (1−v), so allow one float32 ulp at 1.
			if !near32(ua.X, ub.X) || !near32(ua.Y, ub.Y) {
				t.Fatalf("triangle %d corner %d uv %v, want %v", i, c, ub, ua)
			}
		}
	}
}

func TestFormatOf(t *testing.T) {
	tests := []struct {
		path string
		want Format
		ok   bool
	}{
		{"a.OBJ", OBJ, true}, {"b.ply", PLY, true}, {"c.glb", GLB, true},
		{"d.gltf", GLTF, true}, {"e.pc2", PC2, true}, {"f.stl", "", false}, {"noext", "", false},
	}
	for _, tc := range tests {
		got, err := FormatOf(tc.path)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("FormatOf(%q) = %q, %v", tc.path, got, err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.obj")
	if err := os.WriteFile(bad, []byte("v 0 0 0\nv 1 0 0\nf 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad, Options{}); err == nil {
		t.Error("index out of range: no error")
	}
	if _, err := Load(filepath.Join(dir, "missing.ply"), Options{}); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := Load(filepath.Join(dir, "x.pc2"), Options{}); err == nil {
		t.Error("pc2 as mesh: no error")
	}
}
