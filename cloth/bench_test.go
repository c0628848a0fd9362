package cloth

import (
	"fmt"
	"testing"
)

// BenchmarkStep times one 1/30 s frame of a hanging denim sheet (one
// implicit Euler substep of 1/30 s per frame), after 15 warm-up frames so the
// sheet is swinging.
func BenchmarkStep(b *testing.B) {
	for _, tc := range []struct {
		n     int
		model Model
	}{{26, WeftWarp}, {26, MassSpring}, {158, WeftWarp}, {158, MassSpring}} {
		name := fmt.Sprintf("verts=%d/%s", (tc.n+1)*(tc.n+1), map[Model]string{WeftWarp: "weftwarp", MassSpring: "massspring"}[tc.model])
		b.Run(name, func(b *testing.B) {
			s, err := SheetScene(Material{Model: tc.model, Fabric: Denim()}, tc.n, tc.n, Options{MaxDt: 1.0 / 30})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Run(0.5, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			its, sub := 0, 0
			for i := 0; i < b.N; i++ {
				st, err := s.Cloth.Step(1.0 / 30)
				if err != nil {
					b.Fatal(err)
				}
				its += st.CGIterations
				sub += st.Substeps
			}
			b.ReportMetric(float64(its)/float64(b.N), "cg-iters/frame")
			b.ReportMetric(float64(sub)/float64(b.N), "substeps/frame")
		})
	}
}
