package wrinkle

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// BenchmarkSynthFrame times the fine-mesh stages of one online frame on
// the procedural shirt with the default spec (46k vertices is issue 19's
// garment): synth (Synthesize, sharing the roles' own meshes with a
// Prealign), prealign (Prealign.Apply onto the coarse mesh) and both, for
// two motions (walk: some roles at rest on grid points; offgrid: every DoF
// between samples) and one or two workers. cpu-ms/frame is the CPU time of
// all the process's threads per frame.
func BenchmarkSynthFrame(b *testing.B) {
	f := getFixture(b)
	for _, motion := range []string{"walk", "offgrid"} {
		for _, stage := range []string{"synth", "prealign", "both"} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("verts=46000/%s/%s/workers=%d", motion, stage, workers), func(b *testing.B) {
					sc := newTransferScene(b, 46000)
					tr, err := NewTransfer(sc.fine, sc.coarse.Mesh, sc.coarse.FinePiece, sc.coarse.VertPiece, TransferOptions{Workers: workers})
					must(b, err)
					defer tr.Close()
					al, err := NewPrealign(sc.db, f.rig, tr)
					must(b, err)
					defer al.Close()
					sy, err := NewSynthesizer(sc.db, f.rig, SynthOptions{Workers: workers})
					must(b, err)
					defer sy.Close()
					must(b, al.Share(sy))
					poses := sc.poses
					if motion == "offgrid" {
						poses = offGridPoses(f.rig, len(sc.poses), rand.New(rand.NewPCG(1, 1)))
					}
					fine := make([]geom.Vec3, sy.NumVerts())
					dst := make([]geom.Vec3, sy.NumVerts())
					frame := func(i int, p skel.Pose) {
						k := i % len(poses)
						if stage != "prealign" || i == 0 {
							_, err := sy.Synthesize(p, fine)
							must(b, err)
						}
						if stage != "synth" {
							must(b, al.Apply(fine, sc.coarseX[k], dst))
						}
					}
					frame(0, poses[0])
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						frame(i, poses[i%len(poses)])
					}
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/frame")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
				})
			}
		}
	}
}

// BenchmarkSynthFramePruned is BenchmarkSynthFrame's walk, both stages,
// on one worker, with the influence maps soft-thresholded by Regions.Pruned
// (none, and the thresholds online.Options.MinInfluence may take): the
// synthesis and the pre-alignment both scale with the role-vertex
// influences and the blend vertices, which pruning removes.
func BenchmarkSynthFramePruned(b *testing.B) {
	f := getFixture(b)
	for _, th := range []float32{0, 0.05, 0.1} {
		b.Run(fmt.Sprintf("verts=46000/walk/both/workers=1/prune=%g", th), func(b *testing.B) {
			sc := newTransferScene(b, 46000)
			db := *sc.db
			if th > 0 {
				var err error
				db.Regions, err = db.Regions.Pruned(th)
				must(b, err)
			}
			tr, err := NewTransfer(sc.fine, sc.coarse.Mesh, sc.coarse.FinePiece, sc.coarse.VertPiece, TransferOptions{Workers: 1})
			must(b, err)
			defer tr.Close()
			al, err := NewPrealign(&db, f.rig, tr)
			must(b, err)
			defer al.Close()
			sy, err := NewSynthesizer(&db, f.rig, SynthOptions{Workers: 1})
			must(b, err)
			defer sy.Close()
			must(b, al.Share(sy))
			fine := make([]geom.Vec3, sy.NumVerts())
			dst := make([]geom.Vec3, sy.NumVerts())
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				k := i % len(sc.poses)
				_, err := sy.Synthesize(sc.poses[k], fine)
				must(b, err)
				must(b, al.Apply(fine, sc.coarseX[k], dst))
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/frame")
		})
	}
}
