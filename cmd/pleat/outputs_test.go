package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownOutputFailsFirst: an --out extension no writer takes fails
// before anything is loaded or simulated, naming the flag and the
// extensions that are taken, and writes nothing.
func TestUnknownOutputFailsFirst(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--out", filepath.Join(dir, "a.usdc")}, "--out: " + filepath.Join(dir, "a.usdc") + ": .usdc is not written: write .glb, .gltf, .pc2, .usda, .usdz or a folder/"},
		{[]string{"simulate", "--out", filepath.Join(dir, "a.FBX")}, ".fbx is not written"},
		{[]string{"simulate", "--out", filepath.Join(dir, "noext")}, "no extension: write .glb"},
		{[]string{"simulate", "--motion", "/nonexistent.bvh", "--out", filepath.Join(dir, "a.abc")}, "--out: "},
		{[]string{"synth", "--db", "/nonexistent.pdb", "--out", filepath.Join(dir, "a.fbx")}, "--out: " + filepath.Join(dir, "a.fbx") + ": .fbx is not written"},
		{[]string{"pose", "--out", filepath.Join(dir, "a.usda")}, "pose writes .glb or .gltf"},
		{[]string{"convert", "/nonexistent.obj", filepath.Join(dir, "a.fbx")}, "OUT " + filepath.Join(dir, "a.fbx") + ": convert writes .obj, .ply, .glb or .gltf"},
		{[]string{"convert", "/nonexistent.obj", filepath.Join(dir, "a.pc2")}, "convert writes"},
	} {
		_, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("wrote %s", e.Name())
	}
}

// TestOutputFoldersMade: convert, compress and decompress create the
// folders of their outputs, as every other command does.
func TestOutputFoldersMade(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "tri.obj")
	if err := os.WriteFile(src, []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"a/b/tri.ply", "c/tri.glb"} {
		if _, err := run(t, "convert", src, filepath.Join(dir, out)); err != nil {
			t.Errorf("convert to %s: %v", out, err)
		} else if _, err := os.Stat(filepath.Join(dir, out)); err != nil {
			t.Error(err)
		}
	}
}
