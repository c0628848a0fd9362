package usd

import (
	"testing"

	"github.com/pleat-dev/pleat/internal/gltfcheck"
)

// checkThreeJS compares what three.js built from a file with the stage
// written: one mesh per prim, by prim name, with the same triangles, as
// many distinct positions as the first sample has distinct float32 points
// (three.js shows time code 0, or the first sample), and the same
// bounding box.
func checkThreeJS(t *testing.T, f gltfcheck.USDFile, s *Stage) {
	t.Helper()
	names := primNames(s.Meshes)
	if len(f.Meshes) != len(s.Meshes) {
		t.Fatalf("%s: three.js built %d meshes, want %d", f.File, len(f.Meshes), len(s.Meshes))
	}
	if f.USDZLoader != "" {
		t.Logf("%s: USDZLoader built %s", f.File, f.USDZLoader)
	}
	for i, m := range s.Meshes {
		g := f.Meshes[i]
		x := m.points(0)
		distinct := map[[3]float32]bool{}
		var lo, hi [3]float32
		for v, p := range x {
			q := [3]float32{float32(p.X), float32(p.Y), float32(p.Z)}
			distinct[q] = true
			for k := range q {
				if v == 0 || q[k] < lo[k] {
					lo[k] = q[k]
				}
				if v == 0 || q[k] > hi[k] {
					hi[k] = q[k]
				}
			}
		}
		ok := g.Name == names[i] && g.Triangles == len(m.Mesh.Tris) && g.DistinctPositions == len(distinct) &&
			(g.Positions == len(x) || g.Positions == 3*len(m.Mesh.Tris))
		for k := range 3 {
			ok = ok && float32(g.Min[k]) == lo[k] && float32(g.Max[k]) == hi[k]
		}
		if !ok {
			t.Errorf("%s mesh %d: three.js %+v; wrote %q with %d triangles, %d points (%d distinct), box %v..%v",
				f.File, i, g, names[i], len(m.Mesh.Tris), len(x), len(distinct), lo, hi)
			continue
		}
		t.Logf("%s: three.js built %q: %d triangles, %d positions (%d distinct = points written), %d UVs, %d normals",
			f.File, g.Name, g.Triangles, g.Positions, g.DistinctPositions, g.UVs, g.Normals)
	}
}
