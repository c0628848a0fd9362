package usd

import (
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/meshio/obj"
)

// TestAssetsRoundTrip writes the MakeHuman body and the casual suit (real
// OBJ files with per-corner UVs, in metres) for three frames as .usdz,
// reads it back bit for bit and loads it in three.js.
func TestAssetsRoundTrip(t *testing.T) {
	dir := assets.Require(t)
	var st Stage
	st.FPS = 30
	for _, p := range []string{"makehuman/body/base.obj", "makehuman/clothes/male_casualsuit02/male_casualsuit02.obj"} {
		m, err := obj.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		frames := make([][]geom.Vec3, 3)
		for f := range frames {
			frames[f] = make([]geom.Vec3, len(m.Verts))
			for v, x := range m.Verts {
				frames[f][v] = x.Scale(0.1).Add(geom.Vec3{Z: 0.05 * float64(f)})
			}
		}
		st.Meshes = append(st.Meshes, Mesh{Name: filepath.Base(p), Mesh: m, Frames: frames, Normals: VertexNormals(m, frames), DoubleSided: len(st.Meshes) > 0})
	}
	path := filepath.Join(t.TempDir(), "makehuman.usdz")
	if err := WriteFile(path, &st); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, &st, out)
	for _, f := range gltfcheck.LoadUSD(t, path) {
		checkThreeJS(t, f, &st)
	}
}
