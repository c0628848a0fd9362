package resynth

import (
	"context"
	"fmt"
	"slices"

	"github.com/pleat-dev/pleat/geom"
)

// Eval compares a resynthesised clip with its simulated ground truth.
type Eval struct {
	Clip   string
	Frames int
	// Err and SkinErr are, per frame, the mean distance of a vertex from
	// its ground-truth position (metres): the resynthesis, and the
	// skinning baseline (the rest garment skinned to the pose).
	Err, SkinErr []float64
	// Acc and TruthAcc are, per frame, the mean magnitude of the vertices'
	// accelerations |x_{f+1} − 2x_f + x_{f−1}|·fps² (m/s²; 0 at the first
	// and last frames).
	Acc, TruthAcc []float64
	Result        *Result
}

// Transition reports whether frame f lies within radius frames of a
// boundary between two of the path's blocks.
func (r *Result) Transition(f, radius int) bool {
	start := 0
	for _, n := range r.Blocks[:max(len(r.Blocks)-1, 0)] {
		start += n // the first frame of the next block
		if f >= start-radius-1 && f <= start+radius {
			return true
		}
	}
	return false
}

// OverTransitions returns how many of the frames whose acceleration ratio
// exceeds 2 (over ground truth of at least floor m/s²) lie within the
// transition window (DefaultWindow/2 + 1 frames) of a block boundary.
func (e *Eval) OverTransitions(floor float64) int {
	n := 0
	for f := 1; f+1 < len(e.Acc); f++ {
		if e.TruthAcc[f] >= floor && e.TruthAcc[f] > 0 && e.Acc[f] > 2*e.TruthAcc[f] && e.Result != nil && e.Result.Transition(f, DefaultWindow/2+1) {
			n++
		}
	}
	return n
}

// MeanErr returns the mean of Err and of SkinErr.
func (e *Eval) MeanErr() (resynth, skin float64) {
	return mean(e.Err), mean(e.SkinErr)
}

// AccRatio returns the largest per-frame ratio Acc/TruthAcc and its frame,
// over frames where the ground truth's acceleration is at least floor
// (m/s²), and the number of frames whose ratio exceeds 2.
func (e *Eval) AccRatio(floor float64) (worst float64, frame, over2 int) {
	frame = -1
	for f := 1; f+1 < len(e.Acc); f++ {
		if !(e.TruthAcc[f] >= floor) || e.TruthAcc[f] == 0 {
			continue
		}
		r := e.Acc[f] / e.TruthAcc[f]
		if r > worst {
			worst, frame = r, f
		}
		if r > 2 {
			over2++
		}
	}
	return worst, frame, over2
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Compare measures frames (a resynthesis of clip truth's motion) against
// truth, with the skinning baseline.
func (db *DB) Compare(frames [][]geom.Vec3, truth *Clip) (*Eval, error) {
	n := len(db.Garment.Rest)
	nf := truth.NumFrames()
	if len(frames) != nf {
		return nil, fmt.Errorf("resynth: %d frames to compare with the %d of clip %s", len(frames), nf, truth.Name)
	}
	e := &Eval{Clip: truth.Name, Frames: nf, Err: make([]float64, nf), SkinErr: make([]float64, nf), Acc: make([]float64, nf), TruthAcc: make([]float64, nf)}
	var gt, sk []geom.Vec3
	for f := 0; f < nf; f++ {
		gt = truth.Frame(f, n, gt)
		sk = db.Skin(truth.Joints[f], sk)
		if len(frames[f]) != n {
			return nil, fmt.Errorf("resynth: frame %d has %d vertices, the garment %d", f, len(frames[f]), n)
		}
		for v := range gt {
			e.Err[f] += frames[f][v].Dist(gt[v])
			e.SkinErr[f] += sk[v].Dist(gt[v])
		}
		e.Err[f] /= float64(n)
		e.SkinErr[f] /= float64(n)
	}
	accel(frames, truth.FPS, e.Acc)
	all := make([][]geom.Vec3, nf)
	for f := range all {
		all[f] = truth.Frame(f, n, nil)
	}
	accel(all, truth.FPS, e.TruthAcc)
	return e, nil
}

// accel writes the mean vertex acceleration magnitude of each inner frame.
func accel(frames [][]geom.Vec3, fps float64, dst []float64) {
	for f := 1; f+1 < len(frames); f++ {
		s := 0.0
		a, b, c := frames[f-1], frames[f], frames[f+1]
		for v := range b {
			s += c[v].Sub(b[v].Scale(2)).Add(a[v]).Len()
		}
		dst[f] = s / float64(len(b)) * fps * fps
	}
}

// LeaveOneOut resynthesises each named clip (all when names is empty) from
// the database without it and compares the result with the clip's own
// frames. done is called after each clip.
func LeaveOneOut(ctx context.Context, db *DB, opt Options, names []string, done func(*Eval)) ([]*Eval, error) {
	if len(names) == 0 {
		for i := range db.Clips {
			names = append(names, db.Clips[i].Name)
		}
	}
	var out []*Eval
	for _, name := range names {
		truth := db.Clip(name)
		if truth == nil {
			return out, fmt.Errorf("resynth: no clip %q in the database", name)
		}
		s, err := New(db.Without(name), opt)
		if err != nil {
			return out, fmt.Errorf("leaving out %s: %w", name, err)
		}
		res, err := s.Run(ctx, truth.Joints, truth.FPS, nil)
		s.Close()
		if err != nil {
			return out, fmt.Errorf("resynthesising %s: %w", name, err)
		}
		e, err := db.Compare(res.Frames, truth)
		if err != nil {
			return out, err
		}
		e.Result = res
		out = append(out, e)
		if done != nil {
			done(e)
		}
	}
	return out, nil
}

// BlockStats returns the number of blocks and their mean and median length.
func (r *Result) BlockStats() (n int, meanLen, medianLen float64) {
	n = len(r.Blocks)
	if n == 0 {
		return 0, 0, 0
	}
	s := make([]int, n)
	copy(s, r.Blocks)
	tot := 0
	for _, b := range s {
		tot += b
	}
	slices.Sort(s)
	med := float64(s[n/2])
	if n%2 == 0 {
		med = float64(s[n/2-1]+s[n/2]) / 2
	}
	return n, float64(tot) / float64(n), med
}
