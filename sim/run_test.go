package sim

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// summary folds the per-frame statistics of a run.
// overstretched returns the number of edge-frames stretched by more than
// 10 %.
func overstretched(res *Result) int {
	n := 0
	for _, st := range res.Stats {
		n += st.Overstretched
	}
	return n
}

func summary(res *Result) (stretch, deepFrac, maxDepth float64) {
	verts := 0
	for _, p := range res.Pieces {
		verts += len(p.Mesh.Verts)
	}
	deep := 0
	for _, st := range res.Stats {
		stretch = max(stretch, st.MaxStretch)
		deep += st.Deep
		maxDepth = max(maxDepth, st.MaxDepth)
	}
	return stretch, float64(deep) / float64(verts*len(res.Stats)), maxDepth
}

// layerPoke returns the fraction of inner-layer vertex-frames found outside
// an outer layer (closest outer feature not on a boundary, at most 2 cm
// out) and the largest distance out, m, over every pair of pieces.
func layerPoke(t *testing.T, res *Result) (frac, maxOut float64) {
	t.Helper()
	n, out := 0, 0
	for j, pj := range res.Pieces {
		for f, xj := range res.Frames[j] {
			b, err := collide.NewBody(&mesh.Mesh{Verts: xj, Tris: pj.Mesh.Tris})
			if err != nil {
				t.Fatal(err)
			}
			for i, pi := range res.Pieces {
				if pi.Layer >= pj.Layer {
					continue
				}
				for _, q := range res.Frames[i][f] {
					n++
					if c, ok := b.Query(q, 0.02); ok && !c.Boundary && c.Dist > 0 {
						out++
						maxOut = max(maxOut, c.Dist)
					}
				}
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(out) / float64(n), maxOut
}

// TestRunProceduralDefault simulates the procedural mannequin with shirt
// and trousers (3637 garment vertices) through the settle phase and 1 s of
// the walk: no divergence, garments out of the body.
func TestRunProceduralDefault(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 30})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.NumFrames(); n != 30 {
		t.Fatalf("%d frames, want 30", n)
	}
	stretch, deep, depth := summary(res)
	t.Logf("max stretch %.3f, %.4f%% vertex-frames > 2 mm inside, deepest %.1f mm", stretch, 100*deep, depth*1000)
	// Penetration: at most 0.1 % of vertex-frames more than 2 mm deep.
	if deep > 0.001 {
		t.Errorf("%.3f%% of vertex-frames more than 2 mm inside the body", 100*deep)
	}
	// Stretch: 9.5 % measured (93 % before the collision fixes of this
	// package's history, 30 % before cloth.Options.ContactSlack: the
	// trousers' crotch between the thighs and the shirt hem over the
	// trousers).
	if stretch > 0.1 {
		t.Errorf("max stretch %.3f > 10%%", stretch)
	}
	if n := overstretched(res); n > 0 {
		t.Errorf("%d edge-frames stretched by more than 10 %%", n)
	}
	// Layers: trouser vertices outside the shirt (the outer layer): 0.49 %
	// of vertex-frames (up to 1.8 mm) before collide.Overlaps, none since.
	poke, out := layerPoke(t, res)
	t.Logf("%.4f%% inner vertex-frames outside the outer layer (up to %.1f mm)", 100*poke, out*1000)
	if poke > 0.001 {
		t.Errorf("%.3f%% of inner vertex-frames outside the outer layer", 100*poke)
	}
}

// TestRunWeftWarpDefault runs the procedural default (3637 vertices) with
// the weft/warp model for 10 frames after the settle. With the mass-spring
// model's 10 % edge limit it came out of the settle with 1155 pushes undone
// in its first frame and 4.5 % of vertex-frames more than 2 mm inside the
// body (see weftWarpStrainLimit).
func TestRunWeftWarpDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("short: 10 frames at 3637 vertices")
	}
	s, err := scene.Load(scene.Spec{End: 10})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, Options{Model: cloth.WeftWarp, ModelSet: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stretch, deep, depth := summary(res)
	t.Logf("max edge stretch %.3f, %.4f%% vertex-frames > 2 mm inside, deepest %.1f mm", stretch, 100*deep, depth*1000)
	// 0.09 % measured; the bound leaves room for the chaotic ±50 % that
	// unrelated changes make on a run this short.
	if deep > 0.005 {
		t.Errorf("%.3f%% of vertex-frames more than 2 mm inside the body", 100*deep)
	}
	if stretch > weftWarpStrainLimit {
		t.Errorf("max edge stretch %.3f > %g", stretch, weftWarpStrainLimit)
	}
}

// TestRunFastMotion plays the procedural walk three times as fast (every
// third pose at 30 frames/s, the garments moving up to about 40 cm in a
// frame): the frames that move them more than 10 cm get more substeps, and
// the run says so.
func TestRunFastMotion(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 60})
	if err != nil {
		t.Fatal(err)
	}
	var fast []skel.Pose
	for f := 0; f < len(s.Clip.Poses); f += 3 {
		fast = append(fast, s.Clip.Poses[f])
	}
	s.Clip.Poses = fast
	res, err := Run(context.Background(), s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	note := ""
	for _, n := range res.Notes {
		if strings.HasPrefix(n, "fast motion") {
			note = n
		}
	}
	t.Log(note)
	if note == "" {
		t.Errorf("no fast-motion note in %q", res.Notes)
	}
	most := 0
	for _, st := range res.Stats[1:] {
		most = max(most, st.Substeps/len(res.Pieces))
	}
	if most < 3 {
		t.Errorf("at most %d substeps per piece in a frame, want more than the default 2", most)
	}
	stretch, deep, _ := summary(res)
	t.Logf("max stretch %.3f, %.4f%% vertex-frames > 2 mm inside", stretch, 100*deep)
	if deep > 0.005 {
		t.Errorf("%.3f%% of vertex-frames more than 2 mm inside the body", 100*deep)
	}
}

// TestRunJumpCapped: a clip whose root jumps 100 m for one frame (a capture
// glitch) asks for 1000 substeps of 10 cm; it gets maxFastSubsteps, and
// the run stops with an error that says what diverged.
func TestRunJumpCapped(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 12})
	if err != nil {
		t.Fatal(err)
	}
	s.Clip.Poses[6].Root = s.Clip.Poses[6].Root.Add(geom.V(100, 0, 0))
	res, err := Run(context.Background(), s, Options{}, nil)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("error %v, want a divergence", err)
	}
	if res == nil || !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, fmt.Sprintf("up to %d substeps", maxFastSubsteps))
	}) {
		t.Errorf("no note of %d substeps", maxFastSubsteps)
	}
}

// TestRunFastSubsteps: with a MaxDt set, the jump of TestRunJumpCapped
// gets the substeps of fast frames only with Options.FastSubsteps.
func TestRunFastSubsteps(t *testing.T) {
	for _, fast := range []bool{false, true} {
		s, err := scene.Load(scene.Spec{Resolution: 700, End: 8})
		if err != nil {
			t.Fatal(err)
		}
		s.Clip.Poses[6].Root = s.Clip.Poses[6].Root.Add(geom.V(100, 0, 0))
		res, _ := Run(context.Background(), s, Options{MaxDt: 1.0 / 30, FastSubsteps: fast, Settle: -1}, nil)
		noted := res != nil && slices.ContainsFunc(res.Notes, func(n string) bool {
			return strings.Contains(n, fmt.Sprintf("up to %d substeps", maxFastSubsteps))
		})
		if noted != fast {
			t.Errorf("FastSubsteps %v: note of %d substeps %v", fast, maxFastSubsteps, noted)
		}
	}
}

// TestRunMakeHuman runs the MakeHuman casual suit on the CMU walk for 20
// frames when PLEAT_ASSETS names the asset folder: no divergence (it
// diverged during the settle phase before), penetration, stretch and
// layering bounded. The targets are checked: at most 0.1 % of
// vertex-frames more than 2 mm inside (measured 0.061 %) and no edge
// stretched by more than 10 % (measured 9.5 %; 26 % before the layer
// contacts were made soft and the Overlap pushes limited to the strain
// limit, and single edges at 10–70 % on the 25k suit before the strain
// limiter's move bounds gave way to cloth.Options.ContactSlack). Jeans
// vertex-frames outside the shirt: 5.2 % before collide.Overlaps, 0.05 %
// now.
func TestRunMakeHuman(t *testing.T) {
	dir := assets.Dir()
	if dir == "" {
		t.Skip("PLEAT_ASSETS not set")
	}
	s, err := scene.Load(scene.Spec{
		Character: filepath.Join(dir, "makehuman"),
		Garments:  []string{"male_casualsuit02"},
		Motion:    filepath.Join(dir, "mocap", "cmu", "02_01_walk.bvh"),
		FPS:       30,
		End:       20,
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stretch, deep, depth := summary(res)
	t.Logf("max stretch %.3f, %.4f%% vertex-frames > 2 mm inside, deepest %.1f mm", stretch, 100*deep, depth*1000)
	if res.NumFrames() != 20 {
		t.Errorf("%d frames, want 20", res.NumFrames())
	}
	if deep > 0.001 {
		t.Errorf("%.3f%% of vertex-frames more than 2 mm inside the body", 100*deep)
	}
	if stretch > 0.1 {
		t.Errorf("max stretch %.3f > 10%%", stretch)
	}
	if n := overstretched(res); n > 0 {
		t.Errorf("%d edge-frames stretched by more than 10 %%", n)
	}
	poke, out := layerPoke(t, res)
	t.Logf("%.4f%% inner vertex-frames outside the outer layer (up to %.1f mm)", 100*poke, out*1000)
	if poke > 0.02 {
		t.Errorf("%.3f%% of jeans vertex-frames outside the shirt", 100*poke)
	}
}

// TestRunSelfCollide runs the procedural default with self-collision on:
// no divergence, body penetration as without it.
func TestRunSelfCollide(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 12})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, Options{SelfCollide: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stretch, deep, depth := summary(res)
	t.Logf("self-collision on: max stretch %.3f, %.4f%% deep, deepest %.1f mm", stretch, 100*deep, depth*1000)
	if res.NumFrames() != 12 || deep > 0.001 {
		t.Errorf("%d frames, %.3f%% of vertex-frames more than 2 mm inside", res.NumFrames(), 100*deep)
	}
}

// TestRunSelfCollideKeepsLimit: the opt-in self-collision's repulsions are
// held to the strain limit like the body's push-outs (cloth.LimitHook and
// the cloth's restore after its second limiting pass). Before, on the
// procedural default at 700 vertices, they stretched edges to 13.6 % (5
// edge-frames above 10 % in 21 frames; 246 % on the MakeHuman walk).
func TestRunSelfCollideKeepsLimit(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 21})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, Options{SelfCollide: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stretch, deep, _ := summary(res)
	t.Logf("max stretch %.3f, %.4f%% vertex-frames > 2 mm inside", stretch, 100*deep)
	if stretch > 0.1 {
		t.Errorf("max stretch %.3f > 10%%", stretch)
	}
	if n := overstretched(res); n > 0 {
		t.Errorf("%d edge-frames above 10 %% strain", n)
	}
}

// TestCollisionProxy checks the body proxy on the procedural mannequin: far
// fewer triangles, weights carried over, and the body enclosed (no body
// vertex more than 0.1 mm outside the proxy, so the safety distance is kept
// from the body itself); a negative tolerance keeps the body.
func TestCollisionProxy(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 2})
	if err != nil {
		t.Fatal(err)
	}
	body, w := s.Character.Body, s.Character.Weights
	for _, tc := range []struct {
		tol     float64
		maxFrac float64 // largest proxy/body triangle ratio
	}{
		{0.002, 0.5},
		{0.005, 0.3},
	} {
		pm, pw, note, err := collisionProxy(body, w, nil, tc.tol)
		if err != nil {
			t.Fatal(err)
		}
		if pm == body {
			t.Fatalf("tol %g: no proxy (%s)", tc.tol, note)
		}
		if f := float64(len(pm.Tris)) / float64(len(body.Tris)); f > tc.maxFrac {
			t.Errorf("tol %g: %d of %d triangles kept (%.2f > %.2f)", tc.tol, len(pm.Tris), len(body.Tris), f, tc.maxFrac)
		}
		if pw.NumVerts() != len(pm.Verts) {
			t.Fatalf("tol %g: %d weights for %d proxy vertices", tc.tol, pw.NumVerts(), len(pm.Verts))
		}
		pb, err := collide.NewBody(pm)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for _, p := range body.Verts {
			worst = max(worst, pb.SignedDistance(p).Dist)
		}
		if worst > 1e-4 {
			t.Errorf("tol %g: a body vertex lies %.2f mm outside the proxy", tc.tol, worst*1000)
		}
		t.Logf("tol %g mm: %d → %d triangles, %s", tc.tol*1000, len(body.Tris), len(pm.Tris), note)
	}
	if pm, _, _, err := collisionProxy(body, w, nil, -1); err != nil || pm != body {
		t.Errorf("negative tolerance: got a proxy (err %v)", err)
	}
}

// TestPiecesConcurrent checks that stepping the pieces one after the other
// (Workers 1) and concurrently (Workers 2) gives bit-identical frames: each
// piece collides with the others' states at the start of the substep. The
// coarse suit's pieces are stepped by a spinning crew (each piece's loops
// run on one goroutine), the finer one's by a goroutine per piece and
// substep (their loops are split over the workers).
func TestPiecesConcurrent(t *testing.T) {
	for _, tc := range []struct {
		res    int
		serial bool
	}{{700, true}, {4000, false}} {
		s, err := scene.Load(scene.Spec{Resolution: tc.res, End: 4})
		if err != nil {
			t.Fatal(err)
		}
		var runs [2]*Result
		for k, w := range []int{1, 2} {
			if runs[k], err = Run(context.Background(), s, Options{Workers: w}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if len(runs[0].Pieces) < 2 {
			t.Fatalf("%d pieces: the scene should layer two garments", len(runs[0].Pieces))
		}
		// Edges (stretch springs) per piece: a piece with 4096 or more
		// splits its loops (cloth.Cloth.Serial).
		edges := 0
		for _, p := range runs[0].Pieces {
			edges = max(edges, 3*len(p.Mesh.Tris)/2)
		}
		if serial := edges < 4096; serial != tc.serial {
			t.Fatalf("resolution %d: up to %d edges per piece, want pieces serial=%v", tc.res, edges, tc.serial)
		}
		for p := range runs[0].Frames {
			for f := range runs[0].Frames[p] {
				for v, x := range runs[0].Frames[p][f] {
					if y := runs[1].Frames[p][f][v]; x != y {
						t.Fatalf("resolution %d: piece %d frame %d vertex %d: %v with one worker, %v with two", tc.res, p, f, v, x, y)
					}
				}
			}
		}
	}
}

// TestWaryFrames: a frame whose solver clamps vertex speeds doubles the
// substeps of the frames in the next waryTime, counted from the last
// clamp; without clamps nothing changes.
func TestWaryFrames(t *testing.T) {
	const dt, maxDt = 1.0 / 30, 1.0 / 60
	cases := []struct {
		name    string
		clamped []int // per frame
		want    []int // the least substeps of each frame
	}{
		{"none", []int{0, 0, 0}, []int{0, 0, 0}},
		{"one clamp", append([]int{0, 3}, make([]int, 16)...),
			append([]int{0, 0}, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0)},
		{"clamps extend it", append([]int{1}, append(make([]int, 10), append([]int{1}, make([]int, 15)...)...)...),
			append([]int{0}, append(repeat(4, 26), 0)...)},
	}
	for _, c := range cases {
		var w waryFrames
		for f, cl := range c.clamped {
			if got := w.substeps(dt, maxDt); got != c.want[f] {
				t.Errorf("%s: frame %d: at least %d substeps, want %d", c.name, f, got, c.want[f])
			}
			w.after(cl, dt)
		}
	}
}

func repeat(x, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = x
	}
	return s
}

// TestRunWary: with a speed clamp so low that the solver clamps in every
// frame, the frames after the first are stepped in twice the substeps,
// and the run says so; with the default clamp the substeps stay at 2.
func TestRunWary(t *testing.T) {
	for _, clamp := range []float64{0, 0.05} {
		s, err := scene.Load(scene.Spec{Resolution: 700, End: 6})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), s, Options{SpeedClamp: clamp, Settle: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "twice the substeps") })
		clamped := false
		for f, st := range res.Stats[1:] {
			want := 2
			if clamped {
				want = 4
			}
			if got := st.Substeps / len(res.Pieces); got != want {
				t.Errorf("speed clamp %g, frame %d: %d substeps per piece, want %d", clamp, f+1, got, want)
			}
			clamped = clamped || st.Clamped > 0
		}
		if noted != clamped || clamped != (clamp > 0) {
			t.Errorf("speed clamp %g: clamped %v, noted %v", clamp, clamped, noted)
		}
	}
}
