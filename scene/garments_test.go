package scene

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/meshio/gltfio"
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
