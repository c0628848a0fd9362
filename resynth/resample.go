package resynth

import (
	"math"
	"slices"
)

// blend is one database frame's weight in an output frame.
type blend struct {
	frame int32 // database frame (index over all clips)
	w     float64
}

// Resampling parameters (paper: "Resampling in Time", "Smoothing
// Transitions").
const (
	// indexRadius is the half-width of the moving average that smooths a
	// block's frame indices into fractional ones.
	indexRadius = 5
	// DefaultWindow is the default number of frames averaged around a
	// block boundary (Options.Window; the paper's 5).
	DefaultWindow = 5
	// maxSpeed is the most database frames a block's fractional index
	// may advance per output frame: the path may drop frames (steps of 2)
	// to follow a faster motion, but cloth played at 2x shows 4x its
	// accelerations, so playback is held to 1.5x (paper: "Resampling in
	// Time" resamples to match the motion's speed, within reason).
	maxSpeed = 1.5
	// DefaultSmooth is the default σ, in frames, of the Gaussian that
	// smooths the garment's dynamics in time (Options.Smooth).
	DefaultSmooth = 2.0
)

// blocks splits a path into blocks: runs in one clip whose index steps by
// 0, 1 or 2 frames. It returns each frame's block number and the block
// lengths.
func (ix *index) blocks(path []int32) (id []int, lengths []int) {
	id = make([]int, len(path))
	b := 0
	for t := range path {
		if t > 0 {
			d := path[t] - path[t-1]
			if d < 0 || d > 2 || !ix.sameClip(int(path[t]), int(path[t-1])) {
				b++
			}
		}
		id[t] = b
	}
	lengths = make([]int, b+1)
	for _, x := range id {
		lengths[x]++
	}
	return id, lengths
}

// resample turns a path into per-frame blends of database frames: the
// frame indices smoothed within each block by a moving average of radius
// indexRadius (narrowed near the block's ends so that they stay put) and
// held to advance at most maxSpeed frames per output frame, each
// fractional index split between the two frames around it; then, for the
// frames within window/2 of a block boundary, the blends averaged over
// the window with tent weights (1, 2, 3, 2, 1 for 5 frames). It also
// returns the fractional indices.
func (ix *index) resample(path []int32, window int) ([][]blend, []float64) {
	nt := len(path)
	id, _ := ix.blocks(path)
	frac := make([]float64, nt)
	base := make([][]blend, nt)
	lo := 0
	for t := 0; t < nt; t++ {
		if t > 0 && id[t] != id[t-1] {
			lo = t
		}
		hi := t
		for hi+1 < nt && id[hi+1] == id[t] {
			hi++
		}
		r := min(indexRadius, t-lo, hi-t)
		s := 0.0
		for u := t - r; u <= t+r; u++ {
			s += float64(path[u])
		}
		x := s / float64(2*r+1)
		if t > lo {
			x = min(x, frac[t-1]+maxSpeed)
		}
		frac[t] = x
		f0 := int32(math.Floor(x))
		w := x - float64(f0)
		end := ix.start[ix.clipOf[path[t]]+1] - 1
		if w < 1e-12 || f0 >= end {
			base[t] = []blend{{frame: min(f0, end), w: 1}}
		} else {
			base[t] = []blend{{frame: f0, w: 1 - w}, {frame: f0 + 1, w: w}}
		}
	}
	out := make([][]blend, nt)
	h := window / 2
	tent := func(d int) float64 { return float64(h + 1 - abs(d)) }
	for t := 0; t < nt; t++ {
		mixed := false
		for u := max(t-h, 0); u <= min(t+h, nt-1); u++ {
			mixed = mixed || id[u] != id[t]
		}
		if !mixed {
			out[t] = base[t]
			continue
		}
		var acc []blend
		sum := 0.0
		for u := max(t-h, 0); u <= min(t+h, nt-1); u++ {
			k := tent(u - t)
			sum += k
			for _, b := range base[u] {
				acc = append(acc, blend{b.frame, b.w * k})
			}
		}
		out[t] = mergeBlends(acc, sum)
	}
	return out, frac
}

// mergeBlends sums the weights of repeated frames, divides by sum and
// sorts by frame.
func mergeBlends(acc []blend, sum float64) []blend {
	slices.SortStableFunc(acc, func(a, b blend) int { return int(a.frame - b.frame) })
	var out []blend
	for _, b := range acc {
		if n := len(out); n > 0 && out[n-1].frame == b.frame {
			out[n-1].w += b.w
			continue
		}
		out = append(out, b)
	}
	for i := range out {
		out[i].w /= sum
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
