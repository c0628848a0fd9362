package scene

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/skel"
)

// writeGLTFCharacter writes c's body, skeleton and weights as a skinned
// .glb at path (a glTF character as other tools would give it).
func writeGLTFCharacter(t *testing.T, c *character.Character, path string) {
	t.Helper()
	sk := &gltfio.Skeleton{}
	for j := 0; j < c.Skeleton.NumJoints(); j++ {
		jt := c.Skeleton.Joint(j)
		sk.Joints = append(sk.Joints, gltfio.Joint{Name: jt.Name, Parent: jt.Parent, Rest: jt.Rest})
	}
	infl := make([][]gltfio.Influence, len(c.Body.Verts))
	for v := range infl {
		js, ws := c.Weights.Influences(v)
		for k := range js {
			infl[v] = append(infl[v], gltfio.Influence{Joint: js[k], Weight: float64(ws[k])})
		}
	}
	gs := &gltfio.Scene{Skeleton: sk, Meshes: []gltfio.Mesh{{Name: "body", Mesh: c.Body, Skin: &gltfio.Skin{Influences: infl}}}}
	if err := gltfio.WriteFile(path, gs); err != nil {
		t.Fatal(err)
	}
}

// TestGLTFCharacterDressed dresses a glTF character (the grounded MakeHuman
// body written as a skinned .glb) with male_casualsuit02's raw OBJ (no
// .mhclo), a pin group and the CMU walk: the garment is placed, split into
// its two pieces and skinned to finite positions; the .mhclo itself is
// refused with a message that says what to give instead, and so is a pin
// group no garment has.
func TestGLTFCharacterDressed(t *testing.T) {
	dir := assets(t)
	spec := walkSpec(dir)
	spec.Garments = nil
	spec.End = 2
	mh, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	glb := filepath.Join(t.TempDir(), "body.glb")
	writeGLTFCharacter(t, mh.Character, glb)
	suit := filepath.Join(dir, "makehuman/clothes/male_casualsuit02/male_casualsuit02")
	spec = Spec{
		Character: glb,
		Garments:  []string{suit + ".obj"},
		Motion:    filepath.Join(dir, "mocap/cmu/02_01_walk.bvh"),
		End:       30,
	}
	s, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Garments) != 2 || s.Garments[0].Name != "male_casualsuit02#0" {
		t.Fatalf("%d garments, want the suit's 2 pieces", len(s.Garments))
	}
	if !strings.Contains(strings.Join(s.Notes, "\n"), "placed on the body with scale 0.1") {
		t.Errorf("no placement note in %q", s.Notes)
	}
	for f := range s.Clip.Poses {
		_, gar, err := s.Frame(f, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gar {
			for _, v := range g {
				if !v.IsFinite() {
					t.Fatalf("frame %d: non-finite garment vertex", f)
				}
			}
		}
	}
	for _, tc := range []struct {
		garment string
		pins    []string
		want    string
	}{
		{suit + ".mhclo", nil, "give the garment's mesh"},
		{suit + ".obj", []string{"waistband"}, `pin group "waistband": no garment has a group of that name`},
	} {
		spec.Garments, spec.Pins = []string{tc.garment}, tc.pins
		if _, err := Load(spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", filepath.Base(tc.garment), tc.pins, err, tc.want)
		}
	}
}

// TestMixamoRigAndMaxClip drives a glTF character whose joints carry
// Mixamo names (the MakeHuman rig renamed by motion.CMUToMixamo) with the
// CMU walk through the built-in cmu-mixamo map, and the same rig with the
// walk exported under 3ds Max names plus the LFingers/RFingers end joints
// of real 3ds Max files through cmu-max-mixamo: both give the poses of the
// rig with the original names (to 1e-9 m: the joint order of the matching
// differs, and with it the rounding; the arm clearance pass, whose search
// would carry such differences to micrometres, is off).
func TestMixamoRigAndMaxClip(t *testing.T) {
	dir := assets(t)
	spec := walkSpec(dir)
	spec.Garments = nil
	spec.End = 2
	mh, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	plain := filepath.Join(tmp, "plain.glb")
	writeGLTFCharacter(t, mh.Character, plain)
	mix := *mh.Character
	joints := mix.Skeleton.Joints()
	// The rig's finger tips carry MakeHuman's names (LeftHandFinger1):
	// back to CMU's, then to Mixamo's.
	fromMH, _ := motion.CMUToMakeHuman().Inverse()
	toMixamo := fromMH.Then(motion.CMUToMixamo())
	for j := range joints {
		if n, ok := toMixamo[joints[j].Name]; ok {
			joints[j].Name = n
		}
	}
	if mix.Skeleton, err = skel.NewSkeleton(joints); err != nil {
		t.Fatal(err)
	}
	mixamo := filepath.Join(tmp, "mixamo.glb")
	writeGLTFCharacter(t, &mix, mixamo)

	// The walk with 3ds Max names and finger end joints.
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
	maxWalk := filepath.Join(tmp, "walk_max.bvh")
	if err := motion.WriteFile(maxWalk, b); err != nil {
		t.Fatal(err)
	}

	load := func(char, clip, names string) *Scene {
		t.Helper()
		s, err := Load(Spec{Character: char, Motion: clip, NameMap: names, End: 20, ArmClearance: -1})
		if err != nil {
			t.Fatalf("%s with %s (%s): %v", filepath.Base(char), filepath.Base(clip), names, err)
		}
		return s
	}
	walk := filepath.Join(dir, "mocap/cmu/02_01_walk.bvh")
	ref := load(plain, walk, "")
	for i, s := range []*Scene{
		load(mixamo, walk, NameMapCMUMixamo),
		load(mixamo, maxWalk, NameMapCMUMaxMixamo),
		load(plain, maxWalk, NameMapCMUMax),
	} {
		for f := range ref.Clip.Poses {
			a, _, _ := ref.Frame(f, nil, nil)
			b, _, _ := s.Frame(f, nil, nil)
			for v := range a {
				if a[v].Dist(b[v]) > 1e-9 {
					t.Fatalf("case %d frame %d vertex %d: %v, want %v (notes %q)", i, f, v, b[v], a[v], s.Notes)
				}
			}
		}
	}
}

// TestProceduralRefusesGarmentOptions checks that options the procedural
// suit cannot honour are errors naming them, not silently ignored.
func TestProceduralRefusesGarmentOptions(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Seconds: 0.1, Pins: []string{"cuffs"}}, `pin group "cuffs"`},
		{Spec{Seconds: 0.1, GarmentsFromCharacter: []string{"all"}}, "need a .glb/.gltf character"},
	} {
		if _, err := Load(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}
