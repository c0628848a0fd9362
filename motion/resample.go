package motion

import (
	"errors"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/skel"
)

// ErrEmptyClip is returned by operations that need at least one frame.
var ErrEmptyClip = errors.New("motion: clip has no frames")

// Resample returns c sampled at fps frames per second over the same time
// span: output frame i is at time t = i/fps, for i = 0..⌊Duration·fps⌋
// (a tolerance of 1e-9 frames absorbs rounding, so 120 → 30 fps on 344
// frames gives 86). Each output pose interpolates the two source frames
// around s = t·c.FPS with skel.InterpPose (Root lerped, rotations slerped
// along the shorter arc). Frames that fall on a source frame copy it
// exactly. The skeleton is shared.
func Resample(c *Clip, fps float64) (*Clip, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("motion: resample to %g fps, want positive and finite", fps)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if len(c.Poses) == 0 {
		return nil, ErrEmptyClip
	}
	m := int(math.Floor(c.Duration()*fps+1e-9)) + 1
	if m > MaxFrames {
		return nil, fmt.Errorf("motion: resampling gives %d frames, at most %d", m, MaxFrames)
	}
	out := &Clip{Skeleton: c.Skeleton, FPS: fps, Poses: make([]skel.Pose, m)}
	last := len(c.Poses) - 1
	for i := range out.Poses {
		s := float64(i) * c.FPS / fps
		f := int(math.Floor(s + 1e-9))
		t := s - float64(f)
		if t < 1e-9 || f >= last {
			out.Poses[i] = c.Poses[min(max(f, 0), last)].Clone()
			continue
		}
		skel.InterpPose(&out.Poses[i], c.Poses[f], c.Poses[f+1], t)
	}
	return out, nil
}

// Trim returns frames [start, end) of c as a new clip (poses copied,
// skeleton shared). It is an error unless 0 ≤ start ≤ end ≤ len(c.Poses).
func Trim(c *Clip, start, end int) (*Clip, error) {
	if start < 0 || end < start || end > len(c.Poses) {
		return nil, fmt.Errorf("motion: trim [%d, %d) out of range for %d frames", start, end, len(c.Poses))
	}
	out := &Clip{Skeleton: c.Skeleton, FPS: c.FPS, Poses: make([]skel.Pose, end-start)}
	for i := range out.Poses {
		out.Poses[i] = c.Poses[start+i].Clone()
	}
	return out, nil
}

// TrimTime returns the frames whose times f/FPS lie in [t0, t1] seconds
// (with a tolerance of 1e-9 frames), keeping the source frames unchanged:
// no resampling. Times are clamped to the clip.
func TrimTime(c *Clip, t0, t1 float64) (*Clip, error) {
	if math.IsNaN(t0) || math.IsNaN(t1) || t1 < t0 {
		return nil, fmt.Errorf("motion: trim time [%g, %g] invalid", t0, t1)
	}
	n := float64(len(c.Poses))
	s := min(max(math.Ceil(t0*c.FPS-1e-9), 0), n)
	e := min(max(math.Floor(t1*c.FPS+1e-9)+1, s), n)
	return Trim(c, int(s), int(e))
}

// DropTPose returns c without its first frame: CMU BVH files start with an
// added T-pose (all rotations zero but a few arm and leg angles) that is
// not part of the motion. A clip with no frames is returned as a copy.
func DropTPose(c *Clip) (*Clip, error) {
	if len(c.Poses) == 0 {
		return Trim(c, 0, 0)
	}
	return Trim(c, 1, len(c.Poses))
}
