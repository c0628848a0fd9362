package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/motion"
)

// byoAssets returns $PLEAT_ASSETS or skips.
func byoAssets(t *testing.T) string {
	t.Helper()
	dir := assets.Dir()
	if dir == "" {
		t.Skip("PLEAT_ASSETS is unset: skipping the bring-your-own character and clip check (set it to ../shared/assets)")
	}
	return dir
}

// mixamoGLB rewrites the glb at in with its joints renamed Mixamo-style
// (mixamorig:Hips, mixamorig:LeftUpLeg, ...; the MakeHuman finger tips
// through CMU's names) and its animation dropped, keeping the first n
// meshes (0: all), as a technical artist's character would come.
func mixamoGLB(t *testing.T, in, out string, n int) {
	t.Helper()
	s, err := gltfio.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	fromMH, _ := motion.CMUToMakeHuman().Inverse()
	m := fromMH.Then(motion.CMUToMixamo())
	for j := range s.Skeleton.Joints {
		name := s.Skeleton.Joints[j].Name
		if v, ok := m[name]; ok {
			name = v
		}
		if !strings.HasPrefix(name, motion.MixamoPrefix) {
			name = motion.MixamoPrefix + name
		}
		s.Skeleton.Joints[j].Name = name
	}
	if n > 0 {
		s.Meshes = s.Meshes[:n]
	}
	s.Animations = nil
	if err := gltfio.WriteFile(out, s); err != nil {
		t.Fatal(err)
	}
}

// TestBYOMixamoSuitWalk is the first done-when check, shortened:
// the MakeHuman body exported by `pleat pose`, its joints renamed
// Mixamo-style, dressed with male_casualsuit02's OBJ (no .mhclo) and
// driven by the CMU walk (no name map: joints matched by body part)
// through `simulate` gives a valid glb and renders.
func TestBYOMixamoSuitWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a few frames")
	}
	a := byoAssets(t)
	dir := t.TempDir()
	walk := filepath.Join(a, "mocap/cmu/02_01_walk.bvh")
	body := filepath.Join(dir, "mh.glb")
	if text, err := run(t, "pose", "--character", filepath.Join(a, "makehuman"), "--motion", walk, "--end", "2", "--renders", "", "--out", body); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	mix := filepath.Join(dir, "mixamo.glb")
	mixamoGLB(t, body, mix, 1)
	out := filepath.Join(dir, "walk.glb")
	text, err := run(t, "simulate", "--character", mix,
		"--garment", filepath.Join(a, "makehuman/clothes/male_casualsuit02/male_casualsuit02.obj"),
		"--motion", walk, "--fps", "30", "--end", "8", "--settle", "0.2", "--renders", "first,last", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"garment    male_casualsuit02#0", "garment    male_casualsuit02#1", "clip joint(s) matched to rig joints of other names by body part", "file unit cmu"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	gltfcheck.Check(t, out)
	pngs, _ := filepath.Glob(filepath.Join(dir, "walk.f*.png"))
	if len(pngs) != 2 {
		t.Errorf("%d renders, want 2", len(pngs))
	}
}

// maxWalk writes the CMU walk with 3ds Max joint names and the LFingers
// and RFingers end joints of real 3ds Max exports.
func maxWalk(t *testing.T, a, path string) {
	t.Helper()
	b, err := motion.ReadFile(filepath.Join(a, "mocap/cmu/02_01_walk.bvh"))
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
	for _, side := range []string{"l", "r"} {
		p, _ := b.Index(side + "hand")
		end := geom.Vec3{X: 0.4}
		jt := motion.BVHJoint{Name: strings.ToUpper(side) + "Fingers", Parent: p, Offset: geom.Vec3{X: 0.3}, Channels: []motion.Channel{}, EndSite: &end}
		b.Joints = append(b.Joints[:p+1], append([]motion.BVHJoint{jt}, b.Joints[p+1:]...)...)
		for j := p + 2; j < len(b.Joints); j++ {
			if b.Joints[j].Parent > p {
				b.Joints[j].Parent++
			}
		}
	}
	if err := motion.WriteFile(path, b); err != nil {
		t.Fatal(err)
	}
}

// TestBYOClips covers the clip checks of the issue through `pleat pose`:
// a 3ds Max CMU export with LFingers/RFingers under --name-map cmu-max
// (and with no map) loads with one note; the walk keyed on six channels
// per joint with UpperLeg_L-style names drives the MakeHuman body with no
// map; --units and --up are checked and applied; a glb's own meshes are
// worn with --garment-from-character.
func TestBYOClips(t *testing.T) {
	a := byoAssets(t)
	dir := t.TempDir()
	mh := filepath.Join(a, "makehuman")
	maxFile := filepath.Join(dir, "walk_max.bvh")
	maxWalk(t, a, maxFile)

	// UpperLeg_L-style names, six channels on every joint.
	b, err := motion.ReadFile(filepath.Join(a, "mocap/cmu/02_01_walk.bvh"))
	if err != nil {
		t.Fatal(err)
	}
	off := b.ChannelOffsets()
	six := b.Clone()
	for j := 1; j < len(six.Joints); j++ {
		six.Joints[j].Channels = append([]motion.Channel{motion.Xposition, motion.Yposition, motion.Zposition}, six.Joints[j].Channels...)
	}
	for f, fr := range b.Frames {
		var nf []float64
		for j, jt := range b.Joints {
			if j > 0 {
				nf = append(nf, jt.Offset.X, jt.Offset.Y, jt.Offset.Z)
			}
			nf = append(nf, fr[off[j]:off[j]+len(jt.Channels)]...)
		}
		six.Frames[f] = nf
	}
	unity := motion.NameMap{}
	for k, v := range map[string]string{"LHipJoint": "HipJoint_L", "LeftUpLeg": "UpperLeg_L", "LeftLeg": "LowerLeg_L", "LeftFoot": "Foot_L",
		"LeftToeBase": "Toes_L", "LeftShoulder": "Shoulder_L", "LeftArm": "UpperArm_L", "LeftForeArm": "LowerArm_L", "LeftHand": "Hand_L",
		"LeftFingerBase": "Palm_L", "LeftHandIndex1": "Index1_L", "LThumb": "Thumb1_L"} {
		unity[k] = v
		r := strings.Replace(strings.Replace(k, "Left", "Right", 1), "LH", "RH", 1)
		if k == "LThumb" {
			r = "RThumb"
		}
		unity[r] = strings.TrimSuffix(v, "_L") + "_R"
	}
	unity["LowerBack"], unity["Spine"], unity["Spine1"], unity["Neck1"] = "Spine", "Chest", "UpperChest", "UpperNeck"
	if err := six.RenameJoints(unity, false); err != nil {
		t.Fatal(err)
	}
	sixFile := filepath.Join(dir, "walk_unity6.bvh")
	if err := motion.WriteFile(sixFile, six); err != nil {
		t.Fatal(err)
	}

	pose := func(args ...string) string {
		t.Helper()
		out := filepath.Join(dir, "pose.glb")
		text, err := run(t, append([]string{"pose", "--end", "20", "--renders", "", "--out", out}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, text)
		}
		return text
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--character", mh, "--motion", maxFile, "--name-map", "cmu-max"}, []string{"2 clip joint(s) match no rig joint and are left out: LFingers, RFingers"}},
		{[]string{"--character", mh, "--motion", maxFile}, []string{"match no rig joint and are left out: LFingers, RFingers"}},
		{[]string{"--character", mh, "--motion", sixFile}, []string{"file unit cmu", "matched to rig joints of other names by body part"}},
		{[]string{"--character", mh, "--motion", sixFile, "--units", "cmu", "--up", "y"}, nil},
	} {
		text := pose(tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, text)
			}
		}
		if strings.Count(text, "LFingers") > 1 {
			t.Errorf("%v: LFingers noted more than once:\n%s", tc.args, text)
		}
	}

	// The dressed walk as a Mixamo-named glb, worn from its own file.
	dressed := filepath.Join(dir, "dressed.glb")
	pose("--character", mh, "--garment", "male_casualsuit02", "--motion", maxFile, "--name-map", "cmu-max", "--out", dressed)
	mixDressed := filepath.Join(dir, "dressed_mixamo.glb")
	mixamoGLB(t, dressed, mixDressed, 0)
	text := pose("--character", mixDressed, "--garment-from-character", "all", "--motion", sixFile)
	if !strings.Contains(text, "garment    male_casualsuit02#0") || !strings.Contains(text, "garment    male_casualsuit02#1") {
		t.Errorf("--garment-from-character all:\n%s", text)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--character", mh, "--motion", sixFile, "--units", "furlong"}, "--units: "},
		{[]string{"--character", mh, "--motion", sixFile, "--up", "x"}, "--up: "},
		{[]string{"--character", mh, "--garment-from-character", "all"}, "--garment-from-character: --character"},
		{[]string{"--character", mixDressed, "--garment-from-character", "cape"}, `no garment mesh named "cape"`},
	} {
		_, err := run(t, append([]string{"pose", "--renders", "", "--out", filepath.Join(dir, "bad.glb")}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestInspectBVH: `pleat inspect` on a clip reports its unit, up axis and
// the body part of each joint name; --units and --up are checked.
func TestInspectBVH(t *testing.T) {
	bvh := "HIERARCHY\nROOT Bip01 Pelvis\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n" +
		"\tJOINT Bip01 L Thigh\n\t{\n\t\tOFFSET 9 0 -5\n\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n" +
		"\t\tJOINT Bip01 L Calf\n\t\t{\n\t\t\tOFFSET 0 0 -45\n\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n" +
		"\t\t\tJOINT Bip01 L Foot\n\t\t\t{\n\t\t\t\tOFFSET 0 0 -42\n\t\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n\t\t\t\tEnd Site\n\t\t\t\t{\n\t\t\t\t\tOFFSET 0 -15 -5\n\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n" +
		"\tJOINT Bip01 Head\n\t{\n\t\tOFFSET 0 0 60\n\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n\t\tJOINT Tail\n\t\t{\n\t\t\tOFFSET 0 0 10\n\t\t\tCHANNELS 0\n\t\t\tEnd Site\n\t\t\t{\n\t\t\t\tOFFSET 0 0 10\n\t\t\t}\n\t\t}\n\t}\n}\n" +
		"MOTION\nFrames: 2\nFrame Time: 0.0333333\n0 0 95 0 0 0 9 0 -5 0 0 0 0 0 0 0 0 0 0 0 0\n1 0 95 0 0 0 9 0 -5 10 0 0 20 0 0 0 0 0 0 0 0\n"
	path := filepath.Join(t.TempDir(), "biped.bvh")
	if err := os.WriteFile(path, []byte(bvh), 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := run(t, "inspect", path)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"unit       cm = 0.01 m; up z", "1 non-root joints with translation channels", "Bip01 L Thigh            upleg.L", "Tail                     (not recognised)", "body parts (5 of 6 joints recognised)"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if _, err := run(t, "inspect", "--units", "cubit", path); err == nil || !strings.Contains(err.Error(), "--units") {
		t.Errorf("--units cubit: %v", err)
	}
	text, err = run(t, "inspect", "--json", "--units", "in", "--up", "y", path)
	if err != nil || !strings.Contains(text, `"unit": "in"`) || !strings.Contains(text, `"up": "y"`) {
		t.Errorf("--json: %v\n%s", err, text)
	}
}
