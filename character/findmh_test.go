package character

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindMakeHumanBadWeightsRig checks that a malformed default.mhskel
// (the rig the weights were made for) is an error naming it, not a silent
// fall-back to the default weights file.
func TestFindMakeHumanBadWeightsRig(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"body/base.obj":            "v 0 0 0\n",
		"rigs/cmu_mb.mhskel":       "{}",
		"rigs/default.mhskel":      "{ not json",
		"rigs/default_weights.mhw": "{}",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := FindMakeHuman(dir, "")
	if err == nil {
		t.Fatal("a malformed default.mhskel was accepted")
	}
	if !strings.Contains(err.Error(), "default.mhskel") {
		t.Errorf("error %q does not name default.mhskel", err)
	}
	t.Log(err)
}
