package mesh

import "github.com/pleat-dev/pleat/geom"

// SmoothParams controls Laplacian smoothing. The zero value is one plain
// umbrella step with λ = 0.5.
type SmoothParams struct {
	// Lambda is the step λ in f_i ← f_i + λ Σ_j ŵ_ij (f_j − f_i), with ŵ
	// the row-normalised weights (Σ_j ŵ_ij = 1). 0 means 0.5; values in
	// (0, 1] are stable.
	Lambda float64
	// Mu, when non-zero, adds Taubin's (1995, "A signal processing approach
	// to fair surface design") second step f ← f + μ Δf after each λ step,
	// with μ < −λ (e.g. λ = 0.5, μ = −0.53), which removes high frequencies
	// without the shrinkage of plain smoothing.
	Mu float64
	// Iterations is the number of steps (each λ, or λ then μ); 0 means 1.
	Iterations int
	// Pinned, when non-nil (len N), marks vertices whose values are kept.
	Pinned []bool
}

// Smoother applies explicit Laplacian smoothing (Jacobi updates) to
// per-vertex fields using the weights of a Laplacian: uniform weights give
// the umbrella operator, cotangent weights the (discrete) mean-curvature
// flow of Desbrun et al. 1999. Negative cotangent weights are clamped to 0
// so each update is a convex combination. Rows whose weights sum to 0
// (isolated vertices) are left unchanged. The weights are copied at
// construction; a Smoother reuses its buffers and is not safe for
// concurrent use.
type Smoother struct {
	n        int
	rowStart []int32
	col      []int32
	w        []float64 // row-normalised, off-diagonal only
	bufF     []float64
	bufV     []geom.Vec3
}

// NewSmoother returns a Smoother with the row-normalised, non-negative
// off-diagonal weights of L.
func NewSmoother(L *Laplacian) *Smoother {
	s := &Smoother{n: L.N, rowStart: make([]int32, L.N+1)}
	s.col = make([]int32, 0, len(L.Col)-L.N)
	s.w = make([]float64, 0, len(L.Col)-L.N)
	for i := 0; i < L.N; i++ {
		s.rowStart[i] = int32(len(s.col))
		start := len(s.w)
		var sum float64
		for k := L.RowStart[i]; k < L.RowStart[i+1]; k++ {
			if int(L.Col[k]) == i {
				continue
			}
			w := max(L.Val[k], 0)
			s.col = append(s.col, L.Col[k])
			s.w = append(s.w, w)
			sum += w
		}
		for k := start; k < len(s.w); k++ {
			if sum > 0 {
				s.w[k] /= sum
			}
		}
	}
	s.rowStart[L.N] = int32(len(s.col))
	return s
}

func (s *Smoother) check(n int, p *SmoothParams) (lambda float64, iters int) {
	if n != s.n {
		panic("mesh: Smoother: field length differs from the Laplacian")
	}
	if p.Pinned != nil && len(p.Pinned) != s.n {
		panic("mesh: Smoother: len(Pinned) differs from the Laplacian")
	}
	lambda, iters = p.Lambda, p.Iterations
	if lambda == 0 {
		lambda = 0.5
	}
	if iters <= 0 {
		iters = 1
	}
	return lambda, iters
}

// Scalar smooths the scalar field f in place.
func (s *Smoother) Scalar(f []float64, p SmoothParams) {
	lambda, iters := s.check(len(f), &p)
	if cap(s.bufF) < s.n {
		s.bufF = make([]float64, s.n)
	}
	for it := 0; it < iters; it++ {
		s.stepF(f, lambda, p.Pinned)
		if p.Mu != 0 {
			s.stepF(f, p.Mu, p.Pinned)
		}
	}
}

func (s *Smoother) stepF(f []float64, step float64, pinned []bool) {
	buf := s.bufF[:s.n]
	for i := 0; i < s.n; i++ {
		fi := f[i]
		if pinned != nil && pinned[i] {
			buf[i] = fi
			continue
		}
		var d float64
		for k := s.rowStart[i]; k < s.rowStart[i+1]; k++ {
			d += s.w[k] * (f[s.col[k]] - fi)
		}
		buf[i] = fi + step*d
	}
	copy(f, buf)
}

// Vec3 smooths the vector field f (for example vertex positions) in place.
func (s *Smoother) Vec3(f []geom.Vec3, p SmoothParams) {
	lambda, iters := s.check(len(f), &p)
	if cap(s.bufV) < s.n {
		s.bufV = make([]geom.Vec3, s.n)
	}
	for it := 0; it < iters; it++ {
		s.stepV(f, lambda, p.Pinned)
		if p.Mu != 0 {
			s.stepV(f, p.Mu, p.Pinned)
		}
	}
}

func (s *Smoother) stepV(f []geom.Vec3, step float64, pinned []bool) {
	buf := s.bufV[:s.n]
	for i := 0; i < s.n; i++ {
		fi := f[i]
		if pinned != nil && pinned[i] {
			buf[i] = fi
			continue
		}
		var dx, dy, dz float64
		for k := s.rowStart[i]; k < s.rowStart[i+1]; k++ {
			w, q := s.w[k], f[s.col[k]]
			dx += w * (q.X - fi.X)
			dy += w * (q.Y - fi.Y)
			dz += w * (q.Z - fi.Z)
		}
		buf[i] = geom.Vec3{X: fi.X + step*dx, Y: fi.Y + step*dy, Z: fi.Z + step*dz}
	}
	copy(f, buf)
}
