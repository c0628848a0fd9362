package viewer

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/meshio/pc2"
)

func TestLoadKinds(t *testing.T) {
	fx := makeFixtures(t)
	for _, tc := range []struct {
		path    string
		kind    Kind
		frames  int
		meshes  int
		skinned bool
	}{
		{fx.glb, KindGLTF, 61, 3, true},
		{fx.seq, KindOBJSequence, fx.frames, 1, false},
		{fx.pc2, KindPC2, fx.frames, 1, false},
		{fx.ply, KindMesh, 1, 1, false},
	} {
		a, err := Load(tc.path, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if a.Kind != tc.kind || a.NumFrames != tc.frames || len(a.Meshes) != tc.meshes || len(a.Names) != tc.meshes || a.Skinned != tc.skinned {
			t.Errorf("%s: kind %s frames %d meshes %d skinned %v; want %s %d %d %v",
				tc.path, a.Kind, a.NumFrames, len(a.Meshes), a.Skinned, tc.kind, tc.frames, tc.meshes, tc.skinned)
		}
		for _, f := range []int{0, a.NumFrames - 1} {
			_, ms, fr, err := a.FrameTopology(f)
			if err != nil {
				t.Fatalf("%s frame %d: %v", tc.path, f, err)
			}
			for i, v := range fr {
				if len(v) != len(ms[i].Verts) {
					t.Errorf("%s frame %d mesh %d: %d positions, want %d", tc.path, f, i, len(v), len(ms[i].Verts))
				}
			}
		}
		if _, err := a.Frame(a.NumFrames); !errors.Is(err, ErrFrame) {
			t.Errorf("%s: Frame(NumFrames) error %v, want ErrFrame", tc.path, err)
		}
		if _, err := a.Frame(-1); !errors.Is(err, ErrFrame) {
			t.Errorf("%s: Frame(-1) error %v, want ErrFrame", tc.path, err)
		}
		b, span, err := a.Bounds()
		if sz := b.Size(); err != nil || !(sz.Y > 0) || span.X > sz.X || span.Y > sz.Y || span.Z > sz.Z || !(span.Y > 0) {
			t.Errorf("%s: bounds %v, span %v, %v", tc.path, b, span, err)
		}
	}
	// The OBJ sequence and PC2 frames are what was written.
	a, err := Load(fx.pc2, LoadOptions{FPS: 24})
	if err != nil {
		t.Fatal(err)
	}
	c, err := pc2.ReadFile(fx.pc2)
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := a.Frame(5)
	if fr[0][10] != c.Frames[5][10] || a.FPS != 24 {
		t.Errorf("PC2 frame 5 vertex 10 = %v, want %v; fps %v want 24", fr[0][10], c.Frames[5][10], a.FPS)
	}
}

func TestLoadErrors(t *testing.T) {
	fx := makeFixtures(t)
	dir := t.TempDir()
	// A PC2 cache with no mesh beside it.
	lone := filepath.Join(dir, "lone.pc2")
	data, err := os.ReadFile(fx.pc2)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A PC2 cache with a mesh of the wrong size.
	small := filepath.Join(dir, "small.obj")
	if err := meshio.Save(small, mesh.UVSphere(1, 4, 8)); err != nil {
		t.Fatal(err)
	}
	// An OBJ sequence whose second frame is not an OBJ.
	seq := filepath.Join(dir, "seq")
	os.Mkdir(seq, 0o755)
	meshio.Save(filepath.Join(seq, "a.obj"), mesh.UVSphere(1, 4, 8))
	os.WriteFile(filepath.Join(seq, "b.obj"), []byte("v 0 0 0\nf 1 2 9\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)

	for _, tc := range []struct {
		path string
		opt  LoadOptions
	}{
		{lone, LoadOptions{}},
		{lone, LoadOptions{Mesh: small}},
		{empty, LoadOptions{}},
		{filepath.Join(dir, "missing.glb"), LoadOptions{}},
		{fx.glb, LoadOptions{FPS: -1}},
	} {
		if _, err := Load(tc.path, tc.opt); err == nil {
			t.Errorf("Load(%s, %+v): no error", tc.path, tc.opt)
		}
	}
	a, err := Load(lone, LoadOptions{Mesh: filepath.Join(fx.dir, "shirt.obj")})
	if err != nil {
		t.Fatalf("PC2 with an explicit mesh: %v", err)
	}
	if a.NumFrames != fx.frames {
		t.Errorf("%d frames", a.NumFrames)
	}
	b, err := Load(seq, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Frame(1); err == nil {
		t.Error("broken OBJ frame: no error")
	}
}
