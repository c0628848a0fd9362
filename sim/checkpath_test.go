package sim

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		path, want string // want "" for accepted
	}{
		{"out/a.glb", ""}, {"out/a.GLTF", ""}, {"a.pc2", ""}, {"a.usda", ""}, {"a.usdz", ""},
		{"frames/", ""}, {dir, ""},
		{"a.usdc", "a.usdc: .usdc is not written: write .glb, .gltf, .pc2, .usda, .usdz or a folder/ of OBJ frames"},
		{"a.fbx", ".fbx is not written"},
		{filepath.Join(dir, "none"), "none: no extension"},
	} {
		err := CheckPath(tc.path)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckPath(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
}
