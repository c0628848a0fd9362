package scene

import (
	"math"
	"path/filepath"
	"testing"

	pleatassets "github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/skel"
)

// ClearArms on the clips the tests have: the hands and forearms end at
// least the margin, and the lower upper arms UpperArmClearance (less the
// bisection's resolution) from the torso and legs, and the pass reports
// what it changed.
func TestClearArms(t *testing.T) {
	type tc struct {
		name string
		spec func(t *testing.T) Spec
		// moves: whether the clip needs the pass.
		moves bool
	}
	cases := []tc{
		{"procedural walk", func(t *testing.T) Spec { return Spec{End: 40, ArmClearance: -1} }, false},
		{"MakeHuman CMU walk", func(t *testing.T) Spec {
			dir := pleatassets.Dir()
			if dir == "" {
				t.Skip("PLEAT_ASSETS not set: the MakeHuman case needs the shared assets")
			}
			return Spec{Character: filepath.Join(dir, "makehuman"), Motion: filepath.Join(dir, "mocap", "cmu", "02_01_walk.bvh"), FPS: 30, ArmClearance: -1}
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load(c.spec(t))
			if err != nil {
				t.Fatal(err)
			}
			before := append([]skel.Pose(nil), s.Clip.Poses...)
			for i := range before {
				before[i] = before[i].Clone()
			}
			const margin = 0.02
			rep, ok, err := s.ClearArms(margin)
			if err != nil || !ok {
				t.Fatalf("ClearArms: ok %v, err %v", ok, err)
			}
			t.Logf("%+v (max %.1f°)", rep, rep.MaxAngle*180/math.Pi)
			if rep.WorstAfter < math.Min(margin, rep.WorstBefore)-0.002 {
				t.Errorf("closest after %.1f mm, before %.1f mm, margin %.0f mm", rep.WorstAfter*1000, rep.WorstBefore*1000, margin*1000)
			}
			if rep.UpperAfter < math.Min(UpperArmClearance, rep.UpperBefore)-0.002 {
				t.Errorf("upper arm: closest after %.1f mm, before %.1f mm, margin %.0f mm", rep.UpperAfter*1000, rep.UpperBefore*1000, UpperArmClearance*1000)
			}
			if math.IsInf(rep.UpperBefore, 1) {
				t.Errorf("no upper-arm skin tested")
			}
			if c.moves && (rep.Frames == 0 || rep.WorstBefore >= 0) {
				t.Errorf("expected the clip to need the pass: %+v", rep)
			}
			if rep.MaxAngle > armMaxAngle+1e-9 {
				t.Errorf("abduction %.1f° beyond the cap", rep.MaxAngle*180/math.Pi)
			}
			if rep.Frames == 0 {
				for f := range before {
					for j := range before[f].Rot {
						if before[f].Rot[j] != s.Clip.Poses[f].Rot[j] {
							t.Fatalf("frame %d joint %d changed without a reported frame", f, j)
						}
					}
				}
			}
		})
	}
}

// A rig without recognisable upper-arm joints is left alone.
func TestClearArmsNoArms(t *testing.T) {
	s, err := Load(Spec{End: 5, ArmClearance: -1})
	if err != nil {
		t.Fatal(err)
	}
	js := s.Character.Skeleton.Joints()
	renamed := make([]skel.Joint, len(js))
	copy(renamed, js)
	for i := range renamed {
		renamed[i].Name = "j" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	sk, err := skel.NewSkeleton(renamed)
	if err != nil {
		t.Fatal(err)
	}
	s.Character.Skeleton = sk
	if _, ok, err := s.ClearArms(0.02); ok || err != nil {
		t.Errorf("ok %v, err %v; want not applicable", ok, err)
	}
}
