package resynth

import (
	"slices"
	"sync"

	"github.com/pleat-dev/pleat/geom"
)

// frameCache holds, for each database frame that a blend has used, each
// triangle's gradient in its skinned frame, L = Q⁻¹·F, as its polar
// factors L = R·S (R a unit quaternion, S symmetric; stored as float32,
// about 1e-7 relative), and each constrained vertex in its joint's rest
// frame. A frame is decomposed on its first use (a sync.Once per frame,
// so that concurrent users wait for one computation) and kept, so that a
// frame that blends several database frames (resampling in time,
// transition windows) costs no polar decomposition and New pays for no
// frame that no motion uses. A frame's factors depend only on the frame,
// so results do not depend on the order of first use. Memory: 40 bytes
// per triangle per frame used, plus the offsets.
type frameCache struct {
	ntri, ncons int
	once        []sync.Once
	q           [][]float32   // per frame, 4 per triangle: W, X, Y, Z
	s           [][]float32   // per frame, 6 per triangle: sym6
	o           [][]geom.Vec3 // per frame, ncons offsets
}

func newFrameCache(n, ntri, ncons int) *frameCache {
	return &frameCache{ntri: ntri, ncons: ncons, once: make([]sync.Once, n), q: make([][]float32, n), s: make([][]float32, n), o: make([][]geom.Vec3, n)}
}

// ensure decomposes database frame i unless it is done.
func (s *Synth) ensure(i int32) {
	fc := s.fc
	fc.once[i].Do(func() {
		var l local
		s.computeLocal(i, &l, nil, nil)
		nt := fc.ntri
		q, st := make([]float32, 4*nt), make([]float32, 6*nt)
		for t := range l.l {
			r, sy := polar(l.l[t])
			q[4*t], q[4*t+1], q[4*t+2], q[4*t+3] = float32(r.W), float32(r.X), float32(r.Y), float32(r.Z)
			for c := range sy {
				st[6*t+c] = float32(sy[c])
			}
		}
		fc.q[i], fc.s[i], fc.o[i] = q, st, l.o
	})
}

// prepare decomposes, in parallel, every database frame that blends use
// and that is not done yet.
func (s *Synth) prepare(blends [][]blend) {
	var need []int32
	for _, bl := range blends {
		for _, b := range bl {
			if b.frame != restFrame {
				need = append(need, b.frame)
			}
		}
	}
	slices.Sort(need)
	need = slices.Compact(need)
	s.pool.Run(len(need), 1, func(lo, hi int) {
		for _, i := range need[lo:hi] {
			s.ensure(i)
		}
	})
}

// frameQuats returns frame i's rotations (4 float32 per triangle); the
// frame must have been ensured.
func (fc *frameCache) frameQuats(i int32) []float32 { return fc.q[i] }

// frameStretch returns frame i's stretches (6 float32 per triangle).
func (fc *frameCache) frameStretch(i int32) []float32 { return fc.s[i] }

// offsets returns frame i's constrained vertices in their joints' frames.
func (fc *frameCache) offsets(i int32) []geom.Vec3 { return fc.o[i] }

// quat32 reads a stored rotation, renormalised after the float32 storage.
func quat32(q []float32) geom.Quat {
	return geom.Quat{W: float64(q[0]), X: float64(q[1]), Y: float64(q[2]), Z: float64(q[3])}.Normalize()
}

// sym32 reads a stored stretch.
func sym32(s []float32) sym6 {
	return sym6{float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3]), float64(s[4]), float64(s[5])}
}
