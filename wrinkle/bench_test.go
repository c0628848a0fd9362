package wrinkle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/character/procedural"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// benchDB caches, per shirt size, the database of the default spec's 519
// samples (fake settles): building one at 46k vertices takes a while.
var benchDB struct {
	sync.Mutex
	db  map[int]*DB
	kib map[int]int
}

func benchDatabase(b testing.TB, n int) (*DB, int) {
	benchDB.Lock()
	defer benchDB.Unlock()
	if db := benchDB.db[n]; db != nil {
		return db, benchDB.kib[n]
	}
	f := getFixture(b)
	shirt, err := procedural.Shirt(f.body, procedural.GarmentOptions{TargetVerts: n})
	must(b, err)
	spec := DefaultSpec()
	in := BuildInput{Rig: f.rig, Spec: spec, Garment: shirt.Mesh, Weights: shirt.Weights}
	bd, err := NewBuild(in)
	must(b, err)
	var recs []Record
	for k := 0; k < spec.NumSamples(); k++ {
		s, _ := spec.Sample(k)
		r, err := bd.EncodeSample(k, fakeSettle(f.rig, shirt.Mesh, shirt.Weights, s), SampleStats{Converged: true})
		must(b, err)
		recs = append(recs, r)
	}
	var buf bytes.Buffer
	must(b, bd.WriteDB(&buf, recs))
	db, err := Read(&buf)
	must(b, err)
	if benchDB.db == nil {
		benchDB.db, benchDB.kib = map[int]*DB{}, map[int]int{}
	}
	benchDB.db[n], benchDB.kib[n] = db, buf.Cap()/1024
	return db, buf.Cap() / 1024
}

// offGridPoses is a deterministic motion that moves every role's every
// DoF off the sampled grid (as motion capture does), within and beyond
// the sampled ranges.
func offGridPoses(rig *Rig, n int, rnd *rand.Rand) []skel.Pose {
	out := make([]skel.Pose, n)
	for i := range out {
		p := skel.RestPose(rig.Skeleton)
		p.Root = geom.V(0, 0, 0.01*float64(i))
		for r := Role(0); r < NumRoles; r++ {
			var a DoFs
			for d := 0; d < r.NumDoF(); d++ {
				a[d] = (rnd.Float64()*140 - 20) * deg
				if d > 0 {
					a[d] = (rnd.Float64()*80 - 40) * deg
				}
			}
			_ = rig.SetRole(&p, r, a)
		}
		out[i] = p
	}
	return out
}

// BenchmarkSynthesize times one frame of Synthesize (interpolation and
// blending) on the procedural shirt with the default spec's 519 samples
// (fake settles), over garment sizes (46k is issue 19's garment), worker
// counts and two motions: walk (walkPoses: three roles stay at rest, on
// grid points) and offgrid (offGridPoses: every DoF between samples, as
// in motion capture). cpu-ms/frame is the CPU time of all the process's
// threads per frame.
func BenchmarkSynthesize(b *testing.B) {
	f := getFixture(b)
	for _, n := range []int{2000, 10000, 46000} {
		for _, motion := range []string{"walk", "offgrid"} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("verts=%d/%s/workers=%d", n, motion, workers), func(b *testing.B) {
					db, kib := benchDatabase(b, n)
					s, err := NewSynthesizer(db, f.rig, SynthOptions{Workers: workers})
					must(b, err)
					defer s.Close()
					b.Logf("%d vertices, %d samples: file %d KiB, synthesizer %d MiB",
						len(db.Rest), len(db.Samples), kib, s.MemoryBytes()>>20)
					poses := walkPoses(f.rig, 16)
					if motion == "offgrid" {
						poses = offGridPoses(f.rig, 16, rand.New(rand.NewPCG(1, 1)))
					}
					dst := make([]geom.Vec3, s.NumVerts())
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						if _, err := s.Synthesize(poses[i%len(poses)], dst); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(db.Rest)), "ns/vert")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/frame")
				})
			}
		}
	}
}
