package flow

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// rankTol is the relative eigenvalue threshold of the numerical rank:
// components with λ_i ≤ rankTol·λ_1 (σ_i ≤ 1e-5·σ_1) are noise of the Gram
// matrix (its eigenvalues carry absolute errors near m·ε·λ_1 ≈ 1e-13·λ_1).
const rankTol = 1e-10

// Analysis is the principal component analysis of one animation's wrinkle
// flow; Flow cuts a compressed flow with any number of components from it.
// Create it with Analyze. It holds the 3n × m residual (8·3n·m bytes).
type Analysis struct {
	// Name is the garment's name.
	Name string
	// Binding is the binding that gave Weights.
	Binding Binding
	// Sigma are the singular values σ_i of the centred bind-space residual
	// in decreasing order, in metres (√ of the Gram eigenvalues).
	Sigma []float64
	// Rank is the numerical rank: the number of σ_i > 1e-5·σ_1.
	Rank int
	// SingularVerts counts (vertex, frame) pairs whose blended skinning
	// matrix was nearly singular (det < 1e-3); their residual is large.
	SingularVerts int

	anim    Animation
	sk      *skel.Skeleton
	joints  []skel.Joint // as stored in files (see canonicalSkeleton)
	fps     float64
	poses   []skel.Pose // float32-exact
	weights skel.Weights
	base    []geom.Vec3 // r + μ, float32-exact
	d       *mat.Dense  // m × 3n centred residual, row t = a(t) − (base − r)
	vecs    *mat.Dense  // m × m Gram eigenvectors, columns by decreasing λ
	workers int

	mu    sync.Mutex
	basis *mat.Dense // kb × 3n: row i = u_i (unit), cached for the largest k asked
}

// Analyze binds the garment, computes the bind-space wrinkle flow and its
// PCA. See the package documentation for the equations.
func Analyze(anim Animation, rig Rig, opt Options) (*Analysis, error) {
	if err := validate(anim, rig); err != nil {
		return nil, err
	}
	if err := checkFinite(anim.Frames); err != nil {
		return nil, err
	}
	w, err := Bind(anim.Rest.Verts, rig, opt.Binding)
	if err != nil {
		return nil, err
	}
	sk, joints, err := canonicalSkeleton(rig.Skeleton)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Name: anim.Name, Binding: opt.Binding, anim: anim, sk: sk, joints: joints, fps: rig.FPS,
		poses: canonicalPoses(rig.Poses), weights: w, workers: opt.workers()}
	a.residual()
	a.pca()
	return a, nil
}

// parallelFrames runs fn(t) for every frame on the workers (frame t on
// worker t mod workers).
func parallelFrames(m, workers int, fn func(t int)) {
	workers = max(1, min(workers, m))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			for t := k; t < m; t += workers {
				fn(t)
			}
		})
	}
	wg.Wait()
}

// blend returns vertex v's blended skinning transform: A (row-major 3x3)
// and b, M_v = Σ_j w_vj·T_j.
func blend(w skel.Weights, mats []geom.Mat3, trans []geom.Vec3, v int) (geom.Mat3, geom.Vec3) {
	var A geom.Mat3
	var b geom.Vec3
	for i := w.Offsets[v]; i < w.Offsets[v+1]; i++ {
		j, x := w.Joints[i], float64(w.W[i])
		m := &mats[j]
		for r := 0; r < 3; r++ {
			A[r][0] += x * m[r][0]
			A[r][1] += x * m[r][1]
			A[r][2] += x * m[r][2]
		}
		b = b.AddScaled(x, trans[j])
	}
	return A, b
}

func skinMats(sk *skel.Skeleton, p skel.Pose) ([]geom.Mat3, []geom.Vec3) {
	skin := skel.SkinMatrices(sk, p, nil)
	mats := make([]geom.Mat3, len(skin))
	trans := make([]geom.Vec3, len(skin))
	for j, s := range skin {
		mats[j], trans[j] = s.R.Mat3(), s.T
	}
	return mats, trans
}

// residual fills a.d with a(t) = A⁻¹(x − b) − r per frame, then centres it
// (the mean, rounded to float32 with the rest shape, becomes a.base).
func (a *Analysis) residual() {
	rest := a.anim.Rest.Verts
	n, m := len(rest), len(a.anim.Frames)
	a.d = mat.NewDense(m, 3*n, nil)
	sing := make([]int, m)
	parallelFrames(m, a.workers, func(t int) {
		mats, trans := skinMats(a.sk, a.poses[t])
		row := a.d.RawRowView(t)
		x := a.anim.Frames[t]
		for v := range rest {
			A, b := blend(a.weights, mats, trans, v)
			inv, ok := A.Inverse()
			if !ok || math.Abs(A.Det()) < 1e-3 {
				sing[t]++
			}
			if !ok {
				inv = geom.Identity3()
			}
			r := inv.MulVec(x[v].Sub(b)).Sub(rest[v])
			row[3*v], row[3*v+1], row[3*v+2] = r.X, r.Y, r.Z
		}
	})
	for _, s := range sing {
		a.SingularVerts += s
	}
	// Mean over frames (fixed order), baked into the float32 base shape.
	mean := make([]float64, 3*n)
	for t := 0; t < m; t++ {
		row := a.d.RawRowView(t)
		for i, x := range row {
			mean[i] += x
		}
	}
	a.base = make([]geom.Vec3, n)
	off := make([]float64, 3*n)
	for v := range rest {
		mu := geom.Vec3{X: mean[3*v], Y: mean[3*v+1], Z: mean[3*v+2]}.Scale(1 / float64(m))
		a.base[v] = f32vec(rest[v].Add(mu))
		o := a.base[v].Sub(rest[v])
		off[3*v], off[3*v+1], off[3*v+2] = o.X, o.Y, o.Z
	}
	parallelFrames(m, a.workers, func(t int) {
		row := a.d.RawRowView(t)
		for i := range row {
			row[i] -= off[i]
		}
	})
}

// gram returns D·Dᵀ (m × m) of an m × c matrix, summing column blocks
// computed on the workers in a fixed order (deterministic).
func gram(d *mat.Dense, workers int) *mat.SymDense {
	m, c := d.Dims()
	const block = 4096
	nb := (c + block - 1) / block
	parts := make([]*mat.SymDense, nb)
	var wg sync.WaitGroup
	workers = max(1, min(workers, nb))
	for k := range workers {
		wg.Go(func() {
			for b := k; b < nb; b += workers {
				lo, hi := b*block, min((b+1)*block, c)
				s := mat.NewSymDense(m, nil)
				s.SymOuterK(1, d.Slice(0, m, lo, hi))
				parts[b] = s
			}
		})
	}
	wg.Wait()
	g := parts[0]
	for _, p := range parts[1:] {
		g.AddSym(g, p)
	}
	return g
}

// eigen returns the eigenvalues (decreasing, clamped at 0) and eigenvectors
// (columns, same order) of a symmetric matrix.
func eigen(g *mat.SymDense) ([]float64, *mat.Dense, error) {
	var es mat.EigenSym
	if !es.Factorize(g, true) {
		return nil, nil, fmt.Errorf("flow: eigendecomposition of the Gram matrix failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	m := len(vals)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return vals[order[i]] > vals[order[j]] })
	lam := make([]float64, m)
	out := mat.NewDense(m, m, nil)
	for i, o := range order {
		lam[i] = max(vals[o], 0)
		for r := 0; r < m; r++ {
			out.Set(r, i, vecs.At(r, o))
		}
	}
	return lam, out, nil
}

func rankOf(lam []float64) int {
	if len(lam) == 0 || !(lam[0] > 0) {
		return 0
	}
	r := 0
	for _, l := range lam {
		if l > rankTol*lam[0] {
			r++
		}
	}
	return r
}

func (a *Analysis) pca() {
	lam, vecs, err := eigen(gram(a.d, a.workers))
	if err != nil {
		// EigenSym does not fail on finite symmetric input.
		panic(err)
	}
	a.vecs = vecs
	a.Sigma = make([]float64, len(lam))
	for i, l := range lam {
		a.Sigma[i] = math.Sqrt(l)
	}
	a.Rank = rankOf(lam)
}

// NumVerts returns the garment's vertex count n.
func (a *Analysis) NumVerts() int { return len(a.base) }

// NumFrames returns the frame count m.
func (a *Analysis) NumFrames() int { return len(a.poses) }

// Weights returns the garment's canonical skin weights (shared; do not
// modify).
func (a *Analysis) Weights() skel.Weights { return a.weights }

// BindRMS returns the bind-space RMS error of k unquantised components,
// √(Σ_{i>k} σ_i² / (n·m)), in metres: an upper bound of the world-space
// RMS error of the same reconstruction.
func (a *Analysis) BindRMS(k int) float64 {
	s := 0.0
	for i := len(a.Sigma) - 1; i >= k && i >= 0; i-- {
		s += a.Sigma[i] * a.Sigma[i]
	}
	return math.Sqrt(s / float64(a.NumVerts()*a.NumFrames()))
}

// ChooseK returns the smallest k whose bind-space RMS error (BindRMS) is at
// most maxErr metres; an error wrapping ErrTarget if even Rank components
// do not reach it.
func (a *Analysis) ChooseK(maxErr float64) (int, error) {
	if !(maxErr > 0) {
		panic("flow: ChooseK with a non-positive target")
	}
	for k := 0; k <= a.Rank; k++ {
		if a.BindRMS(k) <= maxErr {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: %.3g mm RMS needs more than the %d components of the flow", ErrTarget, maxErr*1000, a.Rank)
}

// basisRows returns the first k unit basis vectors u_i as rows of a k × 3n
// matrix (shared; do not modify), u_i = Dᵀ·v_i/σ_i.
func (a *Analysis) basisRows(k int) *mat.Dense {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.basis != nil {
		if r, _ := a.basis.Dims(); r >= k {
			return a.basis
		}
	}
	m, c := a.d.Dims()
	vk := a.vecs.Slice(0, m, 0, k)
	b := mat.NewDense(k, c, nil)
	mulTA(b, vk, a.d, a.workers)
	for i := 0; i < k; i++ {
		row := b.RawRowView(i)
		s := 1 / a.Sigma[i]
		for j := range row {
			row[j] *= s
		}
	}
	a.basis = b
	return b
}

// mulTA sets dst (k × c) = vᵀ·d for v (m × k) and d (m × c), splitting the
// columns of d into blocks on the workers.
func mulTA(dst *mat.Dense, v mat.Matrix, d *mat.Dense, workers int) {
	k, c := dst.Dims()
	m, _ := d.Dims()
	const block = 4096
	nb := (c + block - 1) / block
	var wg sync.WaitGroup
	workers = max(1, min(workers, nb))
	for w := range workers {
		wg.Go(func() {
			for b := w; b < nb; b += workers {
				lo, hi := b*block, min((b+1)*block, c)
				dst.Slice(0, k, lo, hi).(*mat.Dense).Mul(v.T(), d.Slice(0, m, lo, hi))
			}
		})
	}
	wg.Wait()
}
