package character

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileMakeHumanInputs: a base.obj cut at a line boundary in its
// faces, a .mhclo whose obj_file climbs out of its folder (or is
// absolute), and a garment OBJ cut short are refused with errors naming
// the file, instead of giving a shredded body or reading any file.
func TestHostileMakeHumanInputs(t *testing.T) {
	dir := mhDir(t)
	tmp := t.TempDir()
	base, err := os.ReadFile(filepath.Join(dir, "body/base.obj"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(base), "\n")
	// Vertices, texture coordinates and 5,000 of the body's faces.
	cutAt := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "f ") {
			cutAt = i + 5000
			break
		}
	}
	cutBase := filepath.Join(tmp, "base.obj")
	if err := os.WriteFile(cutBase, []byte(strings.Join(lines[:cutAt], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	opt, err := FindMakeHuman(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	opt.BaseOBJ = cutBase
	if _, err := LoadMakeHuman(opt); err == nil || !strings.Contains(err.Error(), "base.obj: ") || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("cut base.obj: error %v", err)
	}

	suit := filepath.Join(dir, "clothes/male_casualsuit02")
	mhclo, err := os.ReadFile(filepath.Join(suit, "male_casualsuit02.mhclo"))
	if err != nil {
		t.Fatal(err)
	}
	garment, err := os.ReadFile(filepath.Join(suit, "male_casualsuit02.obj"))
	if err != nil {
		t.Fatal(err)
	}
	glines := strings.SplitAfter(string(garment), "\n")
	sub := filepath.Join(tmp, "clothes", "suit")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "cut.obj"), []byte(strings.Join(glines[:len(glines)*3/4], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	// A real OBJ outside the garment's folder, which must not be read.
	if err := os.WriteFile(filepath.Join(tmp, "outside.obj"), garment, 0o644); err != nil {
		t.Fatal(err)
	}
	c := cmuCharacter(t)
	for _, tc := range []struct{ objFile, want string }{
		{"../../outside.obj", `obj_file: "../../outside.obj" is outside the garment's folder`},
		{"../../../../etc/passwd", "is outside the garment's folder"},
		{filepath.Join(tmp, "outside.obj"), "is outside the garment's folder"},
		{"cut.obj", "cut.obj: 1620 of 2136 vertices are used by no face"},
		{"missing.obj", "suit.mhclo: obj_file: "},
	} {
		text := strings.Replace(string(mhclo), "obj_file male_casualsuit02.obj", "obj_file "+tc.objFile, 1)
		path := filepath.Join(sub, "suit.mhclo")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := c.LoadGarment(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("obj_file %s: error %v, want %q", tc.objFile, err, tc.want)
		}
	}
}
