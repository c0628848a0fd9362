package wrinkle

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/character/procedural"
	"github.com/pleat-dev/pleat/geom"
)

// benchDB caches, per shirt size, the database of the default spec's 519
// samples (fake settles): building one at 46k vertices takes a while.
var benchDB struct {
	sync.Mutex
	db  map[int]*DB
	kib map[int]int
}

func benchDatabase(b *testing.B, n int) (*DB, int) {
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

// BenchmarkSynthesize times one frame of Synthesize (interpolation and
// blending) on the procedural shirt with the default spec's 519 samples
// (fake settles), over garment sizes (46k is issue 19's garment) and
// worker counts. cpu-ms/frame is the CPU time of all the process's
// threads per frame.
func BenchmarkSynthesize(b *testing.B) {
	f := getFixture(b)
	for _, n := range []int{2000, 10000, 46000} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("verts=%d/workers=%d", n, workers), func(b *testing.B) {
				db, kib := benchDatabase(b, n)
				s, err := NewSynthesizer(db, f.rig, SynthOptions{Workers: workers})
				must(b, err)
				defer s.Close()
				b.Logf("%d vertices, %d samples: file %d KiB, synthesizer %d MiB",
					len(db.Rest), len(db.Samples), kib, s.MemoryBytes()>>20)
				poses := walkPoses(f.rig, 16)
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
