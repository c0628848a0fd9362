package layers

import (
	"testing"

	"github.com/pleat-dev/pleat/scene"
)

// benchStep steps an Animator through the clip in a loop on one goroutine
// (one core) and reports frames/s; settling is done before the timer.
func benchStep(b *testing.B, s *scene.Scene) {
	a, err := New(s.Character, s.Garments, Options{FPS: s.Clip.FPS})
	if err != nil {
		b.Fatal(err)
	}
	dst, err := a.Step(s.Clip.Poses[0], nil)
	if err != nil {
		b.Fatal(err)
	}
	n := len(s.Clip.Poses)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok0 := processCPU()
	for i := 0; i < b.N; i++ {
		if dst, err = a.Step(s.Clip.Poses[1+i%(n-1)], dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	// on a shared machine the wall clock counts the neighbours' time too;
	// the process's CPU time is what the loop itself took
	if cpu1, ok1 := processCPU(); ok0 && ok1 && cpu1 > cpu0 {
		b.ReportMetric(float64(b.N)/(cpu1-cpu0).Seconds(), "frames/cpu-s")
	}
	b.ReportMetric(float64(a.NumVerts()), "verts")
}

// BenchmarkStep: the whole outfit, one frame per op (1/30 s).
func BenchmarkStep(b *testing.B) {
	b.Run("procedural", func(b *testing.B) { benchStep(b, proceduralScene(b, "walk", 2)) })
	b.Run("female_elegantsuit01", func(b *testing.B) { benchStep(b, makehumanScene(b, "female_elegantsuit01", "", 2)) })
	b.Run("male_casualsuit02", func(b *testing.B) { benchStep(b, makehumanScene(b, "male_casualsuit02", "", 2)) })
}
