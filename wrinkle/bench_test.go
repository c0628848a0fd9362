package wrinkle

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/pleat-dev/pleat/character/procedural"
	"github.com/pleat-dev/pleat/geom"
)

// BenchmarkSynthesize times one frame of Synthesize (interpolation and
// blending) on the procedural shirt with the default spec's 519 samples
// (fake settles), over garment sizes.
func BenchmarkSynthesize(b *testing.B) {
	f := getFixture(b)
	for _, n := range []int{2000, 10000} {
		b.Run(fmt.Sprintf("verts=%d", n), func(b *testing.B) {
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
			s, err := NewSynthesizer(db, f.rig, SynthOptions{})
			must(b, err)
			b.Logf("%d vertices, %d samples: file %d KiB, synthesizer %d MiB",
				len(shirt.Mesh.Verts), spec.NumSamples(), buf.Cap()/1024, s.MemoryBytes()>>20)
			poses := walkPoses(f.rig, 16)
			dst := make([]geom.Vec3, s.NumVerts())
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Synthesize(poses[i%len(poses)], dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(shirt.Mesh.Verts)), "ns/vert")
		})
	}
}
