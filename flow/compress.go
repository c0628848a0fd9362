package flow

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// q16 is the int16 quantisation scale: values in [−1, 1] map to
// round(x·32767).
const q16 = 32767

// Flow is a compressed garment animation: skinning on Skeleton by Poses with
// Weights, plus K quantised morph targets in bind space with per-frame
// weights (see the package documentation). Its fields are the contents of a
// .pflow file.
type Flow struct {
	// Name is the garment's name.
	Name string
	// Skeleton is the rig; Poses one float32-exact pose per frame at FPS.
	Skeleton *skel.Skeleton
	FPS      float64
	Poses    []skel.Pose
	// Topology (and optional UVs) of the garment.
	Tris   [][3]int32
	UVs    []geom.Vec2
	UVTris [][3]int32
	// Base is the bind-space base shape p = r + μ (float32-exact), in
	// metres: the rest garment plus the mean residual.
	Base []geom.Vec3
	// Weights are canonical (QuantizeWeights) skin weights per vertex.
	Weights skel.Weights
	// K is the number of components.
	K int
	// Scale[i] is morph target i's largest displacement component c_i in
	// metres; Targets[i][3v+c] = round(B_i[v][c]/c_i·32767).
	Scale   []float32
	Targets [][]int16
	// Coef[t*K+i] = round(w_i(t)·32767), the morph weight of target i at
	// frame t, w in [−1, 1].
	Coef []int16

	joints []skel.Joint // the joints Skeleton was built from, if known
}

// Compress compresses anim driven by rig: Analyze, then Flow with
// opt.K components, or with the fewest components whose quantised result
// has world-space RMS error ≤ opt.MaxError (default 2 mm). Errors wrap
// ErrVertexCount, ErrFrameCount, ErrRank, ErrTarget or ErrInput.
func Compress(anim Animation, rig Rig, opt Options) (*Flow, error) {
	a, err := Analyze(anim, rig, opt)
	if err != nil {
		return nil, err
	}
	if opt.K != 0 {
		return a.Flow(opt.K)
	}
	target := opt.MaxError
	if target == 0 {
		target = DefaultMaxError
	}
	f, _, err := a.FlowForError(target)
	return f, err
}

// FlowForError returns the flow with the fewest components whose quantised
// reconstruction has world-space RMS error ≤ maxErr metres, and that error.
// It starts from ChooseK and adds components while quantisation keeps the
// error above the target.
func (a *Analysis) FlowForError(maxErr float64) (*Flow, ErrorStat, error) {
	k, err := a.ChooseK(maxErr)
	if err != nil {
		return nil, ErrorStat{}, err
	}
	for ; k <= a.Rank; k++ {
		f, err := a.Flow(k)
		if err != nil {
			return nil, ErrorStat{}, err
		}
		e := Compare(f.Decompress(), a.anim.Frames)
		if e.RMS <= maxErr {
			return f, e, nil
		}
	}
	return nil, ErrorStat{}, fmt.Errorf("%w: %.3g mm RMS not reached after quantisation", ErrTarget, maxErr*1000)
}

// Flow returns the compressed flow with k components (0 ≤ k ≤ Rank): the
// base shape, skinning and k quantised morph targets. k > Rank gives an
// error wrapping ErrRank.
func (a *Analysis) Flow(k int) (*Flow, error) {
	if k < 0 {
		panic("flow: negative k")
	}
	if k > a.Rank {
		return nil, fmt.Errorf("%w: k = %d, but the wrinkle flow of %d vertices × %d frames has rank %d", ErrRank, k, a.NumVerts(), a.NumFrames(), a.Rank)
	}
	m := a.NumFrames()
	rest := a.anim.Rest
	f := &Flow{Name: a.Name, Skeleton: a.sk, joints: a.joints, FPS: a.fps, Poses: a.poses,
		Tris: rest.Tris, Base: a.base, Weights: a.weights, K: k,
		Scale: make([]float32, k), Targets: make([][]int16, k), Coef: make([]int16, m*k)}
	if rest.HasUVs() {
		f.UVs, f.UVTris = rest.UVs, rest.UVTris
	}
	if k == 0 {
		return f, nil
	}
	basis := a.basisRows(k)
	for i := 0; i < k; i++ {
		// z_i(t) = σ_i·v_i(t); s_i = max |z_i|; w_i = z_i/s_i.
		s := 0.0
		for t := 0; t < m; t++ {
			s = max(s, math.Abs(a.vecs.At(t, i)))
		}
		for t := 0; t < m; t++ {
			f.Coef[t*k+i] = int16(math.Round(a.vecs.At(t, i) / s * q16))
		}
		// B_i = s_i·σ_i·u_i (the weights were divided by s_i·σ_i).
		u := basis.RawRowView(i)
		sc := s * a.Sigma[i]
		c := 0.0
		for _, x := range u {
			c = max(c, math.Abs(x*sc))
		}
		f.Scale[i] = float32(c)
		c = float64(f.Scale[i])
		q := make([]int16, len(u))
		if c > 0 {
			for j, x := range u {
				q[j] = int16(max(-q16, min(q16, math.Round(x*sc/c*q16))))
			}
		}
		f.Targets[i] = q
	}
	return f, nil
}

// NumVerts returns the garment's vertex count.
func (f *Flow) NumVerts() int { return len(f.Base) }

// NumFrames returns the frame count.
func (f *Flow) NumFrames() int { return len(f.Poses) }

// Target returns morph target i, dequantised, in metres (dst reused if
// large enough).
func (f *Flow) Target(i int, dst []geom.Vec3) []geom.Vec3 {
	n := f.NumVerts()
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	c := float64(f.Scale[i]) / q16
	q := f.Targets[i]
	for v := range dst {
		dst[v] = geom.Vec3{X: float64(q[3*v]) * c, Y: float64(q[3*v+1]) * c, Z: float64(q[3*v+2]) * c}
	}
	return dst
}

// Weight returns the morph weight of target i at frame t, in [−1, 1].
func (f *Flow) Weight(t, i int) float64 { return float64(f.Coef[t*f.K+i]) / q16 }

// Mesh returns the garment mesh in its base shape (bind space).
func (f *Flow) Mesh() *mesh.Mesh {
	return &mesh.Mesh{Verts: append([]geom.Vec3(nil), f.Base...), Tris: f.Tris, UVs: f.UVs, UVTris: f.UVTris}
}

// Decompress returns every frame's world positions, in metres (frames are
// computed in parallel on GOMAXPROCS goroutines; see Frame).
func (f *Flow) Decompress() [][]geom.Vec3 {
	out := make([][]geom.Vec3, f.NumFrames())
	targets := f.targets()
	parallelFrames(len(out), maxProcs(), func(t int) {
		out[t] = f.frame(t, targets, nil)
	})
	return out
}

// Frame returns frame t's world positions into dst (reused if large
// enough): x̂_v(t) = M_v(t)·(p_v + Σ_i w_i(t)·B_iv), as a glTF player
// computes it (morph targets, then linear blend skinning).
func (f *Flow) Frame(t int, dst []geom.Vec3) []geom.Vec3 {
	return f.frame(t, f.targets(), dst)
}

func (f *Flow) targets() [][]geom.Vec3 {
	ts := make([][]geom.Vec3, f.K)
	for i := range ts {
		ts[i] = f.Target(i, nil)
	}
	return ts
}

func (f *Flow) frame(t int, targets [][]geom.Vec3, dst []geom.Vec3) []geom.Vec3 {
	p := append([]geom.Vec3(nil), f.Base...)
	for i, b := range targets {
		w := f.Weight(t, i)
		if w == 0 {
			continue
		}
		for v := range p {
			p[v] = p[v].AddScaled(w, b[v])
		}
	}
	skin := skel.SkinMatrices(f.Skeleton, f.Poses[t], nil)
	return skel.LBS(p, f.Weights, skin, dst)
}

// ErrorStat is an error measure over all vertices and frames, in metres.
type ErrorStat struct {
	// RMS is √(mean over v, t of |x̂_v(t) − x_v(t)|²).
	RMS float64
	// Max is the largest |x̂_v(t) − x_v(t)|.
	Max float64
}

// Compare returns the error of got against want (same shapes; it panics
// otherwise).
func Compare(got, want [][]geom.Vec3) ErrorStat {
	if len(got) != len(want) {
		panic("flow: Compare: frame counts differ")
	}
	var sum, mx float64
	cnt := 0
	for t := range got {
		if len(got[t]) != len(want[t]) {
			panic("flow: Compare: vertex counts differ")
		}
		for v := range got[t] {
			d := got[t][v].Sub(want[t][v]).Len2()
			sum += d
			mx = max(mx, d)
		}
		cnt += len(got[t])
	}
	if cnt == 0 {
		return ErrorStat{}
	}
	return ErrorStat{RMS: math.Sqrt(sum / float64(cnt)), Max: math.Sqrt(mx)}
}
