package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/scene"
)

// TestDescribeSceneWarnings: the scene's warnings go to the error writer
// as "warning: ..." lines and not to the notes on the output.
func TestDescribeSceneWarnings(t *testing.T) {
	s, err := scene.Load(scene.Spec{Seconds: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	const w = "motion: 1 clip joint(s) match no rig joint and are left out: prop7"
	s.Notes = append(s.Notes, w, "last note")
	s.Warnings = append(s.Warnings, w)
	var out, errw bytes.Buffer
	describeScene(&out, s, &errw)
	if strings.Contains(out.String(), "prop7") || !strings.Contains(out.String(), "note       last note") {
		t.Errorf("output:\n%s", out.String())
	}
	if errw.String() != "warning: "+w+"\n" {
		t.Errorf("stderr %q", errw.String())
	}
}
