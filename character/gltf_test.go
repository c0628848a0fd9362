package character

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
)

// TestLoadGLTF writes a small skinned character (a 1 m tall strip bent by a
// three-joint chain whose parents are listed after their children) with
// gltfio and loads it back.
func TestLoadGLTF(t *testing.T) {
	m := mesh.Grid(0.2, 1, 2, 4) // XY plane, y in [0, 1]
	box := m.Bounds()
	// glTF joint order: 0 tip, 1 mid, 2 root (children first).
	rest := func(y float64) geom.Rigid { return geom.Rigid{R: geom.QuatIdentity(), T: geom.Vec3{Y: y}} }
	sk := &gltfio.Skeleton{Joints: []gltfio.Joint{
		{Name: "tip", Parent: 1, Rest: rest(0.4)},
		{Name: "mid", Parent: 2, Rest: rest(0.4)},
		{Name: "root", Parent: -1, Rest: rest(0.1)},
	}}
	infl := make([][]gltfio.Influence, len(m.Verts))
	for i, v := range m.Verts {
		h := (v.Y - box.Min.Y) / (box.Max.Y - box.Min.Y)
		switch {
		case h < 0.4:
			infl[i] = []gltfio.Influence{{Joint: 2, Weight: 2}} // unnormalised on purpose
		case h < 0.8:
			infl[i] = []gltfio.Influence{{Joint: 1, Weight: 0.5}, {Joint: 2, Weight: 0.5}}
		default:
			infl[i] = []gltfio.Influence{{Joint: 0, Weight: 0.75}, {Joint: 1, Weight: 0.25}}
		}
	}
	scene := &gltfio.Scene{
		Meshes:   []gltfio.Mesh{{Name: "strip", Mesh: m, Skin: &gltfio.Skin{Influences: infl}}},
		Skeleton: sk,
	}
	path := filepath.Join(t.TempDir(), "strip.glb")
	if err := gltfio.WriteFile(path, scene); err != nil {
		t.Fatal(err)
	}
	c, err := LoadGLTF(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "strip" || len(c.Body.Verts) != len(m.Verts) {
		t.Fatalf("loaded %q with %d verts", c.Name, len(c.Body.Verts))
	}
	s := c.Skeleton
	if s.NumJoints() != 3 || s.Joint(0).Name != "root" || s.Joint(1).Name != "mid" || s.Joint(2).Name != "tip" {
		t.Fatalf("joint order %v %v %v", s.Joint(0).Name, s.Joint(1).Name, s.Joint(2).Name)
	}
	world := s.RestWorld()
	for j, y := range []float64{0.1, 0.5, 0.9} {
		if d := world[j].T.Sub(geom.Vec3{Y: y}).Len(); d > 1e-6 {
			t.Errorf("joint %s at %v, want y=%v", s.Joint(j).Name, world[j].T, y)
		}
	}
	if err := c.Weights.Validate(3); err != nil {
		t.Fatal(err)
	}
	// Check weights by vertex height (the reader may renumber vertices).
	for v, p := range c.Body.Verts {
		h := (p.Y - box.Min.Y) / (box.Max.Y - box.Min.Y)
		js, ws := c.Weights.Influences(v)
		var want map[int32]float64
		switch {
		case h < 0.4:
			want = map[int32]float64{0: 1}
		case h < 0.8:
			want = map[int32]float64{0: 0.5, 1: 0.5}
		default:
			want = map[int32]float64{2: 0.75, 1: 0.25}
		}
		if len(js) != len(want) {
			t.Fatalf("vertex %d (h %.2f): joints %v weights %v, want %v", v, h, js, ws, want)
		}
		for k, j := range js {
			if math.Abs(float64(ws[k])-want[j]) > 1e-6 {
				t.Fatalf("vertex %d: joints %v weights %v, want %v", v, js, ws, want)
			}
		}
	}
}

func TestFromGLTFNoSkin(t *testing.T) {
	s := &gltfio.Scene{Meshes: []gltfio.Mesh{{Mesh: mesh.Grid(1, 1, 1, 1)}}}
	if _, err := FromGLTF(s); !errors.Is(err, ErrNoSkin) {
		t.Errorf("err %v, want ErrNoSkin", err)
	}
}
