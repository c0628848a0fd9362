package sim

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/scene"
)

// BenchmarkCoarseFrame runs the coarse case of pleat bench sim (the
// procedural mannequin walking in its shirt and trousers at about 700
// vertices, 30 frames/s) at one and two substeps per frame and reports the
// median wall time of a frame (frames 1.., setup excluded) and its rate.
// One iteration is a whole run of 31 frames.
func BenchmarkCoarseFrame(b *testing.B) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 31})
	if err != nil {
		b.Fatal(err)
	}
	for _, sub := range []int{1, 2} {
		b.Run(fmt.Sprintf("substeps=%d", sub), func(b *testing.B) {
			opt := Options{MaxDt: 1 / (s.Clip.FPS * float64(sub))}
			var walls []time.Duration
			for b.Loop() {
				res, err := Run(context.Background(), s, opt, nil)
				if err != nil {
					b.Fatal(err)
				}
				for _, st := range res.Stats[1:] {
					walls = append(walls, st.Wall)
				}
			}
			slices.Sort(walls)
			med := walls[len(walls)/2].Seconds()
			b.ReportMetric(med*1e3, "ms/frame")
			b.ReportMetric(1/med, "frames/s")
		})
	}
}
