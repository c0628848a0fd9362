package flow

import (
	"encoding/binary"
	"fmt"

	"math"
	"slices"
	"time"

	"github.com/klauspost/compress/zstd"
	"gonum.org/v1/gonum/mat"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/skel"
)

// DefaultKs are the component counts Evaluate uses for a nil list.
var DefaultKs = []int{1, 2, 4, 8, 16, 32, 64}

// Row is one component count of a Report.
type Row struct {
	K int
	// Flow is the wrinkle flow's world-space error, measured on the
	// decompressed quantised file.
	Flow ErrorStat
	// FlowBind is the bind-space RMS of the unquantised flow (BindRMS).
	FlowBind float64
	// PCA is the error of plain PCA of absolute positions (centred, k
	// components, unquantised float64: the baseline's best case).
	PCA ErrorStat
	// FlowBytes and GLBBytes are the .pflow and .glb (garment only) sizes.
	FlowBytes, GLBBytes int64
	// Ratio is RawBytes/FlowBytes, RatioZstd ZstdBytes/FlowBytes.
	Ratio, RatioZstd float64
}

// BindingStat is the skinning-only error of one binding.
type BindingStat struct {
	Binding  Binding
	Skinning ErrorStat
}

// Report compares wrinkle flow with skinning alone and with plain PCA on
// one animation (see Evaluate). Errors are in metres, sizes in bytes.
type Report struct {
	Name          string
	Verts, Frames int
	// Rank is the numerical rank of the wrinkle flow.
	Rank    int
	Binding Binding
	// RawBytes is 12·n·m (float32 positions); ZstdBytes that raw stream
	// compressed with zstd at its default level.
	RawBytes, ZstdBytes int64
	// Skinning is the error of skinning alone (k = 0, no mean;
	// kim2013 Fig. 1b) with Binding; Bindings lists every binding tried.
	Skinning ErrorStat
	Bindings []BindingStat
	Rows     []Row
	// Target is the RMS target of Chosen, the smallest flow meeting it
	// (K = −1 when it could not be met).
	Target float64
	Chosen Row
	// AnalyzeSeconds is the time Analyze took (binding, residual, PCA);
	// CompressSeconds the time to cut, quantise and encode Chosen.
	AnalyzeSeconds, CompressSeconds float64
	Notes                           []string
}

// Evaluate compresses anim with each k in ks (DefaultKs if nil; k above the
// rank is skipped with a note) and measures, on the same animation, the
// wrinkle flow's error and size, plain PCA of absolute positions with the
// same k, and skinning alone for every binding the rig allows. It also
// finds the smallest flow meeting opt.MaxError (default 2 mm). It needs
// about 16·3n·m bytes of memory.
func Evaluate(anim Animation, rig Rig, ks []int, opt Options) (*Report, error) {
	if ks == nil {
		ks = DefaultKs
	}
	t0 := time.Now()
	a, err := Analyze(anim, rig, opt)
	if err != nil {
		return nil, err
	}
	n, m := a.NumVerts(), a.NumFrames()
	r := &Report{Name: anim.Name, Verts: n, Frames: m, Rank: a.Rank, Binding: opt.Binding,
		RawBytes: int64(12 * n * m), AnalyzeSeconds: time.Since(t0).Seconds()}
	if a.SingularVerts > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d (vertex, frame) pairs have a nearly singular blended skinning matrix", a.SingularVerts))
	}
	r.ZstdBytes = zstdRawSize(anim.Frames)

	// Skinning alone, per binding.
	for _, b := range []Binding{BindNearest, BindBarycentric, BindGiven} {
		w, err := Bind(anim.Rest.Verts, rig, b)
		if err != nil {
			if b == opt.Binding {
				return nil, err
			}
			continue
		}
		e := Compare(skinOnly(anim.Rest.Verts, w, rig.Skeleton, a.poses, opt.workers()), anim.Frames)
		r.Bindings = append(r.Bindings, BindingStat{Binding: b, Skinning: e})
		if b == opt.Binding {
			r.Skinning = e
		}
	}

	ks = slices.Clone(ks)
	slices.Sort(ks)
	ks = slices.Compact(ks)
	var keep []int
	for _, k := range ks {
		switch {
		case k < 1:
		case k > a.Rank:
			r.Notes = append(r.Notes, fmt.Sprintf("k = %d skipped: above the rank %d of the wrinkle flow", k, a.Rank))
		default:
			keep = append(keep, k)
		}
	}
	pca := plainPCA(anim.Frames, keep, opt.workers())
	for i, k := range keep {
		f, err := a.Flow(k)
		if err != nil {
			return nil, err
		}
		row := a.row(f)
		row.PCA = pca[i]
		r.Rows = append(r.Rows, row)
	}

	r.Target = opt.MaxError
	if r.Target == 0 {
		r.Target = DefaultMaxError
	}
	t1 := time.Now()
	f, _, err := a.FlowForError(r.Target)
	if err != nil {
		r.Chosen = Row{K: -1}
		r.Notes = append(r.Notes, err.Error())
	} else {
		r.Chosen = a.row(f)
		r.CompressSeconds = time.Since(t1).Seconds()
		r.Chosen.PCA = plainPCA(anim.Frames, []int{f.K}, opt.workers())[0]
	}
	for i := range r.Rows {
		r.Rows[i].RatioZstd = ratio(r.ZstdBytes, r.Rows[i].FlowBytes)
	}
	r.Chosen.RatioZstd = ratio(r.ZstdBytes, r.Chosen.FlowBytes)
	return r, nil
}

// ratio returns a/b, 0 when b is 0.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// row measures flow f of a.
func (a *Analysis) row(f *Flow) Row {
	n, m := a.NumVerts(), a.NumFrames()
	row := Row{K: f.K, Flow: Compare(f.Decompress(), a.anim.Frames), FlowBind: a.BindRMS(f.K), FlowBytes: f.Size()}
	if gs, err := f.GLTF(); err == nil {
		var c countWriter
		if gltfio.Encode(&c, gs, true) == nil {
			row.GLBBytes = c.n
		}
	}
	row.Ratio = float64(12*n*m) / float64(row.FlowBytes)
	return row
}

func skinOnly(rest []geom.Vec3, w skel.Weights, sk *skel.Skeleton, poses []skel.Pose, workers int) [][]geom.Vec3 {
	out := make([][]geom.Vec3, len(poses))
	parallelFrames(len(poses), workers, func(t int) {
		out[t] = skel.LBS(rest, w, skel.SkinMatrices(sk, poses[t], nil), nil)
	})
	return out
}

// zstdRawSize returns the size of the frames as float32 (x, y, z per
// vertex, frame after frame) compressed with zstd at the default level.
func zstdRawSize(frames [][]geom.Vec3) int64 {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	var c countWriter
	enc.Reset(&c)
	buf := make([]byte, 0, 1<<16)
	for _, fr := range frames {
		for _, p := range fr {
			for _, x := range []float64{p.X, p.Y, p.Z} {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(x)))
			}
			if len(buf) >= 1<<16-12 {
				if _, err := enc.Write(buf); err != nil {
					panic(err)
				}
				buf = buf[:0]
			}
		}
	}
	if _, err := enc.Write(buf); err != nil {
		panic(err)
	}
	if err := enc.Close(); err != nil {
		panic(err)
	}
	return c.n
}

// plainPCA returns the error of PCA of absolute world positions (centred
// by the mean shape) with each k of ks (increasing), unquantised.
func plainPCA(frames [][]geom.Vec3, ks []int, workers int) []ErrorStat {
	out := make([]ErrorStat, len(ks))
	if len(ks) == 0 {
		return out
	}
	m, n := len(frames), len(frames[0])
	x := mat.NewDense(m, 3*n, nil)
	mean := make([]float64, 3*n)
	for t, fr := range frames {
		row := x.RawRowView(t)
		for v, p := range fr {
			row[3*v], row[3*v+1], row[3*v+2] = p.X, p.Y, p.Z
		}
		for i, v := range row {
			mean[i] += v
		}
	}
	for i := range mean {
		mean[i] /= float64(m)
	}
	parallelFrames(m, workers, func(t int) {
		row := x.RawRowView(t)
		for i := range row {
			row[i] -= mean[i]
		}
	})
	lam, vecs, err := eigen(gram(x, workers))
	if err != nil {
		panic(err)
	}
	rank := rankOf(lam)
	kmax := min(ks[len(ks)-1], rank)
	basis := mat.NewDense(max(kmax, 1), 3*n, nil)
	if kmax > 0 {
		mulTA(basis, vecs.Slice(0, m, 0, kmax), x, workers)
	}
	// x becomes the residual: subtract components one by one, measuring
	// at each k of ks.
	done := 0
	for ki, k := range ks {
		k = min(k, kmax)
		parallelFrames(m, workers, func(t int) {
			row := x.RawRowView(t)
			for i := done; i < k; i++ {
				// u_i·z_i(t) = (Xᵀv_i/σ_i)·σ_i v_i(t) = v_i(t)·Xᵀv_i.
				c := vecs.At(t, i)
				b := basis.RawRowView(i)
				for j := range row {
					row[j] -= c * b[j]
				}
			}
		})
		done = k
		var sum, mx float64
		for t := 0; t < m; t++ {
			row := x.RawRowView(t)
			for v := 0; v < n; v++ {
				d := row[3*v]*row[3*v] + row[3*v+1]*row[3*v+1] + row[3*v+2]*row[3*v+2]
				sum += d
				mx = max(mx, d)
			}
		}
		out[ki] = ErrorStat{RMS: math.Sqrt(sum / float64(n*m)), Max: math.Sqrt(mx)}
	}
	return out
}
