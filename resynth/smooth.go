package resynth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// smoothResidual low-passes the garment's dynamics in time: each frame's
// residual r_t = x_t − k_t, with k_t the skinning baseline (the rest
// garment carried by linear blend skinning to the motion's pose, which
// holds the body's own motion), is replaced by its Gaussian average
// Σ_u g(u − t)·r_u / Σ_u g(u − t), g(d) = exp(−d²/2σ²) over |d| ≤ ⌈3σ⌉
// (truncated at the clip's ends), and x_t = k_t + that average. The body's
// motion passes unchanged; what is removed is the part of the cloth's
// motion faster than the source clips' own, which resampling in time,
// blending between segments and the source clips' livelier cloth
// (paper: "Smoothing Transitions", "Resampling in Time") put there.
// sigma is in frames; frames are changed in place. The summation order is
// fixed, so the result does not depend on the number of workers.
func (s *Synth) smoothResidual(frames [][]geom.Vec3, joints [][]geom.Rigid, sigma float64) {
	nt, n := len(frames), s.nverts
	if nt < 3 || !(sigma > 0) {
		return
	}
	rad := min(int(math.Ceil(3*sigma)), nt-1)
	g := make([]float64, rad+1)
	for d := range g {
		g[d] = math.Exp(-float64(d*d) / (2 * sigma * sigma))
	}
	res := make([]geom.Vec3, nt*n)
	s.pool.Run(nt, 8, func(lo, hi int) {
		var k []geom.Vec3
		for t := lo; t < hi; t++ {
			k = s.db.Skin(joints[t], k)
			r, x := res[t*n:(t+1)*n], frames[t]
			for v := range x {
				r[v] = x[v].Sub(k[v])
				x[v] = k[v]
			}
		}
	})
	s.pool.Run(n, 256, func(lo, hi int) {
		for t := 0; t < nt; t++ {
			a, b := max(t-rad, 0), min(t+rad, nt-1)
			sum := 0.0
			for u := a; u <= b; u++ {
				sum += g[abs(u-t)]
			}
			x := frames[t]
			for v := lo; v < hi; v++ {
				var acc geom.Vec3
				for u := a; u <= b; u++ {
					acc = acc.Add(res[u*n+v].Scale(g[abs(u-t)]))
				}
				x[v] = x[v].Add(acc.Scale(1 / sum))
			}
		}
	})
}
