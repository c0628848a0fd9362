package flow

import (
	"fmt"
	"testing"
)

// BenchmarkCompress measures Compress with k = 32 (binding, bind-space
// residual, Gram PCA, quantisation) on synthetic shirts; the large case is
// the 22k vertices × 301 frames.
func BenchmarkCompress(b *testing.B) {
	for _, c := range []struct {
		res  int
		secs float64
	}{{4000, 2}, {44000, 10}} {
		s := newSynth(b, c.res, c.secs)
		name := fmt.Sprintf("n=%d,m=%d", len(s.anim.Rest.Verts), len(s.anim.Frames))
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var sink *Flow
			for b.Loop() {
				f, err := Compress(s.anim, s.rig, Options{K: 32})
				if err != nil {
					b.Fatal(err)
				}
				sink = f
			}
			b.ReportMetric(float64(sink.Size()), "pflow-bytes")
		})
		b.Run(name+"/decompress", func(b *testing.B) {
			f, err := Compress(s.anim, s.rig, Options{K: 32})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = f.Decompress()
			}
		})
	}
}
