package scene

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/motion"
)

// TestWarnings: the notes a user must act on are in Warnings (and still
// in Notes, in order); the notes that need nothing are not.
func TestWarnings(t *testing.T) {
	dir := assets(t)
	walk := filepath.Join(dir, "mocap/cmu/02_01_walk.bvh")
	b, err := motion.ReadFile(walk)
	if err != nil {
		t.Fatal(err)
	}
	bad := b.Clone()
	if err := bad.RenameJoints(motion.NameMap{"LThumb": "prop7"}, false); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	badPath := filepath.Join(tmp, "prop.bvh")
	if err := motion.WriteFile(badPath, bad); err != nil {
		t.Fatal(err)
	}
	suit := filepath.Join(dir, "makehuman/clothes/male_casualsuit02/male_casualsuit02.obj")
	far := &character.Placement{Scale: 1, Offset: geom.Vec3{Z: 0.1}}
	cases := []struct {
		name  string
		spec  Spec
		warns []string // substrings, one per expected warning
	}{
		{"walk", Spec{Character: filepath.Join(dir, "makehuman"), Motion: walk, End: 5, ArmClearance: -1}, nil},
		{"suit fitted", Spec{Character: filepath.Join(dir, "makehuman"), Motion: walk, End: 5, Garments: []string{suit}}, nil},
		{"joint left out", Spec{Character: filepath.Join(dir, "makehuman"), Motion: badPath, End: 5, ArmClearance: -1},
			[]string{"prop7"}},
		{"garment far", Spec{Character: filepath.Join(dir, "makehuman"), Motion: walk, End: 5, ArmClearance: -1,
			Garments: []string{suit}, GarmentPlace: far}, []string{"male_casualsuit02.obj: its vertices are"}},
	}
	for _, c := range cases {
		s, err := Load(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(s.Warnings) != len(c.warns) {
			t.Errorf("%s: warnings %q, want %d", c.name, s.Warnings, len(c.warns))
			continue
		}
		notes := strings.Join(s.Notes, "\n")
		for i, w := range c.warns {
			if !strings.Contains(s.Warnings[i], w) || !strings.Contains(notes, s.Warnings[i]) {
				t.Errorf("%s: warning %q, want %q in it and in the notes", c.name, s.Warnings[i], w)
			}
		}
	}
}
