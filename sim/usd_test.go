package sim

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/meshio/usd"
	"github.com/pleat-dev/pleat/scene"
)

// TestWriteUSD writes a short procedural scene (garments skinned, not
// simulated: the writer is under test) as .usdz through Write, reads it
// back and checks that every time sample of the body and the garments
// comes back as the float32 of the frame, and that three.js' USDLoader
// builds each mesh with the triangles written.
func TestWriteUSD(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 4})
	if err != nil {
		t.Fatal(err)
	}
	n := len(s.Clip.Poses)
	res := &Result{FPS: s.Clip.FPS, Frames: make([][][]geom.Vec3, len(s.Garments))}
	var body [][]geom.Vec3
	for f := range n {
		b, gs, err := s.Frame(f, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		body = append(body, b)
		for i := range gs {
			res.Frames[i] = append(res.Frames[i], gs[i])
		}
	}
	for _, g := range s.Garments {
		res.Pieces = append(res.Pieces, &Piece{Name: g.Name, Mesh: g.Mesh})
	}
	path := filepath.Join(t.TempDir(), "walk.usdz")
	files, err := res.Write(path, s)
	if err != nil || len(files) != 1 {
		t.Fatalf("Write: %v %v", files, err)
	}
	st, err := usd.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.FPS != s.Clip.FPS || len(st.Meshes) != 1+len(s.Garments) {
		t.Fatalf("read %d meshes at %g fps, want %d at %g", len(st.Meshes), st.FPS, 1+len(s.Garments), s.Clip.FPS)
	}
	want := append([][][]geom.Vec3{body}, res.Frames...)
	for i, m := range st.Meshes {
		if len(m.Frames) != n || len(m.Normals) != n {
			t.Fatalf("mesh %s: %d frames, %d normal sets, want %d", m.Name, len(m.Frames), len(m.Normals), n)
		}
		for f := range n {
			for v, p := range want[i][f] {
				q := m.Frames[f][v]
				if q.X != float64(float32(p.X)) || q.Y != float64(float32(p.Y)) || q.Z != float64(float32(p.Z)) || math.IsNaN(q.X) {
					t.Fatalf("mesh %s frame %d point %d: %v, want float32 of %v", m.Name, f, v, q, p)
				}
			}
		}
		t.Logf("%s: %d points x %d frames round-trip as float32", m.Name, len(m.Frames[0]), n)
	}
	for _, f := range gltfcheck.LoadUSD(t, path) {
		for i, m := range f.Meshes {
			if m.Triangles != len(st.Meshes[i].Mesh.Tris) {
				t.Errorf("three.js: %s has %d triangles, wrote %d", m.Name, m.Triangles, len(st.Meshes[i].Mesh.Tris))
			}
			t.Logf("three.js: %s: %d triangles, %d distinct positions", m.Name, m.Triangles, m.DistinctPositions)
		}
	}
}
