package motion

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func TestCMUMaxToMB(t *testing.T) {
	m := CMUMaxToMB()
	if len(m) != 33 {
		t.Errorf("%d entries, want 33 (31 joints and LFingers, RFingers)", len(m))
	}
	for from, to := range map[string]string{
		"LeftHip": "LeftUpLeg", "RightToe": "RightToeBase", "Neck": "Neck1", "lowerneck": "Neck",
		"LeftShoulder": "LeftArm", "RightCollar": "RightShoulder", "rhand": "RightFingerBase",
		"RightWrist": "RightHand", "Hips": "Hips",
	} {
		if m[from] != to {
			t.Errorf("%s -> %q, want %q", from, m[from], to)
		}
	}
	inv, err := m.Inverse()
	if err != nil {
		t.Fatal(err)
	}
	// Simultaneous renaming: a permutation-like map round-trips.
	names := []string{"Neck", "lowerneck", "LeftShoulder", "LeftCollar"}
	out, err := m.Rename(names, true)
	if err != nil || strings.Join(out, " ") != "Neck1 Neck LeftArm LeftShoulder" {
		t.Fatalf("%v %v", out, err)
	}
	back, err := inv.Rename(out, true)
	if err != nil || strings.Join(back, " ") != strings.Join(names, " ") {
		t.Errorf("%v %v", back, err)
	}
	if got := m.Then(CMUToMakeHuman())["LeftHandIndex1"]; got != "LeftHandFinger1" {
		t.Errorf("composed finger tip %q", got)
	}
}

// TestMaxNamesWalk writes 02_01_walk.bvh with 3ds Max joint names, reads
// it back, maps the names and checks the poses equal the original's bit
// for bit.
func TestMaxNamesWalk(t *testing.T) {
	orig := readAsset(t, "02_01_walk.bvh")
	toMax, err := CMUMaxToMB().Inverse()
	if err != nil {
		t.Fatal(err)
	}
	max := orig.Clone()
	if err := max.RenameJoints(toMax, true); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "02_01_walk_max.bvh")
	if err := WriteFile(path, max); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"JOINT lowerneck", "JOINT Neck\n", "JOINT LeftCollar", "JOINT LeftShoulder\n", "JOINT rhand"} {
		if !strings.Contains(string(data), s) {
			t.Errorf("3ds Max file lacks %q", s)
		}
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.RenameJoints(CMUMaxToMB(), true); err != nil {
		t.Fatal(err)
	}
	if d := sameBVH(orig, got); d != "" {
		t.Fatalf("mapped file differs: %s", d)
	}
	ca, err := orig.Clip(CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := got.Clip(CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	for j := range ca.Skeleton.NumJoints() {
		if ca.Skeleton.Joint(j) != cb.Skeleton.Joint(j) {
			t.Fatalf("joint %d: %+v vs %+v", j, ca.Skeleton.Joint(j), cb.Skeleton.Joint(j))
		}
	}
	for f := range ca.Poses {
		if ca.Poses[f].Root != cb.Poses[f].Root {
			t.Fatalf("frame %d root differs", f)
		}
		for j, q := range ca.Poses[f].Rot {
			if q != cb.Poses[f].Rot[j] {
				t.Fatalf("frame %d joint %d: %v vs %v", f, j, q, cb.Poses[f].Rot[j])
			}
		}
	}
}

func TestRenameStrict(t *testing.T) {
	b := readAsset(t, "02_01_walk.bvh")
	// The file already has MotionBuilder names: the permutation-like map
	// would give two Neck1 joints.
	if err := b.Clone().RenameJoints(CMUMaxToMB(), true); err == nil || !strings.Contains(err.Error(), "two joints named \"Neck1\"") {
		t.Errorf("mapping MotionBuilder names again: %v", err)
	}
	toMax, _ := CMUMaxToMB().Inverse()
	if err := b.RenameJoints(toMax, true); err != nil {
		t.Fatal(err)
	}
	b.Joints[3].Name = "Knee"
	b.Joints[7].Name = "Other"
	err := b.RenameJoints(CMUMaxToMB(), true)
	var ue *UnknownJointsError
	if !errors.As(err, &ue) || strings.Join(ue.Names, ",") != "Knee,Other" {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(err.Error(), "2 joint(s) not in the name map: Knee, Other") {
		t.Errorf("message %q", err)
	}
	if b.Joints[2].Name != "LeftHip" {
		t.Error("failed rename modified the BVH")
	}
	// Not strict: unknown joints keep their names.
	if err := b.RenameJoints(NameMap{"Knee": "LeftLeg"}, false); err != nil || b.Joints[3].Name != "LeftLeg" {
		t.Errorf("%v %q", err, b.Joints[3].Name)
	}
	// Two joints onto one name.
	if err := b.RenameJoints(NameMap{"Other": "LeftLeg"}, false); err == nil {
		t.Error("duplicate target accepted")
	}
}

func TestClipRename(t *testing.T) {
	c := walkClip(t)
	r, err := c.Rename(CMUToMakeHuman(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"LeftHandFinger1", "LeftHandFinger1_end", "RightHandFinger1_end", "Head_end"} {
		if _, ok := r.Skeleton.Index(n); !ok {
			t.Errorf("no joint %q", n)
		}
	}
	if _, err := c.Rename(CMUToMakeHuman(), true); err == nil {
		t.Error("strict rename with a partial map accepted")
	}
}

func TestParseNameMap(t *testing.T) {
	text := "# CMU 3ds Max to MotionBuilder\n\nLeftHip LeftUpLeg\r\nNeck = Neck1\n\tlowerneck:\tNeck\n"
	js := `{"LeftHip": "LeftUpLeg", "Neck": "Neck1", "lowerneck": "Neck"}`
	for _, in := range []string{text, js} {
		m, err := ParseNameMap(strings.NewReader(in), "map.txt")
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != 3 || m["LeftHip"] != "LeftUpLeg" || m["Neck"] != "Neck1" || m["lowerneck"] != "Neck" {
			t.Errorf("%q: %v", in, m)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"a b\nc\n", "map.txt:2: want \"from to\", found \"c\""},
		{"a b\na c\n", "map.txt:2: \"a\" mapped twice"},
		{"a b c\n", "map.txt:1:"},
		{"a = b = c\n", "map.txt:1:"},
		{"mixamorig:Hips\n", "map.txt:1:"},
		{"a=\n", "map.txt:1:"},
		{`{"a": 1}`, "map.txt: json"},
		{`{"a": ""}`, "empty joint name"},
	} {
		if _, err := ParseNameMap(strings.NewReader(tc.in), "map.txt"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "m.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadNameMapFile(path); err != nil || len(m) != 3 {
		t.Errorf("%v %v", m, err)
	}
	if _, err := (NameMap{"a": "x", "b": "x"}).Inverse(); err == nil {
		t.Error("non-invertible map inverted")
	}
}

// TestParseNameMapNamespaces: names may hold any character but whitespace
// (Mixamo's "mixamorig:Hips", Blender's "thigh.L", "Armature|Hips"), and
// the separators still read.
func TestParseNameMapNamespaces(t *testing.T) {
	for _, tc := range []struct{ line, from, to string }{
		{"mixamorig:Hips Hips", "mixamorig:Hips", "Hips"},
		{"Hips mixamorig:Hips", "Hips", "mixamorig:Hips"},
		{"mixamorig:LeftArm\tmixamorig1:LeftArm", "mixamorig:LeftArm", "mixamorig1:LeftArm"},
		{"thigh.L -> LeftUpLeg", "thigh.L", "LeftUpLeg"},
		{"Armature|Hips = Hips", "Armature|Hips", "Hips"},
		{"mixamorig:Spine : LowerBack", "mixamorig:Spine", "LowerBack"},
		{"lowerneck: Neck", "lowerneck", "Neck"},
		{"LeftHip, LeftUpLeg", "LeftHip", "LeftUpLeg"},
		{"LeftHip=LeftUpLeg", "LeftHip", "LeftUpLeg"},
	} {
		m, err := ParseNameMap(strings.NewReader(tc.line+"\n"), "map.txt")
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if len(m) != 1 || m[tc.from] != tc.to {
			t.Errorf("%q: %v, want %s -> %s", tc.line, m, tc.from, tc.to)
		}
	}
}

func TestCMUToMixamo(t *testing.T) {
	m := CMUToMixamo()
	for from, to := range map[string]string{
		"Hips": "mixamorig:Hips", "LowerBack": "mixamorig:Spine", "Spine1": "mixamorig:Spine2",
		"RightForeArm": "mixamorig:RightForeArm", "RThumb": "mixamorig:RightHandThumb1",
		"RightHandIndex1": "mixamorig:RightHandIndex1", "Neck1": "Neck1",
	} {
		if m[from] != to {
			t.Errorf("%s -> %q, want %q", from, m[from], to)
		}
	}
	// It covers the whole CMU skeleton, and 3ds Max names through cmu-max.
	c := walkClip(t)
	if _, err := c.Rename(m, true); err != nil {
		t.Error(err)
	}
	if _, err := m.Inverse(); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"mixamorig:LeftArm", "LeftArm"}, {"Armature|Hips", "Hips"}, {"Hips", "Hips"}, {"odd:", "odd:"},
	} {
		if got := BaseName(tc.in); got != tc.want {
			t.Errorf("BaseName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRenameEnds: a 3ds Max CMU export with extra finger end joints
// (LFingers, RFingers, as real exports have) renames with the cmu-max map;
// an unknown end joint is kept and reported; an unknown inner joint is
// still an error.
func TestRenameEnds(t *testing.T) {
	b := readAsset(t, "02_01_walk.bvh")
	toMax, err := CMUMaxToMB().Inverse()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RenameJoints(toMax, true); err != nil {
		t.Fatal(err)
	}
	b = addEndJoint(t, b, "lhand", "LFingers")
	b = addEndJoint(t, b, "rhand", "RFingers")
	b = addEndJoint(t, b, "LeftToe", "LToeTip")
	c, err := b.Clip(CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	r, kept, err := c.RenameEnds(CMUMaxToMB())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(kept, ",") != "LToeTip" {
		t.Errorf("kept %v, want LToeTip", kept)
	}
	for _, n := range []string{"LeftUpLeg", "LFingers", "LToeTip", "LToeTip_end", "Neck1"} {
		if _, ok := r.Skeleton.Index(n); !ok {
			t.Errorf("renamed clip has no %q", n)
		}
	}
	_, _, err = c.RenameEnds(NameMap{"Hips": "Hips"})
	var ue *UnknownJointsError
	if !errors.As(err, &ue) || ue.Names[0] != "LHipJoint" {
		t.Errorf("unknown inner joints: %v", err)
	}
}

// addEndJoint adds a joint named name, with no channels and an End Site,
// as the last child of parent (a finger end joint as exporters add).
func addEndJoint(t *testing.T, b *BVH, parent, name string) *BVH {
	t.Helper()
	p, ok := b.Index(parent)
	if !ok {
		t.Fatalf("no joint %q", parent)
	}
	at := p + 1 // after parent's subtree
	for at < len(b.Joints) && isBelow(b, at, p) {
		at++
	}
	out := b.Clone()
	end := geom.Vec3{X: 0.5}
	jt := BVHJoint{Name: name, Parent: p, Offset: geom.Vec3{X: 0.3}, Channels: []Channel{}, EndSite: &end}
	out.Joints = slices.Insert(out.Joints, at, jt)
	for j := at + 1; j < len(out.Joints); j++ {
		if out.Joints[j].Parent >= at {
			out.Joints[j].Parent++
		}
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	return out
}

func isBelow(b *BVH, j, anc int) bool {
	for ; j >= 0; j = b.Joints[j].Parent {
		if j == anc {
			return true
		}
	}
	return false
}
