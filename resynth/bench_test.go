package resynth

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// BenchmarkViterbi times matching and Viterbi (the paper's "Finding a
// Sequence") of a 600-frame motion against a 1,500-frame database; the
// issue's target is under 1 s. The database's nearest neighbours are
// built once, outside the timing (New).
func BenchmarkViterbi(b *testing.B) {
	db := tubeDB(4, 6, 375) // 4 clips × 375 = 1,500 frames
	s, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	motion := tubeClip("new", &db.Garment, &db.Rig, 600, func(t float64) float64 { return 0.2 * math.Sin(1.3*t) }, func(t float64) float64 { return 0.5 + 0.4*math.Sin(2*t) })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tp, tv := s.fs.compute(motion.Joints, 30)
		u := s.ix.unary(tp, tv, len(motion.Joints), s.pool)
		if _, err := s.ix.viterbi(context.Background(), u, len(motion.Joints), s.opt.Jump, s.opt.Skip); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew times preparing a 1,500-frame database (features, nearest
// neighbours, factoring the Poisson system).
func BenchmarkNew(b *testing.B) {
	db := tubeDB(4, 6, 375)
	for i := 0; i < b.N; i++ {
		s, err := New(db, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkReconstruct times rebuilding frames of a 5,000-vertex tube
// from database blends: single frames (a block's interior), two-frame
// fractional blends and 5-frame transition windows. frames/s is the
// figure the target (200 frames/s on 2 cores) is about.
func BenchmarkReconstruct(b *testing.B) {
	db := tubeDB(100, 50, 20) // 5,000 vertices, 9,900 triangles
	s, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const nt = 64
	joints := make([][]geom.Rigid, nt)
	for f := range joints {
		joints[f] = tubeJoints(0.1*float64(f)/nt, 0.3+0.2*float64(f)/nt)
	}
	for _, kind := range []string{"single", "pair", "window"} {
		blends := make([][]blend, nt)
		for f := range blends {
			i := int32(f % 18)
			switch kind {
			case "single":
				blends[f] = []blend{{i, 1}}
			case "pair":
				blends[f] = []blend{{i, 0.6}, {i + 1, 0.4}}
			case "window":
				blends[f] = []blend{{i, 0.2}, {i + 1, 0.3}, {i + 21, 0.2}, {i + 22, 0.3}}
			}
		}
		b.Run(fmt.Sprintf("%s/verts=%d", kind, len(db.Garment.Rest)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.reconstruct(context.Background(), blends, joints, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(nt*b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}

// BenchmarkSolve times one Poisson solve (three coordinates) of the
// 5,000-vertex tube.
func BenchmarkSolve(b *testing.B) {
	db := tubeDB(100, 50, 2)
	s, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rhs := make([]float64, 3*s.nverts)
	x := make([]geom.Vec3, s.nverts)
	b.ReportMetric(float64(s.sys.envelopeSize()), "envelope")
	for i := 0; i < b.N; i++ {
		for k := range rhs {
			rhs[k] = float64(k % 7)
		}
		s.sys.solve(rhs, x)
	}
}

// BenchmarkRun times a whole resynthesis of a 600-frame motion from a
// 1,500-frame database of the 5,000-vertex tube: matching, Viterbi,
// resampling and reconstruction with the path's own mix of single frames,
// fractional blends and transition windows.
func BenchmarkRun(b *testing.B) {
	db := tubeDB(100, 50, 375)
	s, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	motion := tubeClip("new", &db.Garment, &db.Rig, 600, func(t float64) float64 { return 0.2 * math.Sin(1.3*t) }, func(t float64) float64 { return 0.5 + 0.4*math.Sin(2*t) })
	b.ResetTimer()
	var match, vit, rec, smooth float64
	for i := 0; i < b.N; i++ {
		res, err := s.Run(context.Background(), motion.Joints, 30, nil)
		if err != nil {
			b.Fatal(err)
		}
		match += res.Timing.Match.Seconds()
		vit += res.Timing.Viterbi.Seconds()
		rec += res.Timing.Reconstruct.Seconds()
		smooth += res.Timing.Smooth.Seconds()
		if i == 0 {
			n, mean, _ := res.BlockStats()
			b.ReportMetric(float64(n), "blocks")
			b.ReportMetric(mean, "frames/block")
		}
	}
	k := float64(b.N)
	b.ReportMetric((match+vit)/k, "s-match+viterbi")
	b.ReportMetric(600*k/rec, "recon-frames/s")
	b.ReportMetric(600*k/(rec+smooth), "recon+smooth-frames/s")
}

// BenchmarkDB times a database file named by PLEAT_RESYNTH_DB (from
// pleat resynth build; skipped when unset): preparing it (New: features,
// nearest neighbours, cloth descriptors, factoring), and resynthesising
// a 600-frame motion, its first 600 frames played backwards (so that the
// path must be found, not read off).
func BenchmarkDB(b *testing.B) {
	path := os.Getenv("PLEAT_RESYNTH_DB")
	if path == "" {
		b.Skip("PLEAT_RESYNTH_DB names no database")
	}
	db, err := ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var motion [][]geom.Rigid
	for c := range db.Clips {
		motion = append(motion, db.Clips[c].Joints...)
	}
	motion = motion[:min(600, len(motion))]
	slices.Reverse(motion)
	b.Run(fmt.Sprintf("new/frames=%d", db.NumFrames()), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, err := New(db, Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	s, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.Run(fmt.Sprintf("run/motion=%d/verts=%d", len(motion), len(db.Garment.Rest)), func(b *testing.B) {
		var mv, rec float64
		for i := 0; i < b.N; i++ {
			res, err := s.Run(context.Background(), motion, db.Clips[0].FPS, nil)
			if err != nil {
				b.Fatal(err)
			}
			mv += (res.Timing.Match + res.Timing.Viterbi).Seconds()
			rec += res.Timing.Reconstruct.Seconds()
		}
		b.ReportMetric(mv/float64(b.N), "s-match+viterbi")
		b.ReportMetric(float64(len(motion)*b.N)/rec, "recon-frames/s")
	})
}
