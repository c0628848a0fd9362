package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

func TestVec3sRoundTrip(t *testing.T) {
	frames := [][]geom.Vec3{
		{{X: 1, Y: 2, Z: 3}, {X: -0.5, Y: 0.25, Z: 1e-3}},
		{{X: 4, Y: 5, Z: 6}, {X: 7, Y: 8, Z: 9}},
	}
	var buf bytes.Buffer
	if err := WriteVec3s(&buf, frames...); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 2*2*12 {
		t.Fatalf("wrote %d bytes, want 48", buf.Len())
	}
	got, err := ReadVec3s(bytes.NewReader(buf.Bytes()), 2)
	if err != nil {
		t.Fatal(err)
	}
	for f := range frames {
		for i, p := range frames[f] {
			// float32 keeps 24 bits: relative error ≤ 2^-24.
			if d := got[f][i].Sub(p).Len(); d > 1e-6*(1+p.Len()) {
				t.Errorf("frame %d point %d: got %v want %v", f, i, got[f][i], p)
			}
		}
	}
	if _, err := ReadVec3s(bytes.NewReader(buf.Bytes()[:40]), 2); err == nil {
		t.Error("a partial frame was accepted")
	}
	if _, err := ReadVec3s(bytes.NewReader(nil), 0); err == nil {
		t.Error("0 points per frame was accepted")
	}
}

func TestEdges(t *testing.T) {
	e := Edges([][3]int32{{0, 1, 2}, {2, 1, 3}})
	want := [][2]int32{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}
	if len(e) != len(want) {
		t.Fatalf("got %v want %v", e, want)
	}
	for i := range e {
		if e[i] != want[i] {
			t.Fatalf("got %v want %v", e, want)
		}
	}
}

// cube returns a closed, counter-clockwise unit cube centred at the origin.
func cube() *mesh.Mesh {
	v := []geom.Vec3{}
	for i := 0; i < 8; i++ {
		v = append(v, geom.V(float64(i&1)-0.5, float64(i>>1&1)-0.5, float64(i>>2&1)-0.5))
	}
	tris := [][3]int32{
		{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, // z-, z+
		{0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7}, // y-, y+
		{0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}, // x-, x+
	}
	return &mesh.Mesh{Verts: v, Tris: tris}
}

func TestScore(t *testing.T) {
	body := cube()
	if err := body.Validate(); err != nil {
		t.Fatal(err)
	}
	rest := &mesh.Mesh{
		Verts: []geom.Vec3{geom.V(1, 0, 0), geom.V(2, 0, 0), geom.V(1, 1, 0)},
		Tris:  [][3]int32{{0, 1, 2}},
	}
	f1 := []geom.Vec3{geom.V(1, 0, 0), geom.V(2.5, 0, 0), geom.V(1, 1, 0)} // edge 0-1 strained by 0.5
	f2 := []geom.Vec3{geom.V(0.4, 0, 0), geom.V(2, 0, 0), geom.V(1, 1, 0)} // vertex 0 10 cm inside
	frames := [][]geom.Vec3{rest.Verts, f1, f2}
	bodies := [][]geom.Vec3{body.Verts, body.Verts, body.Verts}
	q, err := Score(rest, frames, body.Tris, bodies)
	if err != nil {
		t.Fatal(err)
	}
	if q.Frames != 2 {
		t.Errorf("scored %d frames, want 2 (frame 0 is not scored)", q.Frames)
	}
	if q.MaxStrain < 0.6-1e-9 { // f2: edge 0-1 is 1.6 long
		t.Errorf("max strain %g, want 0.6", q.MaxStrain)
	}
	if q.Inside != 1 || q.Deep != 1 || q.MaxDepth < 0.1-1e-9 || q.MaxDepth > 0.1+1e-9 {
		t.Errorf("penetration: inside %d deep %d depth %g, want 1, 1, 0.1", q.Inside, q.Deep, q.MaxDepth)
	}
}

// TestScoreNonFinite checks that a diverged frame is counted, not turned
// into an infinite strain that JSON cannot hold.
func TestScoreNonFinite(t *testing.T) {
	body := cube()
	rest := &mesh.Mesh{
		Verts: []geom.Vec3{geom.V(1, 0, 0), geom.V(2, 0, 0), geom.V(1, 1, 0)},
		Tris:  [][3]int32{{0, 1, 2}},
	}
	nan := math.NaN()
	f1 := []geom.Vec3{geom.V(1, 0, 0), geom.V(nan, 0, 0), geom.V(1, 1.5, 0)} // edge 0-2 strained by 0.5
	q, err := Score(rest, [][]geom.Vec3{rest.Verts, f1}, body.Tris, [][]geom.Vec3{body.Verts, body.Verts})
	if err != nil {
		t.Fatal(err)
	}
	if q.NonFinite != 1 || q.Deep != 1 {
		t.Errorf("non-finite %d, deep %d: want 1, 1", q.NonFinite, q.Deep)
	}
	if math.Abs(q.MaxStrain-0.5) > 1e-9 {
		t.Errorf("max strain %g, want 0.5 (the finite edge)", q.MaxStrain)
	}
	if _, err := json.Marshal(q); err != nil {
		t.Errorf("JSON of a diverged run's quality: %v", err)
	}
	if reaches(Side{Ran: true, Quality: q}, Quality{MaxStrain: 1, Deep: 5}) {
		t.Error("a run with lost vertices reaches pleat's quality")
	}
}

func TestTimes(t *testing.T) {
	tm := Times([]time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond, 10 * time.Millisecond})
	if tm.Median != 2.5 || tm.Min != 1 || tm.Max != 10 || tm.Frames != 4 {
		t.Errorf("got %+v", tm)
	}
	if tm.FPS() != 400 {
		t.Errorf("FPS %g, want 400", tm.FPS())
	}
}

func TestMatchCloth(t *testing.T) {
	// A right isosceles triangle pair (unit square): A_e/L² per edge, T = 1/30.
	m := &mesh.Mesh{
		Verts: []geom.Vec3{geom.V(0, 0, 0), geom.V(1, 0, 0), geom.V(0, 1, 0), geom.V(1, 1, 0)},
		Tris:  [][3]int32{{0, 1, 2}, {2, 1, 3}},
	}
	f := cloth.Denim()
	b := MatchCloth(f, m, 30, 2, 0.003)
	if want := f.Density * 1 / 4; b.Mass != want {
		t.Errorf("mass %g, want %g", b.Mass, want)
	}
	if b.Quality != 2 || b.DistanceMin+b.ColliderThickness != 0.003 || b.AirDamping != 0 {
		t.Errorf("got %+v", b)
	}
	if !(b.Tension > 0) || b.Compression != b.Tension || !(b.Bending > 0) {
		t.Errorf("stiffness %+v", b)
	}
}

func TestWriteBlenderInput(t *testing.T) {
	dir := t.TempDir()
	rest := cube()
	in := BlenderInput{
		Rest: rest, Start: rest.Verts, Pins: []int32{0, 1},
		PinTargets: [][]geom.Vec3{{{}, {}}, {{}, {}}},
		BodyTris:   rest.Tris, BodyFrames: [][]geom.Vec3{rest.Verts, rest.Verts}, FPS: 30,
	}
	p, err := WriteBlenderInput(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int64{
		"garment_rest.f32": 8 * 12, "garment_tris.i32": 12 * 12, "pins.i32": 8,
		"pin_targets.f32": 2 * 2 * 12, "body_frames.f32": 2 * 8 * 12,
	} {
		st, err := os.Stat(dir + "/" + name)
		if err != nil || st.Size() != size {
			t.Errorf("%s: %v, size %v want %d", name, err, st, size)
		}
	}
	data, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(data), `"pin_targets": "pin_targets.f32"`) {
		t.Errorf("params.json: %v\n%s", err, data)
	}
	in.PinTargets = in.PinTargets[:1]
	if _, err := WriteBlenderInput(dir, in); err == nil {
		t.Error("mismatched pin frames accepted")
	}
}

// TestSimBenchCoarse runs pleat on a few frames of the coarse case: a smoke
// test of the harness, no timing assertions. When sim.Run fails (body
// collision was known to diverge while it was being fixed), the failure is
// logged and the test skipped.
func TestSimBenchCoarse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, tc := range []struct{ substeps, want int }{{0, 2}, {1, 1}} {
		c := runCoarse(t, SimOptions{NoBlender: true, Substeps: tc.substeps})
		if c.Pleat.Err != "" || !c.Pleat.Ran {
			t.Skipf("sim.Run failed (reported, not a harness bug): %s", c.Pleat.Err)
		}
		if c.Verts == 0 || c.Pins == 0 || c.ProxyTris == 0 || c.ProxyTris >= c.BodyTris || c.Pleat.Time.Frames != 3 || c.Pleat.Quality.Frames != 3 {
			t.Errorf("case %+v", c)
		}
		if c.Substeps != tc.want {
			t.Errorf("--substeps %d: %d substeps per frame, want %d", tc.substeps, c.Substeps, tc.want)
		}
	}
	if _, err := SimBench(context.Background(), SimOptions{Cases: []string{CaseCoarse}, NoBlender: true, Substeps: -1}); err == nil {
		t.Error("negative substeps accepted")
	}
}

// runCoarse runs the coarse case for 4 frames with opt, logs its table and
// returns it.
func runCoarse(t *testing.T, opt SimOptions) *SimCase {
	t.Helper()
	opt.Cases, opt.Frames = []string{CaseCoarse}, 4
	rep, err := SimBench(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + buf.String())
	return rep.Cases[0]
}

// TestBlenderCoarse runs the Blender side too, only with PLEAT_BENCH_BLENDER=1
// and a blender on the PATH.
func TestBlenderCoarse(t *testing.T) {
	if os.Getenv("PLEAT_BENCH_BLENDER") != "1" {
		t.Skip("set PLEAT_BENCH_BLENDER=1 to run Blender")
	}
	if _, err := FindBlender(""); err != nil {
		t.Skip(err)
	}
	c := runCoarse(t, SimOptions{})
	if !c.Blender.Ran {
		t.Fatalf("Blender did not run: %s", c.Blender.Err)
	}
	if c.Blender.Time.Frames != 3 || c.Blender.Quality.Frames != 3 {
		t.Errorf("Blender side %+v", c.Blender)
	}
	// The search starts at Blender's default and ends matched, or having
	// tried the cap.
	if len(c.Search) == 0 || c.Search[0].Steps != BlenderDefaultQuality {
		t.Fatalf("search %+v", c.Search)
	}
	if c.Matched == 0 && mostSteps(c.Search).Steps != 20 {
		t.Errorf("unmatched, and the cap was not tried: %+v", c.Search)
	}
	if c.Matched > 0 && (!c.BlenderMatched.Ran || !(c.MatchedRatio > 0)) {
		t.Errorf("matched at %d steps without a run: %+v", c.Matched, c.BlenderMatched)
	}
}

// TestSearchSteps: the search finds the fewest steps that reach a
// threshold from below and from above the first value, tries no value
// twice and stays within a few tries; unreachable thresholds give 0.
func TestSearchSteps(t *testing.T) {
	for _, tc := range []struct{ first, most, need, want, maxTries int }{
		{5, 20, 1, 1, 3},   // reached at 5: bisect 2, 1
		{5, 20, 5, 5, 4},   // 5 reached; 2, 3, 4 not
		{5, 20, 7, 7, 4},   // 5 no, 10 yes, then 7, 6
		{5, 20, 13, 13, 6}, // 5, 10, 20, then 15, 12, 13
		{5, 20, 20, 20, 7}, // 5, 10, 20, then 15, 17, 18, 19
		{5, 20, 21, 0, 3},  // 5, 10, 20: never
		{2, 20, 3, 3, 3},
		{30, 20, 25, 0, 1}, // first above most: capped
		{1, 1, 1, 1, 1},
	} {
		tried := map[int]bool{}
		got := searchSteps(tc.first, tc.most, func(q int) bool {
			if tried[q] {
				t.Errorf("first %d most %d need %d: %d tried twice", tc.first, tc.most, tc.need, q)
			}
			if q < 1 || q > tc.most {
				t.Errorf("first %d most %d need %d: tried %d out of [1, most]", tc.first, tc.most, tc.need, q)
			}
			tried[q] = true
			return q >= tc.need
		})
		if got != tc.want || len(tried) > tc.maxTries {
			t.Errorf("first %d most %d need %d: got %d in %d tries, want %d in at most %d", tc.first, tc.most, tc.need, got, len(tried), tc.want, tc.maxTries)
		}
	}
}

// TestBlenderInputFollowsPleat: Blender's input is pleat's collision
// proxy skinned per frame and pleat's own attachment targets.
func TestBlenderInputFollowsPleat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s, err := scene.Load(scene.Spec{Resolution: 700, FPS: FPS, End: 3})
	if err != nil {
		t.Fatal(err)
	}
	opt := sim.Options{Thickness: thickness, KeepTargets: true}
	res, err := sim.Run(context.Background(), s, opt, nil)
	if err != nil {
		t.Skipf("sim.Run failed (reported, not a harness bug): %v", err)
	}
	var skins [][]geom.Rigid
	for _, p := range s.Clip.Poses {
		skins = append(skins, skel.SkinMatrices(s.Character.Skeleton, p, nil))
	}
	in, rest, err := blenderInput(s, res, opt, skins)
	if err != nil {
		t.Fatal(err)
	}
	nf := res.NumFrames()
	if len(in.BodyFrames) != nf || len(in.PinTargets) != nf || len(rest.Verts) != len(in.Start) {
		t.Fatalf("%d body frames, %d pin frames for %d frames; %d start positions for %d vertices", len(in.BodyFrames), len(in.PinTargets), nf, len(in.Start), len(rest.Verts))
	}
	if n := len(in.BodyTris); n == 0 || n >= len(s.Character.Body.Tris) {
		t.Errorf("collision body of %d triangles: not the proxy of the %d-triangle body", n, len(s.Character.Body.Tris))
	}
	if len(in.Pins) == 0 {
		t.Fatal("no pinned vertices")
	}
	// The pins end each of pleat's frames near pleat's targets.
	_, frames := res.Merged()
	worst := 0.0
	for f := range nf {
		for k, v := range in.Pins {
			worst = max(worst, frames[f][v].Dist(in.PinTargets[f][k]))
		}
	}
	if worst > 0.01 {
		t.Errorf("a pinned vertex is %.1f mm from its target in pleat's frames", 1000*worst)
	}
	// The proxy moves with the clip.
	if in.BodyFrames[0][0] == in.BodyFrames[nf-1][0] && in.BodyFrames[0][len(in.BodyFrames[0])/2] == in.BodyFrames[nf-1][len(in.BodyFrames[0])/2] {
		t.Error("the collision proxy does not move with the clip")
	}
}

// TestRunUp: the run-up ends on the original frame 0, starts at rest and
// ends moving at about the initial velocity.
func TestRunUp(t *testing.T) {
	p := []geom.Vec3{geom.V(1, 2, 3)}
	in := BlenderInput{FPS: 30, Start: p, BodyFrames: [][]geom.Vec3{p, p}, PinTargets: [][]geom.Vec3{p, p}}
	v0 := geom.V(1.5, 0, 0)
	n := runUp(&in, v0, 0.25)
	if n != 8 || len(in.BodyFrames) != 10 || len(in.PinTargets) != 10 {
		t.Fatalf("%d run-up frames, %d body and %d pin frames; want 8, 10, 10", n, len(in.BodyFrames), len(in.PinTargets))
	}
	if in.BodyFrames[n][0] != p[0] || in.PinTargets[n][0] != p[0] {
		t.Errorf("frame 0 moved: %v, %v", in.BodyFrames[n][0], in.PinTargets[n][0])
	}
	if d := in.Start[0].Sub(in.BodyFrames[0][0]).Len(); d != 0 {
		t.Errorf("the start is %g m from the first run-up frame", d)
	}
	first := in.BodyFrames[1][0].Sub(in.BodyFrames[0][0]).Len() * 30
	last := in.BodyFrames[n][0].Sub(in.BodyFrames[n-1][0]).Len() * 30
	// Mean speeds over the first and last frames of v0·(3u² − 2u³), u in
	// eighths: 0.012 and 0.988 of v0.
	if first > 0.02*v0.X || math.Abs(last-v0.X) > 0.02*v0.X {
		t.Errorf("speed %g m/s over the first frame, %g over the last; want about 0 and %g", first, last, v0.X)
	}
	if runUp(&in, geom.Vec3{}, 0.25) != 0 {
		t.Error("a run-up without initial velocity")
	}
}
