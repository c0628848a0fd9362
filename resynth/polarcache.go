package resynth

import (
	"github.com/pleat-dev/pleat/geom"
)

// frameCache holds, for every database frame, each triangle's gradient
// in its skinned frame, L = Q⁻¹·F, as its polar factors L = R·S (R a unit
// quaternion, S symmetric; stored as float32, about 1e-7 relative), and
// each constrained vertex in its joint's rest frame. It is computed once
// when the database is prepared (New), so that reconstruction only blends
// and solves: a frame that blends several database frames (resampling in
// time, transition windows) costs no polar decomposition.
type frameCache struct {
	ntri, ncons int
	q           []float32   // 4 per triangle per frame: W, X, Y, Z
	s           []float32   // 6 per triangle per frame: sym6
	o           []geom.Vec3 // ncons per frame
}

// buildCache fills s.fc for all database frames in parallel.
func (s *Synth) buildCache() {
	n, nt, nc := s.ix.n(), len(s.vinv), len(s.cons)
	fc := &frameCache{ntri: nt, ncons: nc, q: make([]float32, 4*n*nt), s: make([]float32, 6*n*nt), o: make([]geom.Vec3, n*nc)}
	s.pool.Run(n, 4, func(lo, hi int) {
		var l local
		var x []geom.Vec3
		var skin []geom.Rigid
		for i := lo; i < hi; i++ {
			x, skin = s.computeLocal(int32(i), &l, x, skin)
			q, st := fc.q[4*i*nt:4*(i+1)*nt], fc.s[6*i*nt:6*(i+1)*nt]
			for t := range l.l {
				r, sy := polar(l.l[t])
				q[4*t], q[4*t+1], q[4*t+2], q[4*t+3] = float32(r.W), float32(r.X), float32(r.Y), float32(r.Z)
				for c := range sy {
					st[6*t+c] = float32(sy[c])
				}
			}
			copy(fc.o[i*nc:(i+1)*nc], l.o)
		}
	})
	s.fc = fc
}

// rot returns frame i's rotation of triangle t (renormalised after the
// float32 storage).
func (fc *frameCache) rot(i int32, t int) geom.Quat {
	k := 4 * (int(i)*fc.ntri + t)
	q := fc.q[k : k+4 : k+4]
	return geom.Quat{W: float64(q[0]), X: float64(q[1]), Y: float64(q[2]), Z: float64(q[3])}.Normalize()
}

// stretch returns frame i's stretch of triangle t.
func (fc *frameCache) stretch(i int32, t int) sym6 {
	k := 6 * (int(i)*fc.ntri + t)
	s := fc.s[k : k+6 : k+6]
	return sym6{float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3]), float64(s[4]), float64(s[5])}
}

// offsets returns frame i's constrained vertices in their joints' frames.
func (fc *frameCache) offsets(i int32) []geom.Vec3 {
	return fc.o[int(i)*fc.ncons : (int(i)+1)*fc.ncons]
}
