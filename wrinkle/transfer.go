package wrinkle

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TransferOptions configures NewTransfer. The zero value gives the
// defaults.
type TransferOptions struct {
	// Smooth is the number of Laplacian smoothing steps (umbrella weights,
	// λ = 0.5) applied to the up-sampled offsets on the fine mesh (§3.4:
	// barycentric up-sampling is not C¹ across the coarse mesh's edges,
	// which shows as shallow folds along them). 0 means 10; negative none.
	Smooth int
	// Workers is the number of goroutines that share a frame (the
	// caller's and Workers−1 helpers); 0 means runtime.GOMAXPROCS(0).
	// Results do not depend on it.
	Workers int
}

const defaultTransferSmooth = 10

// Transfer is wang2010's wrinkle detail transfer (§3.4, Eqs. 5–6): the
// synthesized fine mesh M_f, which knows only the pose, is moved onto the
// coarse simulated mesh M_c, which carries gravity, dynamics and the drag
// between joints, keeping M_f's wrinkles.
//
// The correspondence is computed once, in the rest shapes: each fine
// vertex u is projected onto its closest coarse triangle of the same piece,
// and a_uv is the barycentric coordinate of the projection at corner v (0
// for the other coarse vertices). Each frame
//
//	o(v) = v − Σ_u a_uv u / Σ_u a_uv − B_v b(v)     (Eq. 5, down-sampling)
//	u   ← u + S(Σ_v a_uv o(v))                      (Eq. 6, up-sampling)
//
// with S the Laplacian smoothing of the up-sampled offsets over M_f.
//
// b(v) is the rest-shape value of the first two terms, stored in v's local
// frame (B_v: its normal and a tangent towards a fixed neighbour, from the
// current coarse mesh). The weighted mean of the fine vertices around v is
// not v even when the meshes agree: it lies inside a convex surface by the
// chord sag, and at a boundary (cuff, hem) it is pulled off the rim by a
// third of an edge. Without b every frame would move the fine mesh by that
// bias (millimetres inward, centimetres along the rim); with it the
// transfer of the rest shapes onto each other is the identity, and a fine
// mesh that moves rigidly with the coarse one is moved with it.
//
// S is linear and fixed, so it is folded into the up-sampling once: each
// fine vertex's smoothed offset is one weighted sum of coarse offsets,
// row u of S^n A (n smoothing steps, A the barycentric up-sampling),
// which has the support of u's n-ring. A frame is then one pass over the
// coarse vertices (Eq. 5) and one over the fine ones, instead of n + 1.
// Each row drops its farthest entries, whose weights sum to at most 1e-4
// (transferPrune), and keeps its sum: the result is the n Jacobi steps'
// to a few 1e-4 of the largest offset (TestTransferSmoothOperator), and
// a uniform offset is carried to rounding.
//
// A Transfer allocates nothing per frame and is not safe for concurrent
// use. Frames are split over TransferOptions.Workers goroutines in fixed
// chunks of vertices that write disjoint outputs, so results do not
// depend on the worker count; Close ends the helpers.
type Transfer struct {
	nf, nc int
	// corner[u] and bary[u]: u's coarse triangle and barycentric weights.
	corner [][3]int32
	bary   [][3]float64
	// CSR of a_uv by coarse vertex: fine vertices dFine[dStart[v]:dStart[v+1]]
	// with weights dW, normalised to sum 1 (empty: v is no corner of any
	// projection and its offset is unused). dU[u][k] is u's weight in the
	// row of corner[u][k] (0 where bary[u][k] is 0).
	dStart []int32
	dFine  []int32
	dW     []float64
	dU     [][3]float64
	// CSR of S^n A by fine vertex: coarse vertices uCol[uStart[u]:uStart[u+1]]
	// (ascending) with weights uW.
	uStart []int32
	uCol   []int32
	uW     []float64
	// ref[v] is the neighbour that fixes v's tangent; bias[v] is b(v) as
	// (tangent, normal, binormal) components.
	ref  []int32
	bias []geom.Vec3
	// measured is false while NewTransfer measures the bias: offsets then
	// stores o(v) in local components instead of subtracting b(v).
	measured bool
	// cm is the coarse mesh with its positions swapped in per frame.
	cm mesh.Mesh
	// per-frame scratch
	cn  []geom.Vec3 // coarse vertex normals
	off []geom.Vec3 // o(v)

	pool *pool
	// The running frame's slices and the chunk functions that read them
	// (method values made once, so that a frame allocates nothing).
	fine, coarse, up, dst []geom.Vec3
	downFn, upFn          func(lo, hi int)
}

// NewTransfer computes the correspondence between the fine and the coarse
// garment in their rest shapes. finePiece and coarsePiece label each
// vertex's piece (nil: one piece); a fine vertex is only matched to coarse
// triangles of its own piece, so a shirt's hem is not pulled by the
// trousers under it. Both meshes must be valid (mesh.Mesh.Validate).
func NewTransfer(fine, coarse *mesh.Mesh, finePiece, coarsePiece []int32, opt TransferOptions) (*Transfer, error) {
	if err := fine.Validate(); err != nil {
		return nil, fmt.Errorf("wrinkle: transfer: fine mesh: %w", err)
	}
	if err := coarse.Validate(); err != nil {
		return nil, fmt.Errorf("wrinkle: transfer: coarse mesh: %w", err)
	}
	nf, nc := len(fine.Verts), len(coarse.Verts)
	if finePiece != nil && len(finePiece) != nf || coarsePiece != nil && len(coarsePiece) != nc {
		return nil, fmt.Errorf("wrinkle: transfer: piece labels for %d fine and %d coarse vertices, want %d and %d",
			len(finePiece), len(coarsePiece), nf, nc)
	}
	t := &Transfer{nf: nf, nc: nc, corner: make([][3]int32, nf), bary: make([][3]float64, nf),
		cm: mesh.Mesh{Tris: coarse.Tris}, cn: make([]geom.Vec3, nc), off: make([]geom.Vec3, nc)}
	if err := t.project(fine, coarse, finePiece, coarsePiece); err != nil {
		return nil, err
	}
	t.downWeights()
	top, err := mesh.NewTopology(fine)
	if err != nil {
		return nil, fmt.Errorf("wrinkle: transfer: fine mesh: %w", err)
	}
	iters := opt.Smooth
	if iters == 0 {
		iters = defaultTransferSmooth
	}
	t.upOperator(top, max(iters, 0), transferLambda)
	ctop, err := mesh.NewTopology(coarse)
	if err != nil {
		return nil, fmt.Errorf("wrinkle: transfer: coarse mesh: %w", err)
	}
	t.ref = make([]int32, nc)
	for v := range t.ref {
		t.ref[v] = -1
		if a, b := ctop.RingStart[v], ctop.RingStart[v+1]; b > a {
			t.ref[v] = ctop.Ring[a]
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	t.pool = newPool(workers)
	runtime.AddCleanup(t, stopPool, t.pool.Pool)
	t.downFn, t.upFn = t.downChunk, t.upChunk
	// b(v): the rest shapes' offsets, in each vertex's local frame.
	t.bias = make([]geom.Vec3, nc)
	t.offsets(fine.Verts, coarse.Verts)
	copy(t.bias, t.off)
	t.measured = true
	return t, nil
}

// Close ends the helper goroutines; later frames run on the caller alone.
func (t *Transfer) Close() { t.pool.stop() }

// project finds each fine vertex's closest coarse triangle of its piece.
func (t *Transfer) project(fine, coarse *mesh.Mesh, finePiece, coarsePiece []int32) error {
	piece := func(l []int32, i int32) int32 {
		if l == nil {
			return 0
		}
		return l[i]
	}
	byPiece := map[int32][][3]int32{}
	ids := map[int32][]int32{}
	for i, tr := range coarse.Tris {
		p := piece(coarsePiece, tr[0])
		byPiece[p] = append(byPiece[p], tr)
		ids[p] = append(ids[p], int32(i))
	}
	bvhs := map[int32]*mesh.BVH{}
	for u, x := range fine.Verts {
		p := piece(finePiece, int32(u))
		b := bvhs[p]
		if b == nil {
			if len(byPiece[p]) == 0 {
				return fmt.Errorf("wrinkle: transfer: fine vertex %d is in piece %d, which has no coarse triangle", u, p)
			}
			b = mesh.NewBVH(coarse.Verts, byPiece[p])
			bvhs[p] = b
		}
		h := b.ClosestPoint(x)
		t.corner[u] = coarse.Tris[ids[p][h.Tri]]
		t.bary[u] = h.Bary
	}
	return nil
}

// downWeights transposes a_uv into rows per coarse vertex, normalised.
func (t *Transfer) downWeights() {
	t.dStart = make([]int32, t.nc+1)
	for u := range t.corner {
		for k, v := range t.corner[u] {
			if t.bary[u][k] > 0 {
				t.dStart[v+1]++
			}
		}
	}
	for v := 0; v < t.nc; v++ {
		t.dStart[v+1] += t.dStart[v]
	}
	n := t.dStart[t.nc]
	t.dFine, t.dW = make([]int32, n), make([]float64, n)
	fill := append([]int32(nil), t.dStart[:t.nc]...)
	for u := range t.corner {
		for k, v := range t.corner[u] {
			if a := t.bary[u][k]; a > 0 {
				t.dFine[fill[v]], t.dW[fill[v]] = int32(u), a
				fill[v]++
			}
		}
	}
	sum := make([]float64, t.nc)
	for v := 0; v < t.nc; v++ {
		s := 0.0
		for i := t.dStart[v]; i < t.dStart[v+1]; i++ {
			s += t.dW[i]
		}
		for i := t.dStart[v]; i < t.dStart[v+1]; i++ {
			t.dW[i] /= s
		}
		sum[v] = s
	}
	t.dU = make([][3]float64, t.nf)
	for u, c := range t.corner {
		for k, v := range c {
			if a := t.bary[u][k]; a > 0 {
				t.dU[u][k] = a / sum[v]
			}
		}
	}
}

// transferLambda is the step λ of the smoothing S.
const transferLambda = 0.5

// upOperator sets uStart, uCol and uW to S^iters A: the barycentric
// up-sampling A (a_uv) followed by iters Jacobi steps of umbrella
// smoothing on the fine mesh,
//
//	f_u ← f_u + λ Σ_{j ∈ N(u)} (f_j − f_u) / |N(u)|,
//
// (vertices without neighbours unchanged), as mesh.Smoother does. Column v
// is the smoothing of A's column v, a scalar field whose support grows by
// one ring per step from the fine vertices projected next to v.
func (t *Transfer) upOperator(top *mesh.Topology, iters int, lambda float64) {
	type entry struct {
		u int32
		w float64
	}
	cur, nxt := make([]float64, t.nf), make([]float64, t.nf)
	in := make([]bool, t.nf)
	var act, grown []int32
	cols := make([][]entry, t.nc)
	count := make([]int32, t.nf+1)
	for v := 0; v < t.nc; v++ {
		act = act[:0]
		for i := t.dStart[v]; i < t.dStart[v+1]; i++ {
			u := t.dFine[i]
			for k, c := range t.corner[u] {
				if c == int32(v) {
					cur[u] = t.bary[u][k]
				}
			}
			in[u] = true
			act = append(act, u)
		}
		for range iters {
			grown = append(grown[:0], act...)
			for _, u := range act {
				for _, j := range top.Ring[top.RingStart[u]:top.RingStart[u+1]] {
					if !in[j] {
						in[j] = true
						grown = append(grown, j)
					}
				}
			}
			for _, u := range grown {
				a, b := top.RingStart[u], top.RingStart[u+1]
				fu := cur[u]
				if a == b {
					nxt[u] = fu
					continue
				}
				w := 1 / float64(b-a)
				d := 0.0
				for _, j := range top.Ring[a:b] {
					d += w * (cur[j] - fu)
				}
				nxt[u] = fu + lambda*d
			}
			for _, u := range grown {
				cur[u] = nxt[u]
			}
			act, grown = grown, act
		}
		slices.Sort(act)
		for _, u := range act {
			if cur[u] != 0 {
				cols[v] = append(cols[v], entry{u, cur[u]})
				count[u+1]++
			}
			cur[u], nxt[u], in[u] = 0, 0, false
		}
	}
	for u := 0; u < t.nf; u++ {
		count[u+1] += count[u]
	}
	n := count[t.nf]
	uCol, uW := make([]int32, n), make([]float64, n)
	fill := append([]int32(nil), count[:t.nf]...)
	for v, col := range cols {
		for _, e := range col {
			uCol[fill[e.u]], uW[fill[e.u]] = int32(v), e.w
			fill[e.u]++
		}
	}
	t.pruneRows(count, uCol, uW)
}

// transferPrune bounds the weights dropped from each row of S^n A: the
// smoothing spreads a coarse vertex's weight over its n-ring with weights
// that fall geometrically with the distance (λ/|N(u)| per ring), so a
// row's long tail carries little: with 10 steps on the 46k procedural
// shirt a row keeps 8.6 coarse vertices on average at 1e-4 (12.5 at 1e-7,
// 7.1 at 1e-3). Dropping them, with the kept ones scaled to the row's
// sum, moves an offset by at most 2e-4 of the largest difference between
// coarse offsets o(v) within the row's support (20 µm where they differ
// by 10 cm), and spares nearly a third of the up-sampling's work (and of
// the pre-alignment's, which runs over the same rows).
const transferPrune = 1e-4

// pruneRows sets t.uStart, t.uCol and t.uW to the rows of S^n A given by
// start, col and w, less each row's smallest entries whose magnitudes sum
// to at most transferPrune (the kept ones in ascending column order,
// scaled to the row's sum).
func (t *Transfer) pruneRows(start, col []int32, w []float64) {
	t.uStart = make([]int32, t.nf+1)
	t.uCol, t.uW = col[:0], w[:0] // compacted in place: writes trail reads
	var order []int32
	var drop []bool
	for u := 0; u < t.nf; u++ {
		a, b := start[u], start[u+1]
		order = order[:0]
		for i := a; i < b; i++ {
			order = append(order, i)
		}
		slices.SortStableFunc(order, func(x, y int32) int { return cmpAbs(w[x], w[y]) })
		drop = append(drop[:0], make([]bool, b-a)...)
		sum := 0.0
		for _, i := range order {
			if sum+math.Abs(w[i]) > transferPrune {
				break
			}
			sum += math.Abs(w[i])
			drop[i-a] = true
		}
		// The kept weights are scaled to the row's sum, so that a uniform
		// offset (the coarse mesh translated) is still carried exactly.
		all, kept := 0.0, 0.0
		for i := a; i < b; i++ {
			all += w[i]
			if !drop[i-a] {
				kept += w[i]
			}
		}
		scale := 1.0
		if kept != 0 {
			scale = all / kept
		}
		for i := a; i < b; i++ {
			if !drop[i-a] {
				t.uCol, t.uW = append(t.uCol, col[i]), append(t.uW, w[i]*scale)
			}
		}
		t.uStart[u+1] = int32(len(t.uCol))
	}
	t.uCol, t.uW = slices.Clip(t.uCol), slices.Clip(t.uW)
}

// cmpAbs orders by magnitude.
func cmpAbs(x, y float64) int {
	switch ax, ay := math.Abs(x), math.Abs(y); {
	case ax < ay:
		return -1
	case ax > ay:
		return 1
	}
	return 0
}

// NumFine and NumCoarse return the vertex counts Apply expects.
func (t *Transfer) NumFine() int   { return t.nf }
func (t *Transfer) NumCoarse() int { return t.nc }

// Apply writes into dst[:NumFine()] the fine mesh fine moved onto the
// coarse mesh coarse (Eqs. 5–6 with the smoothed up-sampling). dst may be
// fine. It allocates nothing; it returns an error for slices of the wrong
// length.
func (t *Transfer) Apply(fine, coarse, dst []geom.Vec3) error {
	if err := t.check(fine, coarse, dst); err != nil {
		return err
	}
	t.frameRun(fine, coarse, nil, dst[:t.nf])
	return nil
}

func (t *Transfer) check(fine, coarse, dst []geom.Vec3) error {
	if len(fine) != t.nf || len(dst) < t.nf || len(coarse) != t.nc {
		return fmt.Errorf("wrinkle: transfer of %d fine (dst %d) onto %d coarse vertices, want %d onto %d",
			len(fine), len(dst), len(coarse), t.nf, t.nc)
	}
	return nil
}

// Offsets writes into up[:NumFine()] the smoothed up-sampled offsets that
// move fine onto coarse: Apply's dst − fine. Slices must have Apply's
// lengths (it panics otherwise: use Apply for unchecked input).
func (t *Transfer) Offsets(fine, coarse, up []geom.Vec3) {
	t.frameRun(fine, coarse, up[:t.nf], nil)
}

// downChunk and upChunk are the chunk lengths of a frame, in coarse and
// fine vertices.
const (
	downChunk = 64
	upChunk   = 1024
)

// transferSerialBelow is the fine vertex count under which a frame (and a
// push-out) runs on the caller alone: waking a helper costs microseconds.
// Tests lower it to run small meshes in chunks.
var transferSerialBelow = 4096

// frameRun computes o(v) (Eq. 5), then per fine vertex its smoothed
// up-sampled offset (Eq. 6), written to up if non-nil and added to fine
// into dst if non-nil.
func (t *Transfer) frameRun(fine, coarse, up, dst []geom.Vec3) {
	t.cm.Verts = coarse
	t.cn = mesh.VertexNormals(&t.cm, t.cn)
	t.fine, t.coarse, t.up, t.dst = fine, coarse, up, dst
	if t.nf < transferSerialBelow {
		t.downChunk(0, t.nc)
		t.upChunk(0, t.nf)
	} else {
		t.pool.run(t.nc, downChunk, t.downFn)
		t.pool.run(t.nf, upChunk, t.upFn)
	}
	t.fine, t.coarse, t.up, t.dst = nil, nil, nil, nil
	t.cm.Verts = nil
}

// down computes the frame's coarse offsets o(v) (Eq. 5) into t.off and
// leaves t.fine and t.coarse set (the caller clears them).
func (t *Transfer) down(fine, coarse []geom.Vec3) {
	t.cm.Verts = coarse
	t.cn = mesh.VertexNormals(&t.cm, t.cn)
	t.cm.Verts = nil
	t.fine, t.coarse = fine, coarse
	if t.nf < transferSerialBelow {
		t.downChunk(0, t.nc)
	} else {
		t.pool.run(t.nc, downChunk, t.downFn)
	}
}

// offsets computes o(v) of Eq. 5 into t.off, less the rest bias b(v).
func (t *Transfer) offsets(fine, coarse []geom.Vec3) {
	t.cm.Verts = coarse
	t.cn = mesh.VertexNormals(&t.cm, t.cn)
	t.fine, t.coarse = fine, coarse
	t.downChunk(0, t.nc)
	t.fine, t.coarse = nil, nil
	t.cm.Verts = nil
}

// downChunk computes o(v) for coarse vertices [lo, hi) (Eq. 5).
func (t *Transfer) downChunk(lo, hi int) {
	fine, coarse := t.fine, t.coarse
	for v := lo; v < hi; v++ {
		a, b := t.dStart[v], t.dStart[v+1]
		if a == b {
			t.off[v] = geom.Vec3{}
			continue
		}
		var d geom.Vec3
		for i := a; i < b; i++ {
			d = d.Add(fine[t.dFine[i]].Scale(t.dW[i]))
		}
		o := coarse[v].Sub(d)
		tg, n, bn := t.frame(coarse, v)
		if t.measured {
			bv := t.bias[v]
			o = o.Sub(tg.Scale(bv.X).Add(n.Scale(bv.Y)).Add(bn.Scale(bv.Z)))
		} else {
			o = geom.Vec3{X: o.Dot(tg), Y: o.Dot(n), Z: o.Dot(bn)}
		}
		t.off[v] = o
	}
}

// upChunk computes the smoothed up-sampled offsets (S^n A o)(u) of fine
// vertices [lo, hi) (Eq. 6).
func (t *Transfer) upChunk(lo, hi int) {
	off, up, dst, fine := t.off, t.up, t.dst, t.fine
	for u := lo; u < hi; u++ {
		x := t.smoothed(off, u)
		if up != nil {
			up[u] = x
		}
		if dst != nil {
			dst[u] = fine[u].Add(x)
		}
	}
}

// smoothed returns row u of S^n A applied to the coarse field o.
func (t *Transfer) smoothed(o []geom.Vec3, u int) geom.Vec3 {
	var x, y, z float64
	a, b := t.uStart[u], t.uStart[u+1]
	col, w := t.uCol[a:b], t.uW[a:b:b]
	for k, v := range col {
		q, wk := o[v], w[k]
		x += wk * q.X
		y += wk * q.Y
		z += wk * q.Z
	}
	return geom.Vec3{X: x, Y: y, Z: z}
}

// frame returns coarse vertex v's local frame: tangent towards its
// reference neighbour, normal, binormal. Where either is undefined it
// falls back to the world axes (the bias is then stored in world
// components, consistently).
func (t *Transfer) frame(x []geom.Vec3, v int) (tg, n, bn geom.Vec3) {
	n = t.cn[v]
	r := t.ref[v]
	if r >= 0 && n.Len2() > 0.5 {
		e := x[r].Sub(x[v])
		e = e.Sub(n.Scale(e.Dot(n)))
		if l := e.Len(); l > 1e-12 && !math.IsNaN(l) {
			tg = e.Scale(1 / l)
			return tg, n, n.Cross(tg)
		}
	}
	return geom.Vec3{X: 1}, geom.Vec3{Y: 1}, geom.Vec3{Z: 1}
}

// Embed writes into dst[:NumFine()] each fine vertex's rest projection
// carried by the coarse mesh coarse: Σ_v a_uv v, the coarse surface
// sampled at the fine vertices (no detail), for comparing a coarse result
// with fine ones vertex by vertex.
func (t *Transfer) Embed(coarse, dst []geom.Vec3) error {
	if len(coarse) != t.nc || len(dst) < t.nf {
		return fmt.Errorf("wrinkle: embedding %d coarse vertices into %d, want %d into %d", len(coarse), len(dst), t.nc, t.nf)
	}
	for u := 0; u < t.nf; u++ {
		c, w := t.corner[u], t.bary[u]
		dst[u] = coarse[c[0]].Scale(w[0]).Add(coarse[c[1]].Scale(w[1])).Add(coarse[c[2]].Scale(w[2]))
	}
	return nil
}
