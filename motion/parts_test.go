package motion

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

func TestParsePart(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // Part.String(), "" for not recognised
	}{
		{"Hips", "hips"},
		{"mixamorig:Hips", "hips"},
		{"Bip01 Pelvis", "hips"},
		{"LeftUpLeg", "upleg.L"},
		{"mixamorig:LeftUpLeg", "upleg.L"},
		{"UpperLeg_L", "upleg.L"},
		{"L_Thigh", "upleg.L"},
		{"thigh.L", "upleg.L"},
		{"Bip01 L Thigh", "upleg.L"},
		{"upperleg01.R", "upleg.R"},
		{"RightLeg", "leg.R"},
		{"LowerLeg_R", "leg.R"},
		{"R_Calf", "leg.R"},
		{"shin.R", "leg.R"},
		{"RightKnee", "leg.R"},
		{"LeftAnkle", "foot.L"},
		{"Toes_L", "toe.L"},
		{"LeftToeBase", "toe.L"},
		{"LHipJoint", "hipjoint.L"},
		{"LeftHip", "hipside.L"}, // resolved by Parts
		{"LeftShoulder", "shoulder.L"},
		{"LeftCollar", "clavicle.L"},
		{"UpperArm_L", "arm.L"},
		{"upper_arm.L", "arm.L"},
		{"Bip01 L UpperArm", "arm.L"},
		{"LeftForeArm", "forearm.L"},
		{"LowerArm_L", "forearm.L"},
		{"LeftElbow", "forearm.L"},
		{"LeftWrist", "wrist.L"},
		{"lhand", "hand.L"},
		{"rhand", "hand.R"},
		{"LeftFingerBase", "palm.L"},
		{"LeftHandIndex1", "index1.L"},
		{"LThumb", "thumb1.L"},
		{"mixamorig:RightHandThumb2", "thumb2.R"},
		{"LFingers", "fingers.L"},
		{"lowerback", "spine"},
		{"Chest2", "spine"},
		{"UpperChest", "spine"},
		{"spine.002", "spine"},
		{"lowerneck", "neck"},
		{"Neck1", "neck"},
		{"Bip01 Head", "head"},
		{"Bip01", ""},
		{"Reference", ""},
		{"root", "root"},
		{"HeadTop_End", ""},
		{"", ""},
		{"ring", "ring1"},
		{"LeftHandFinger1", "index1.L"},
		{"Bip01 R Finger0", "thumb1.R"},
		{"Bip01 R Finger02", "thumb3.R"},
		{"Bip01 R Finger1", "index1.R"},
		{"Bip01 R Finger9", ""},
	} {
		p, ok := ParsePart(tc.name)
		got := ""
		if ok {
			got = p.String()
		}
		if got != tc.want {
			t.Errorf("ParsePart(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// cmuMB is the CMU MotionBuilder skeleton (02_01_walk.bvh): name, parent,
// and a rough rest offset (metres) so that bones have lengths.
var cmuMB = []struct {
	name   string
	parent string
	off    geom.Vec3
}{
	{"Hips", "", geom.V(0, 0.95, 0)},
	{"LHipJoint", "Hips", geom.V(0, 0, 0)},
	{"LeftUpLeg", "LHipJoint", geom.V(0.09, -0.1, 0.03)},
	{"LeftLeg", "LeftUpLeg", geom.V(0.02, -0.42, 0)},
	{"LeftFoot", "LeftLeg", geom.V(0.01, -0.4, 0)},
	{"LeftToeBase", "LeftFoot", geom.V(0, -0.03, 0.12)},
	{"RHipJoint", "Hips", geom.V(0, 0, 0)},
	{"RightUpLeg", "RHipJoint", geom.V(-0.09, -0.1, 0.03)},
	{"RightLeg", "RightUpLeg", geom.V(-0.02, -0.42, 0)},
	{"RightFoot", "RightLeg", geom.V(-0.01, -0.4, 0)},
	{"RightToeBase", "RightFoot", geom.V(0, -0.03, 0.12)},
	{"LowerBack", "Hips", geom.V(0, 0.01, 0)},
	{"Spine", "LowerBack", geom.V(0, 0.12, 0)},
	{"Spine1", "Spine", geom.V(0, 0.12, 0)},
	{"Neck", "Spine1", geom.V(0, 0.12, 0)},
	{"Neck1", "Neck", geom.V(0, 0.05, 0)},
	{"Head", "Neck1", geom.V(0, 0.05, 0)},
	{"LeftShoulder", "Spine1", geom.V(0, 0.12, 0)},
	{"LeftArm", "LeftShoulder", geom.V(0.18, 0, 0)},
	{"LeftForeArm", "LeftArm", geom.V(0.28, 0, 0)},
	{"LeftHand", "LeftForeArm", geom.V(0.24, 0, 0)},
	{"LeftFingerBase", "LeftHand", geom.V(0.03, 0, 0)},
	{"LeftHandIndex1", "LeftFingerBase", geom.V(0.05, 0, 0)},
	{"LThumb", "LeftHand", geom.V(0.02, 0, 0.02)},
	{"RightShoulder", "Spine1", geom.V(0, 0.12, 0)},
	{"RightArm", "RightShoulder", geom.V(-0.18, 0, 0)},
	{"RightForeArm", "RightArm", geom.V(-0.28, 0, 0)},
	{"RightHand", "RightForeArm", geom.V(-0.24, 0, 0)},
	{"RightFingerBase", "RightHand", geom.V(-0.03, 0, 0)},
	{"RightHandIndex1", "RightFingerBase", geom.V(-0.05, 0, 0)},
	{"RThumb", "RightHand", geom.V(-0.02, 0, 0.02)},
}

// cmuSkeleton builds the cmuMB skeleton with each name renamed by rename.
func cmuSkeleton(tb testing.TB, rename func(string) string) *skel.Skeleton {
	tb.Helper()
	idx := map[string]int{}
	var js []skel.Joint
	for i, j := range cmuMB {
		idx[j.name] = i
		p := -1
		if j.parent != "" {
			p = idx[j.parent]
		}
		js = append(js, skel.Joint{Name: rename(j.name), Parent: p, Rest: geom.Rigid{R: geom.QuatIdentity(), T: j.off}})
	}
	sk, err := skel.NewSkeleton(js)
	if err != nil {
		tb.Fatal(err)
	}
	return sk
}

// conventions renames the CMU MotionBuilder names into other tools'
// conventions (left side; the right side swaps L/Left for R/Right).
var conventions = map[string]map[string]string{
	"unity": {"Hips": "Hips", "LHipJoint": "HipJoint_L", "LeftUpLeg": "UpperLeg_L", "LeftLeg": "LowerLeg_L",
		"LeftFoot": "Foot_L", "LeftToeBase": "Toes_L", "LowerBack": "Spine", "Spine": "Chest", "Spine1": "UpperChest",
		"Neck": "Neck", "Neck1": "UpperNeck", "Head": "Head", "LeftShoulder": "Shoulder_L", "LeftArm": "UpperArm_L",
		"LeftForeArm": "LowerArm_L", "LeftHand": "Hand_L", "LeftFingerBase": "Palm_L", "LeftHandIndex1": "Index1_L", "LThumb": "Thumb1_L"},
	"blender": {"Hips": "hips", "LHipJoint": "pelvis.L", "LeftUpLeg": "thigh.L", "LeftLeg": "shin.L",
		"LeftFoot": "foot.L", "LeftToeBase": "toe.L", "LowerBack": "spine", "Spine": "spine.001", "Spine1": "spine.002",
		"Neck": "neck", "Neck1": "neck.001", "Head": "head", "LeftShoulder": "shoulder.L", "LeftArm": "upper_arm.L",
		"LeftForeArm": "forearm.L", "LeftHand": "hand.L", "LeftFingerBase": "palm.L", "LeftHandIndex1": "f_index.01.L", "LThumb": "thumb.01.L"},
	"biped": {"Hips": "Bip01 Pelvis", "LHipJoint": "Bip01 L Hip", "LeftUpLeg": "Bip01 L Thigh", "LeftLeg": "Bip01 L Calf",
		"LeftFoot": "Bip01 L Foot", "LeftToeBase": "Bip01 L Toe0", "LowerBack": "Bip01 Spine", "Spine": "Bip01 Spine1", "Spine1": "Bip01 Spine2",
		"Neck": "Bip01 Neck", "Neck1": "Bip01 Neck1", "Head": "Bip01 Head", "LeftShoulder": "Bip01 L Clavicle", "LeftArm": "Bip01 L UpperArm",
		"LeftForeArm": "Bip01 L Forearm", "LeftHand": "Bip01 L Hand", "LeftFingerBase": "Bip01 L Palm", "LeftHandIndex1": "Bip01 L Finger1", "LThumb": "Bip01 L Finger0"},
	"lthigh": {"Hips": "Pelvis", "LHipJoint": "L_HipJoint", "LeftUpLeg": "L_Thigh", "LeftLeg": "L_Calf",
		"LeftFoot": "L_Foot", "LeftToeBase": "L_Toe", "LowerBack": "Spine_01", "Spine": "Spine_02", "Spine1": "Spine_03",
		"Neck": "Neck_01", "Neck1": "Neck_02", "Head": "Head", "LeftShoulder": "L_Clavicle", "LeftArm": "L_UpperArm",
		"LeftForeArm": "L_Forearm", "LeftHand": "L_Hand", "LeftFingerBase": "L_Palm", "LeftHandIndex1": "L_Index1", "LThumb": "L_Thumb1"},
	"mixamo": {"Hips": "mixamorig:Hips", "LHipJoint": "mixamorig:LHipJoint", "LeftUpLeg": "mixamorig:LeftUpLeg", "LeftLeg": "mixamorig:LeftLeg",
		"LeftFoot": "mixamorig:LeftFoot", "LeftToeBase": "mixamorig:LeftToeBase", "LowerBack": "mixamorig:Spine", "Spine": "mixamorig:Spine1", "Spine1": "mixamorig:Spine2",
		"Neck": "mixamorig:Neck", "Neck1": "mixamorig:Neck1", "Head": "mixamorig:Head", "LeftShoulder": "mixamorig:LeftShoulder", "LeftArm": "mixamorig:LeftArm",
		"LeftForeArm": "mixamorig:LeftForeArm", "LeftHand": "mixamorig:LeftHand", "LeftFingerBase": "mixamorig:LeftHandPalm", "LeftHandIndex1": "mixamorig:LeftHandIndex1", "LThumb": "mixamorig:LeftHandThumb1"},
}

// convName renames a CMU MotionBuilder name by convention c.
func convName(c map[string]string, n string) string {
	if v, ok := c[n]; ok {
		return v
	}
	left := strings.NewReplacer("Right", "Left", "RHip", "LHip", "RThumb", "LThumb").Replace(n)
	v, ok := c[left]
	if !ok {
		return n
	}
	return strings.NewReplacer("Left", "Right", "_L", "_R", ".L", ".R", " L ", " R ", "L_", "R_", "LHip", "RHip").Replace(v)
}

func TestAutoMapConventions(t *testing.T) {
	dst := cmuSkeleton(t, func(s string) string { return s })
	max := CMUMaxToMB()
	inv, err := max.Inverse()
	if err != nil {
		t.Fatal(err)
	}
	conv := map[string]func(string) string{"cmu-max": func(s string) string {
		if v, ok := inv[s]; ok {
			return v
		}
		return s
	}}
	for name, c := range conventions {
		conv[name] = func(s string) string { return convName(c, s) }
	}
	fingers := map[string]bool{"LeftHandIndex1": true, "RightHandIndex1": true, "LThumb": true, "RThumb": true}
	for name, rename := range conv {
		src := cmuSkeleton(t, rename)
		m, unmatched, missing := AutoMap(src, dst)
		if len(missing) > 0 {
			t.Errorf("%s: missing %v", name, missing)
		}
		for _, j := range cmuMB {
			got := m[rename(j.name)]
			if got != j.name && !(fingers[j.name] && got == "") {
				t.Errorf("%s: %q maps to %q, want %q", name, rename(j.name), got, j.name)
			}
		}
		for _, u := range unmatched {
			if !strings.Contains(strings.ToLower(u), "finger") && !strings.Contains(strings.ToLower(u), "thumb") && !strings.Contains(strings.ToLower(u), "index") {
				t.Errorf("%s: %q unmatched", name, u)
			}
		}
	}
	// CMU names onto a Mixamo rig: the spines shift by one, and
	// LeftShoulder (a clavicle in both) matches itself.
	mix := cmuSkeleton(t, conv["mixamo"])
	m, _, missing := AutoMap(dst, mix)
	if len(missing) > 0 {
		t.Errorf("cmu -> mixamo: missing %v", missing)
	}
	for from, to := range map[string]string{"LowerBack": "mixamorig:Spine", "Spine": "mixamorig:Spine1", "Spine1": "mixamorig:Spine2", "LeftShoulder": "mixamorig:LeftShoulder", "LeftArm": "mixamorig:LeftArm"} {
		if m[from] != to {
			t.Errorf("cmu -> mixamo: %s maps to %q, want %q", from, m[from], to)
		}
	}
}

func TestAutoMapUnmatched(t *testing.T) {
	dst := cmuSkeleton(t, func(s string) string { return s })
	k := 0
	src := cmuSkeleton(t, func(s string) string {
		k++
		if strings.Contains(s, "Leg") {
			return "bone" + string(rune('a'+k))
		}
		return s
	})
	_, unmatched, missing := AutoMap(src, dst)
	if len(missing) != 4 || len(unmatched) != 4 {
		t.Fatalf("missing %v, unmatched %v", missing, unmatched)
	}
	err := error(&UnmatchedPartsError{Missing: missing, Unmatched: unmatched})
	var ue *UnmatchedPartsError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "upleg.L") || !strings.Contains(err.Error(), "(not recognised)") {
		t.Errorf("error: %v", err)
	}
}

func ExampleParsePart() {
	for _, n := range []string{"mixamorig:LeftUpLeg", "UpperLeg_L", "thigh.L", "Bip01 L Thigh", "L_Thigh"} {
		p, _ := ParsePart(n)
		fmt.Println(n, "->", p)
	}
	// Output:
	// mixamorig:LeftUpLeg -> upleg.L
	// UpperLeg_L -> upleg.L
	// thigh.L -> upleg.L
	// Bip01 L Thigh -> upleg.L
	// L_Thigh -> upleg.L
}

func BenchmarkAutoMap(b *testing.B) {
	src := cmuSkeleton(b, func(s string) string { return convName(conventions["biped"], s) })
	dst := cmuSkeleton(b, func(s string) string { return s })
	b.ReportAllocs()
	for b.Loop() {
		AutoMap(src, dst)
	}
}
