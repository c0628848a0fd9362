package sim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
)

// TestStepAllocs checks that a Step of a small garment allocates nothing
// once running, as the online pipeline steps its coarse garment (BDF2, no
// penetration measure, the next pose told by Ahead, the frame reused), on
// one worker and on two.
func TestStepAllocs(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 24})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			opt := sim.Options{FPS: s.Clip.FPS, Integrator: cloth.BDF2, NoPenetration: true, Workers: workers}
			simr, err := sim.New(s.Character, s.Garments, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer simr.Close()
			ctx := context.Background()
			poses := s.Clip.Poses
			var frame sim.Frame
			if _, err := simr.SettleTo(ctx, poses[0], sim.SettleOptions{}, &frame); err != nil {
				t.Fatal(err)
			}
			f := 1
			step := func() {
				if f+1 < len(poses) {
					simr.Ahead(poses[f+1])
				}
				if err := simr.Step(ctx, poses[f], &frame); err != nil {
					t.Fatal(err)
				}
				f++
			}
			for range 8 { // warm-up: buffers grow, the pacer probes
				step()
			}
			if n := testing.AllocsPerRun(10, step); n > 0 {
				t.Errorf("%.1f allocations per Step", n)
			}
		})
	}
}
