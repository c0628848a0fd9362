package scene

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/motion"
)

// unityNames renames the CMU MotionBuilder joints UpperLeg_L-style (left
// side; the right side swaps _L for _R).
var unityNames = map[string]string{
	"LHipJoint": "HipJoint_L", "LeftUpLeg": "UpperLeg_L", "LeftLeg": "LowerLeg_L", "LeftFoot": "Foot_L",
	"LeftToeBase": "Toes_L", "LowerBack": "Spine", "Spine": "Chest", "Spine1": "UpperChest", "Neck1": "UpperNeck",
	"LeftShoulder": "Shoulder_L", "LeftArm": "UpperArm_L", "LeftForeArm": "LowerArm_L", "LeftHand": "Hand_L",
	"LeftFingerBase": "Palm_L", "LeftHandIndex1": "Index1_L", "LThumb": "Thumb1_L",
}

func unityMap() motion.NameMap {
	m := motion.NameMap{}
	for k, v := range unityNames {
		m[k] = v
		switch {
		case strings.HasPrefix(k, "Left"):
			m["Right"+k[4:]] = strings.TrimSuffix(v, "_L") + "_R"
		case strings.HasPrefix(k, "L"):
			m["R"+k[1:]] = strings.TrimSuffix(v, "_L") + "_R"
		}
	}
	return m
}

// sixChannelBVH gives every joint of b position channels holding its
// offset (as exporters that key every channel write them).
func sixChannelBVH(b *motion.BVH) *motion.BVH {
	out := b.Clone()
	off := b.ChannelOffsets()
	for j := 1; j < len(out.Joints); j++ {
		out.Joints[j].Channels = append([]motion.Channel{motion.Xposition, motion.Yposition, motion.Zposition}, out.Joints[j].Channels...)
	}
	for f, fr := range b.Frames {
		var nf []float64
		for j, jt := range b.Joints {
			if j > 0 {
				nf = append(nf, jt.Offset.X, jt.Offset.Y, jt.Offset.Z)
			}
			nf = append(nf, fr[off[j]:off[j]+len(jt.Channels)]...)
		}
		out.Frames[f] = nf
	}
	return out
}

// TestAutoNamesSixChannels is the second done-when check: the
// CMU walk with every joint keyed on six channels and its joints named
// UpperLeg_L-style drives the MakeHuman body with no name map, giving the
// poses of the walk as it is; a clip whose legs carry unknown names is one
// error listing what could not be matched.
func TestAutoNamesSixChannels(t *testing.T) {
	dir := assets(t)
	walk := filepath.Join(dir, "mocap/cmu/02_01_walk.bvh")
	b, err := motion.ReadFile(walk)
	if err != nil {
		t.Fatal(err)
	}
	b6 := sixChannelBVH(b)
	if err := b6.RenameJoints(unityMap(), false); err != nil {
		t.Fatal(err)
	}
	for _, jt := range b6.Joints {
		if len(jt.Channels) != 6 {
			t.Fatalf("joint %s has %d channels", jt.Name, len(jt.Channels))
		}
	}
	tmp := t.TempDir()
	renamed := filepath.Join(tmp, "walk_unity6.bvh")
	if err := motion.WriteFile(renamed, b6); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Character: filepath.Join(dir, "makehuman"), Motion: walk, End: 40, ArmClearance: -1}
	ref, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Motion = renamed
	got, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	if got.ClipMatch["UpperLeg_L"] != "LeftUpLeg" || got.ClipMatch["Index1_R"] != "RightHandFinger1" || ref.ClipMatch["LeftUpLeg"] != "LeftUpLeg" {
		t.Errorf("ClipMatch %v", got.ClipMatch)
	}
	notes := strings.Join(got.Notes, "\n")
	if !strings.Contains(notes, "file unit cmu") || !strings.Contains(notes, "matched to rig joints of other names by body part") {
		t.Errorf("notes %q", got.Notes)
	}
	for f := range ref.Clip.Poses {
		a, _, _ := ref.Frame(f, nil, nil)
		c, _, _ := got.Frame(f, nil, nil)
		for v := range a {
			if a[v].Dist(c[v]) > 1e-9 {
				t.Fatalf("frame %d vertex %d: %v, want %v", f, v, c[v], a[v])
			}
		}
	}

	// Legs named beyond recognition: one error naming the rig's parts and
	// the clip's joints.
	bad := b.Clone()
	if err := bad.RenameJoints(motion.NameMap{"LeftUpLeg": "bone7", "LeftLeg": "bone8", "RightUpLeg": "bone9"}, false); err != nil {
		t.Fatal(err)
	}
	badPath := filepath.Join(tmp, "bad_names.bvh")
	if err := motion.WriteFile(badPath, bad); err != nil {
		t.Fatal(err)
	}
	spec.Motion = badPath
	_, err = Load(spec)
	for _, want := range []string{"bad_names.bvh", "upleg.L, upleg.R, leg.L", "bone7 (not recognised)", "give a name map"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// TestZUpCentimetreClip: the walk turned Z-up and written in centimetres
// is read with its unit and axis detected and gives the same poses; with
// --units and --up given too.
func TestZUpCentimetreClip(t *testing.T) {
	dir := assets(t)
	walk := filepath.Join(dir, "mocap/cmu/02_01_walk.bvh")
	b, err := motion.ReadFile(walk)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.Clip(motion.CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	zc, err := c.Rotated(geom.QuatAxisAngle(geom.V(1, 0, 0), 1.5707963267948966))
	if err != nil {
		t.Fatal(err)
	}
	bz, err := zc.BVH(motion.OrderZYX, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "walk_zup_cm.bvh")
	if err := motion.WriteFile(path, bz); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Character: filepath.Join(dir, "makehuman"), Motion: walk, End: 30, ArmClearance: -1}
	ref, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range []Spec{{}, {Units: 0.01, Up: motion.UpZ}} {
		spec.Motion, spec.Units, spec.Up = path, sp.Units, sp.Up
		got, err := Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Units == 0 && !strings.Contains(strings.Join(got.Notes, "\n"), "up axis z, file unit cm = 0.01 m detected from the rest skeleton") {
			t.Errorf("notes %q", got.Notes)
		}
		for f := range ref.Clip.Poses {
			a, _, _ := ref.Frame(f, nil, nil)
			g, _, _ := got.Frame(f, nil, nil)
			for v := range a {
				if a[v].Dist(g[v]) > 1e-6 {
					t.Fatalf("units %g up %v: frame %d vertex %d: %v, want %v", sp.Units, sp.Up, f, v, g[v], a[v])
				}
			}
		}
	}
}

// TestGarmentsFromCharacter writes the dressed MakeHuman walk as a glb
// (body and suit, skinned, as pleat pose does) and loads it back as a glTF
// character wearing the suit from its own file: all of it, or by name.
func TestGarmentsFromCharacter(t *testing.T) {
	dir := assets(t)
	spec := walkSpec(dir)
	spec.End = 2
	mh, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := mh.GLTF("walk")
	if err != nil {
		t.Fatal(err)
	}
	glb := filepath.Join(t.TempDir(), "dressed.glb")
	if err := gltfio.WriteFile(glb, gs); err != nil {
		t.Fatal(err)
	}
	want := len(mh.Garments[0].Mesh.Verts)
	for _, names := range [][]string{{"all"}, {mh.Garments[0].Name}} {
		s, err := Load(Spec{Character: glb, GarmentsFromCharacter: names, Motion: spec.Motion, End: 10})
		if err != nil {
			t.Fatalf("%v: %v", names, err)
		}
		if len(s.Garments) != 2 {
			t.Fatalf("%v: %d garments, want the suit's 2 pieces", names, len(s.Garments))
		}
		n := 0
		for _, g := range s.Garments {
			n += len(g.Mesh.Verts)
			// At rest, the pieces sit where the suit was.
			for _, v := range g.Mesh.Verts {
				best := 1e9
				for _, u := range mh.Garments[0].Mesh.Verts {
					best = min(best, u.Dist(v))
				}
				if best > 1e-5 {
					t.Fatalf("%v: garment vertex %v is %.3g m from the suit", names, v, best)
				}
			}
		}
		if n != want {
			t.Errorf("%v: %d garment vertices, want %d", names, n, want)
		}
		if len(s.Character.Body.Verts) != len(mh.Character.Body.Verts) {
			t.Errorf("%v: body has %d vertices, want %d", names, len(s.Character.Body.Verts), len(mh.Character.Body.Verts))
		}
		if !strings.Contains(strings.Join(s.Notes, "\n"), "garments from dressed.glb") {
			t.Errorf("notes %q", s.Notes)
		}
	}
	if _, err := Load(Spec{Character: glb, GarmentsFromCharacter: []string{"cape"}, Motion: spec.Motion}); err == nil ||
		!strings.Contains(err.Error(), `no garment mesh named "cape"; its meshes: "body"`) {
		t.Errorf("missing mesh: %v", err)
	}
	if _, err := Load(Spec{Character: glb, GarmentsFromCharacter: []string{"body", mh.Garments[0].Name}, Motion: spec.Motion}); err == nil ||
		!strings.Contains(err.Error(), "no skinned mesh is left for the body") {
		t.Errorf("no body: %v", err)
	}
}
