package motion

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCMUMaxToMB(t *testing.T) {
	m := CMUMaxToMB()
	if len(m) != 31 {
		t.Errorf("%d entries, want 31", len(m))
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
