package layers

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// measureShow is Compare's show-through of r's frames alone.
func measureShow(s *scene.Scene, r *Result) ShowThrough {
	a := r.Animator
	cov, bvh := showCover(s.Character.Body, a.outfit)
	dom := dominantJoints(s.Character)
	m := &showMeter{bvh: bvh, part: make([]int, s.Character.Skeleton.NumJoints())}
	bm := &mesh.Mesh{Tris: s.Character.Body.Tris}
	var skin []geom.Rigid
	var bn []geom.Vec3
	for f, fr := range r.Frames {
		skin = skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[f], skin)
		bm.Verts = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, bm.Verts)
		bn = mesh.VertexNormals(bm, bn)
		m.add(cov, bm.Verts, bn, fr, dom)
	}
	return m.result(len(cov))
}

// TestSkinDoesNotShowThrough animates the MakeHuman outfits through the
// CMU walk and kick and counts the body vertex-frames whose skin stands
// more than 2 mm in front of the cloth face that covered it at rest
// (ShowThrough). The full simulation of the same scenes (pleat realtime
// --compare's settings) shows 0.006 %, 0.070 %, 0.001 % and 0.015 %;
// the layers, with every vertex kept only the thickness out of the skin,
// showed 0.194 %, 0.319 %, 0.048 % and 0.220 % (the skirt's 5-8 cm faces
// sagging into the thighs, the blouse's over the breasts). The sag
// clearance, the rest floor and the face push bring them to 0.001 %,
// 0.010 %, 0 % and 0.004 %; each must stay at most the simulation's.
func TestSkinDoesNotShowThrough(t *testing.T) {
	for _, c := range []struct {
		garment, motion string
		most            float64 // the full simulation's fraction
	}{
		{"female_elegantsuit01", "02_01_walk", 0.00006},
		{"female_elegantsuit01", "11_01_soccer_kick", 0.0007},
		{"male_casualsuit02", "02_01_walk", 0.00001},
		{"male_casualsuit02", "11_01_soccer_kick", 0.00015},
	} {
		t.Run(c.garment+"/"+c.motion, func(t *testing.T) {
			s, r, _ := runMakeHuman(t, c.garment, c.motion)
			st := measureShow(s, r)
			t.Logf("skin through the cloth, %d covered body vertices: %d vertex-frames > 2 mm (%.4f %%), %d at any depth, deepest %.1f mm",
				st.Covered, st.Count, 100*st.Frac, st.Any, 1000*st.MaxDepth)
			if st.Covered == 0 {
				t.Fatal("no body vertex covered by the outfit at rest")
			}
			if st.Frac > c.most {
				t.Errorf("skin more than 2 mm through the cloth in %.4f %% of covered vertex-frames, want ≤ %.4f %% (the full simulation's)", 100*st.Frac, 100*c.most)
			}
		})
	}
}

// TestSagClearance checks the sag term on a cylinder of radius R: an edge
// of length L across it (bound points on the surface, normals radial)
// needs L²/8R, one along its axis nothing, and one over a concave
// surface (normals converging) nothing.
func TestSagClearance(t *testing.T) {
	const R, L = 0.08, 0.05
	th := L / R // the arc's angle (bound points L apart along the arc)
	p := []geom.Vec3{geom.V(R, 0, 0), geom.V(R*math.Cos(th), R*math.Sin(th), 0), geom.V(R, 0, L)}
	n := []geom.Vec3{geom.V(1, 0, 0), geom.V(math.Cos(th), math.Sin(th), 0), geom.V(1, 0, 0)}
	verts := []geom.Vec3{p[0], p[0].Add(geom.V(0, L, 0)), p[2]} // rest edge lengths L
	valid := []bool{true, true, true}
	got := sagClearances(verts, [][3]int32{{0, 1, 2}}, p, n, valid)
	want := L * L / (8 * R)
	if math.Abs(got[1]-want) > 0.05*want {
		t.Errorf("across the cylinder: sag %.2f mm, want %.2f mm (L²/8R)", got[1]*1000, want*1000)
	}
	// vertex 2's edges: along the axis (0), and to vertex 1 (diagonal)
	if got[2] > got[1] {
		t.Errorf("diagonal edge sag %.2f mm exceeds the edge across (%.2f mm)", got[2]*1000, got[1]*1000)
	}
	along := sagClearances([]geom.Vec3{p[0], p[2]}, [][3]int32{{0, 1, 1}}, []geom.Vec3{p[0], p[2]}, []geom.Vec3{n[0], n[2]}, valid[:2])
	if along[0] != 0 {
		t.Errorf("along the axis: sag %.2f mm, want 0", along[0]*1000)
	}
	inner := sagClearances(verts, [][3]int32{{0, 1, 2}}, p, []geom.Vec3{n[0].Neg(), n[1].Neg(), n[2].Neg()}, valid)
	for v, s := range inner {
		if s != 0 {
			t.Errorf("concave: vertex %d sag %.2f mm, want 0", v, s*1000)
		}
	}
}
