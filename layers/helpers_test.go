package layers

import (
	"path/filepath"
	"testing"

	pleatassets "github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/scene"
)

// assets returns $PLEAT_ASSETS or skips.
func assets(t testing.TB) string {
	d := pleatassets.Dir()
	if d == "" {
		t.Skip("PLEAT_ASSETS not set: skipping the MakeHuman outfits")
	}
	return d
}

func proceduralScene(t testing.TB, motion string, seconds float64) *scene.Scene {
	t.Helper()
	s, err := scene.Load(scene.Spec{Motion: motion, Seconds: seconds, FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func makehumanScene(t testing.TB, garment, motion string, seconds float64) *scene.Scene {
	t.Helper()
	d := assets(t)
	s, err := scene.Load(scene.Spec{Character: filepath.Join(d, "makehuman"), Garments: []string{garment},
		Motion: motion, FPS: 30, Seconds: seconds, Ground: scene.GroundContact})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
