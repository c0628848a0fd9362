package viewer

import (
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/usd"
)

// TestLoadUSD plays a .usdz of two meshes, one with fewer samples (it
// holds its last one) and one static.
func TestLoadUSD(t *testing.T) {
	cloth := mesh.Grid(1, 1, 4, 4)
	ball := mesh.UVSphere(0.2, 6, 8)
	var frames [][]geom.Vec3
	for f := range 5 {
		x := make([]geom.Vec3, len(cloth.Verts))
		for v, p := range cloth.Verts {
			x[v] = p.Add(geom.Vec3{Y: 0.125 * float64(f)})
		}
		frames = append(frames, x)
	}
	path := filepath.Join(t.TempDir(), "anim.usdz")
	st := &usd.Stage{FPS: 24, Meshes: []usd.Mesh{
		{Name: "cloth", Mesh: cloth, Frames: frames},
		{Name: "cloth short", Mesh: cloth, Frames: frames[:2]},
		{Name: "ball", Mesh: ball},
	}}
	if err := usd.WriteFile(path, st); err != nil {
		t.Fatal(err)
	}
	a, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != KindUSD || a.NumFrames != 5 || a.FPS != 24 || len(a.Meshes) != 3 || a.Names[1] != "cloth short" {
		t.Fatalf("kind %s, %d frames at %g fps, %d meshes %v", a.Kind, a.NumFrames, a.FPS, len(a.Meshes), a.Names)
	}
	fr, err := a.Frame(4)
	if err != nil {
		t.Fatal(err)
	}
	if fr[0][0] != frames[4][0] || fr[1][0] != frames[1][0] || len(fr[2]) != len(ball.Verts) {
		t.Errorf("frame 4: %v %v %d", fr[0][0], fr[1][0], len(fr[2]))
	}
}
