package scene

import (
	"path/filepath"
	"testing"

	pleatassets "github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/skel"
)

// BenchmarkClearArms times the arm clearance of the CMU walk on the
// MakeHuman body (at the clip's own frame rate), from the clip as loaded.
func BenchmarkClearArms(b *testing.B) {
	dir := pleatassets.Dir()
	if dir == "" {
		b.Skip("PLEAT_ASSETS not set: the benchmark needs the shared assets")
	}
	s, err := Load(Spec{Character: filepath.Join(dir, "makehuman"), Motion: filepath.Join(dir, "mocap", "cmu", "02_01_walk.bvh"), ArmClearance: -1})
	if err != nil {
		b.Fatal(err)
	}
	orig := make([]skel.Pose, len(s.Clip.Poses))
	for i, p := range s.Clip.Poses {
		orig[i] = p.Clone()
	}
	b.ReportMetric(float64(len(orig)), "frames")
	b.ResetTimer()
	for b.Loop() {
		for i := range orig {
			s.Clip.Poses[i] = orig[i].Clone()
		}
		if _, ok, err := s.ClearArms(0.02); err != nil || !ok {
			b.Fatalf("ClearArms: ok %v, err %v", ok, err)
		}
	}
}
