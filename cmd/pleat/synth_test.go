package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/viewer"
	"github.com/pleat-dev/pleat/wrinkle"
)

// TestSynthEval builds a two-sample database of the coarse procedural
// suit, synthesizes an elbow bend from it, evaluates it, and checks the
// errors for a database of another garment and a truncated file.
func TestSynthEval(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 2 samples and a clip")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "elbow.json")
	if err := os.WriteFile(spec, []byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
	 {"role": "left_elbow", "flex": {"min": 0, "max": 90, "step": 90}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "suit.pdb")
	if text, err := run(t, "builddb", "--resolution", "700", "--spec", spec, "--transition", "0.2", "--settle-time", "0.6", "--jobs", "1", "--out", db); err != nil {
		t.Fatalf("builddb: %v\n%s", err, text)
	}
	clip := []string{"--resolution", "700", "--motion", "elbowbend", "--seconds", "0.3", "--coarse-verts", "300"}
	out := filepath.Join(dir, "synth.pc2")
	text, err := run(t, append([]string{"synth", "--db", db, "--out", out}, clip...)...)
	if err != nil {
		t.Fatalf("synth: %v\n%s", err, text)
	}
	for _, want := range []string{"wrinkle synthesis", "coarse simulation", "wrinkle transfer", "wrote " + out} {
		if !strings.Contains(text, want) {
			t.Errorf("synth output lacks %q:\n%s", want, text)
		}
	}
	evalDir := filepath.Join(dir, "eval")
	text, err = run(t, append([]string{"eval", "--db", db, "--out", evalDir}, clip...)...)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, text)
	}
	for _, want := range []string{"synthesized+transfer", "skinning", "penetration of the result", "mean error by garment region", "curvature by garment region", "left_elbow", "pleat serve reference=", "calibration: the coarse garment settled in the rest pose"} {
		if !strings.Contains(text, want) {
			t.Errorf("eval output lacks %q:\n%s", want, text)
		}
	}
	glbs := checkEvalOutputs(t, evalDir)
	cache := filepath.Join(dir, "ref.cache")
	for i, want := range []string{"wrote " + filepath.Join(evalDir, "report.html"), "reference simulation read from " + cache} {
		text, err = run(t, append([]string{"eval", "--db", db, "--out", evalDir, "--reference-cache", cache}, clip...)...)
		if err != nil || !strings.Contains(text, want) {
			t.Errorf("eval with a reference cache, run %d: %v; output lacks %q:\n%s", i+1, err, want, text)
		}
		if i == 0 && strings.Contains(text, "read from") {
			t.Errorf("the first run read a cache it had not written:\n%s", text)
		}
	}

	checkClipJointsByMatch(t, db)

	other := []string{"synth", "--db", db, "--resolution", "1000", "--seconds", "0.1", "--out", filepath.Join(dir, "x.pc2")}
	if _, err := run(t, other...); err == nil || !strings.Contains(err.Error(), "garment does not match") {
		t.Errorf("a suit of another resolution: %v", err)
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pdb")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "synth", "--db", cut, "--out", filepath.Join(dir, "y.pc2")); err == nil || !strings.Contains(err.Error(), cut) {
		t.Errorf("a truncated database: %v", err)
	}
	gltfcheck.Check(t, glbs...) // last: it skips the test when the checkers are not installed
}

// checkEvalOutputs checks that eval wrote its four animations, each
// playable in pleat serve with the clip's frames, and a report with
// renders and heat maps of the methods.
func checkEvalOutputs(t *testing.T, dir string) []string {
	t.Helper()
	frames := -1
	var glbs []string
	for _, name := range []string{"reference", "synthesized", "coarse", "skinning"} {
		glbs = append(glbs, filepath.Join(dir, name+".glb"))
		a, err := viewer.Load(glbs[len(glbs)-1], viewer.LoadOptions{})
		if err != nil {
			t.Errorf("%s.glb: %v", name, err)
			continue
		}
		if frames >= 0 && a.NumFrames != frames {
			t.Errorf("%s.glb: %d frames, the reference %d", name, a.NumFrames, frames)
		}
		frames = a.NumFrames
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Renders", "mean curvature (red convex", "synthesized", "coarse", "Against the reference", "Time per frame, ms", "The coarse simulation: ", "calibration: the coarse garment"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if n := strings.Count(string(html), "data:image/png"); n < 4*4+2 {
		t.Errorf("report.html has %d images, want at least 18 (four methods at three frames and as heat maps, two plots)", n)
	}
	return glbs
}

// checkClipJointsByMatch checks that checkClipJoints judges a clip by the
// rig joints the scene matched it to (Scene.ClipMatch), whatever the
// clip's own joint names: the database samples left_elbow, so a clip that
// drives the left arm's chain passes and one that drives only the legs is
// refused, naming the elbow.
func checkClipJointsByMatch(t *testing.T, dbPath string) {
	t.Helper()
	db, err := wrinkle.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scene.Load(scene.Spec{Seconds: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkClipJoints(db, s, "procedural"); err != nil {
		t.Errorf("a procedural clip: %v", err)
	}
	all := motion.NameMap{}
	legs := motion.NameMap{}
	for _, j := range s.Character.Skeleton.Joints() {
		all["clip_"+j.Name] = j.Name
		if strings.Contains(j.Name, "Leg") || strings.Contains(j.Name, "Hips") {
			legs["clip_"+j.Name] = j.Name
		}
	}
	s.ClipMatch = all
	if err := checkClipJoints(db, s, "all.bvh"); err != nil {
		t.Errorf("a clip that drives every rig joint under other names: %v", err)
	}
	s.ClipMatch = legs
	if err := checkClipJoints(db, s, "legs.bvh"); err == nil || !strings.Contains(err.Error(), "left_elbow") || !strings.Contains(err.Error(), "legs.bvh") {
		t.Errorf("a clip that drives only the legs: %v", err)
	}
}

// TestRefCacheKey: the reference cache's key changes with the build of
// pleat and with the clip, and not otherwise.
func TestRefCacheKey(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 3})
	if err != nil {
		t.Fatal(err)
	}
	build, err := buildFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := buildFingerprint(); again != build || build == "" {
		t.Fatalf("build fingerprint %q, then %q", build, again)
	}
	key := func(s *scene.Scene, build string) [32]byte {
		k, err := refCacheKey(s, sim.Options{}, build)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k := key(s, build)
	if key(s, build) != k {
		t.Error("the same inputs give two keys")
	}
	if key(s, build+" rebuilt") == k {
		t.Error("another build gives the same key")
	}
	short := *s
	clip := *s.Clip
	clip.Poses = clip.Poses[:2]
	short.Clip = &clip
	if key(&short, build) == k {
		t.Error("another clip gives the same key")
	}
}
