package sim

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/meshio/pc2"
	"github.com/pleat-dev/pleat/scene"
)

// maxEdgeStrains returns, per frame, the largest edge elongation strain
// l/L − 1 over the edges of rest's triangles, with rest lengths L from
// rest's vertices and lengths l from the frame's positions.
func maxEdgeStrains(rest *mesh.Mesh, frames [][]geom.Vec3) []float64 {
	type edge struct{ a, b int32 }
	seen := map[edge]bool{}
	var edges []edge
	for _, t := range rest.Tris {
		for k := range 3 {
			e := edge{t[k], t[(k+1)%3]}
			if e.a > e.b {
				e.a, e.b = e.b, e.a
			}
			if !seen[e] {
				seen[e] = true
				edges = append(edges, e)
			}
		}
	}
	out := make([]float64, len(frames))
	for f, x := range frames {
		worst := math.Inf(-1)
		for _, e := range edges {
			s := x[e.a].Dist(x[e.b])/rest.Verts[e.a].Dist(rest.Verts[e.b]) - 1
			worst = math.Max(worst, s)
		}
		out[f] = worst
	}
	return out
}

// sink moves every garment vertex depth metres inward along its vertex
// normal, so that the garments start partly inside the body and the solver
// pushes them out before taking their rest shape.
func sink(s *scene.Scene, depth float64) {
	for i, g := range s.Garments {
		sunk := *g
		m := *g.Mesh
		n := mesh.VertexNormals(&m, nil)
		m.Verts = make([]geom.Vec3, len(n))
		for v := range n {
			m.Verts[v] = g.Mesh.Verts[v].AddScaled(-depth, n[v])
		}
		sunk.Mesh = &m
		s.Garments[i] = &sunk
	}
}

// TestStrainFromFiles simulates a short procedural scene, writes it as a
// .pc2 with its .obj mesh, reads both back and recomputes each frame's
// largest edge strain from them alone: it must match the reported
// FrameStats.MaxStretch within 0.5 percentage points (the .pc2 stores
// float32). The garments start 8 mm inside the body, so the rest shape
// (after the solver's push-out) differs from the garment mesh, as on the
// MakeHuman suits; the strain measured against the garment mesh (Merged)
// must not match, or the scene no longer tests the rest shape.
func TestStrainFromFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		weft bool
	}{{"massspring", false}, {"weftwarp", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scene.Load(scene.Spec{Resolution: 700, End: 8})
			if err != nil {
				t.Fatal(err)
			}
			sink(s, 0.008)
			opt := Options{}
			if tc.weft {
				opt.Model, opt.ModelSet = cloth.WeftWarp, true
			}
			res, err := Run(context.Background(), s, opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "garments.pc2")
			files, err := res.Write(path, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 2 {
				t.Fatalf("wrote %v, want the .pc2 and its .obj", files)
			}
			cache, err := pc2.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			rest, err := obj.ReadFile(files[1])
			if err != nil {
				t.Fatal(err)
			}
			if len(rest.Verts) != cache.NumPoints || len(cache.Frames) != len(res.Stats) {
				t.Fatalf("files: %d rest vertices, %d points x %d frames; run: %d frames", len(rest.Verts), cache.NumPoints, len(cache.Frames), len(res.Stats))
			}
			got := maxEdgeStrains(rest, cache.Frames)
			before, _ := res.Merged()
			old := maxEdgeStrains(before, cache.Frames)
			worst, oldWorst, reported := 0.0, 0.0, 0.0
			for f, st := range res.Stats {
				d := math.Abs(got[f] - st.MaxStretch)
				if d > 0.005 {
					t.Errorf("frame %d: max strain from the files %.2f %%, reported %.2f %%", f, 100*got[f], 100*st.MaxStretch)
				}
				worst = math.Max(worst, d)
				oldWorst = math.Max(oldWorst, math.Abs(old[f]-st.MaxStretch))
				reported = math.Max(reported, st.MaxStretch)
			}
			if oldWorst < 0.01 {
				t.Errorf("strains against the garment mesh within %.2f points of the reported: the push-out left the rest shape unchanged", 100*oldWorst)
			}
			t.Logf("max strain over %d frames: reported %.2f %%; from the written files within %.4f points of it per frame (against the garment mesh: within %.2f points)",
				len(res.Stats), 100*reported, 100*worst, 100*oldWorst)
		})
	}
}
