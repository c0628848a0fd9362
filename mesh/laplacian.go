package mesh

import (
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/pleat-dev/pleat/geom"
)

// cotDegenerateRel is the relative size below which a triangle is treated
// as degenerate by the cotangent weights: 2·area ≤ cotDegenerateRel·Σ|e|².
// Such a triangle would contribute cotangents of order 1/cotDegenerateRel,
// so it is skipped instead (its edges keep the weights of their other
// triangles).
const cotDegenerateRel = 1e-10

// Laplacian is a sparse symmetric N×N matrix in compressed sparse row form:
// row i holds the entries Val[k] at columns Col[k] for
// RowStart[i] ≤ k < RowStart[i+1], columns ascending, the diagonal
// included. Its sparsity is the vertex adjacency of a Topology.
//
// Sign convention: L is negative semi-definite like the continuous
// Laplace–Beltrami operator Δ. Off-diagonal entries are the edge weights
// L_ij = w_ij and the diagonal is L_ii = −Σ_j w_ij, so
//
//	(L f)_i = Σ_j w_ij (f_j − f_i),
//
// rows sum to zero and constants are in the null space. With the cotangent
// weights w_ij = (cot α_ij + cot β_ij)/2 (α, β the angles opposite edge ij;
// one term on a boundary edge, all terms on a non-manifold edge) applied to
// the positions x, (L x)_i = −2 A_i H_i n_i, the integrated mean-curvature
// normal (Meyer et al. 2003, eq. 8), with A_i the mixed area, H_i > 0 on a
// convex surface and n_i the outward normal; the stiffness matrix of linear
// finite elements is −L. Divide row i by A_i (MixedAreas) for the pointwise
// operator.
//
// Laplacian implements gonum's mat.Symmetric. Its methods may be called
// concurrently except SetCotan and SetUniform.
type Laplacian struct {
	N        int
	RowStart []int32
	Col      []int32
	Val      []float64

	top     *Topology
	diag    []int32    // index of each row's diagonal entry
	edgePos [][2]int32 // per edge {a,b}: index of (a,b) in row a, of (b,a) in row b
}

// newLaplacianPattern allocates the sparsity pattern of top.
func newLaplacianPattern(top *Topology) *Laplacian {
	n := top.NumVerts
	L := &Laplacian{
		N:        n,
		RowStart: make([]int32, n+1),
		Col:      make([]int32, n+2*len(top.Edges)),
		Val:      make([]float64, n+2*len(top.Edges)),
		top:      top,
		diag:     make([]int32, n),
		edgePos:  make([][2]int32, len(top.Edges)),
	}
	var row []uint64
	k := int32(0)
	for i := 0; i < n; i++ {
		L.RowStart[i] = k
		row = append(row[:0], uint64(i)<<32|0xffffffff)
		for j := top.RingStart[i]; j < top.RingStart[i+1]; j++ {
			row = append(row, uint64(top.Ring[j])<<32|uint64(uint32(top.RingEdges[j])))
		}
		slices.Sort(row)
		for _, r := range row {
			c, e := int32(r>>32), uint32(r)
			L.Col[k] = c
			if e == 0xffffffff {
				L.diag[i] = k
			} else if top.Edges[e][0] == int32(i) {
				L.edgePos[e][0] = k
			} else {
				L.edgePos[e][1] = k
			}
			k++
		}
	}
	L.RowStart[n] = k
	return L
}

// NewCotanLaplacian returns the cotangent Laplacian of m (weights
// (cot α + cot β)/2, see Laplacian) on the connectivity top, which must
// have been built from m's triangles.
func NewCotanLaplacian(m *Mesh, top *Topology) *Laplacian {
	L := newLaplacianPattern(top)
	L.SetCotan(m)
	return L
}

// NewUniformLaplacian returns the graph (umbrella) Laplacian of top:
// w_ij = 1 for every edge, L_ii = −valence(i).
func NewUniformLaplacian(top *Topology) *Laplacian {
	L := newLaplacianPattern(top)
	L.SetUniform()
	return L
}

// Topology returns the connectivity L was built on.
func (L *Laplacian) Topology() *Topology { return L.top }

// SetCotan recomputes the cotangent weights in place from the positions of
// m (same connectivity), without allocating: use it once per frame on a
// deforming mesh. Negative weights (both opposite angles obtuse) are kept.
// Triangles with 2·area ≤ 1e-10·Σ|e|² are skipped.
func (L *Laplacian) SetCotan(m *Mesh) {
	if len(m.Verts) != L.N || len(m.Tris) != L.top.NumTris {
		panic("mesh: Laplacian.SetCotan: mesh size differs from the topology")
	}
	clear(L.Val)
	for ti, t := range m.Tris {
		p0, p1, p2 := m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]
		e0, e1, e2 := p1.Sub(p0), p2.Sub(p1), p0.Sub(p2)
		dbl := e0.Cross(e1).Len()
		if !(dbl > cotDegenerateRel*(e0.Len2()+e1.Len2()+e2.Len2())) {
			continue
		}
		// cot at corner k = u·v/|u×v|; the edge opposite corner k is side
		// k+1 (from corner k+1 to k+2).
		inv := 0.5 / dbl
		te := L.top.TriEdges[ti]
		w0, w1, w2 := -e2.Dot(e0)*inv, -e0.Dot(e1)*inv, -e1.Dot(e2)*inv
		L.addEdge(te[1], w0)
		L.addEdge(te[2], w1)
		L.addEdge(te[0], w2)
	}
	L.fillDiag()
}

// SetUniform sets every edge weight to 1.
func (L *Laplacian) SetUniform() {
	clear(L.Val)
	for e := range L.edgePos {
		L.addEdge(int32(e), 1)
	}
	L.fillDiag()
}

func (L *Laplacian) addEdge(e int32, w float64) {
	p := L.edgePos[e]
	L.Val[p[0]] += w
	L.Val[p[1]] += w
}

func (L *Laplacian) fillDiag() {
	for _, d := range L.diag {
		L.Val[d] = 0
	}
	for e, p := range L.edgePos {
		w := L.Val[p[0]]
		ed := L.top.Edges[e]
		L.Val[L.diag[ed[0]]] -= w
		L.Val[L.diag[ed[1]]] -= w
	}
}

// Weight returns the weight w_ij of topology edge e.
func (L *Laplacian) Weight(e int32) float64 { return L.Val[L.edgePos[e][0]] }

// MulVec returns dst = L·x for a scalar field x (len N). dst is reused when
// its capacity suffices and must not alias x.
func (L *Laplacian) MulVec(dst, x []float64) []float64 {
	if len(x) != L.N {
		panic("mesh: Laplacian.MulVec: len(x) != N")
	}
	if cap(dst) < L.N {
		dst = make([]float64, L.N)
	}
	dst = dst[:L.N]
	col, val := L.Col, L.Val
	for i := 0; i < L.N; i++ {
		var s float64
		for k := L.RowStart[i]; k < L.RowStart[i+1]; k++ {
			s += val[k] * x[col[k]]
		}
		dst[i] = s
	}
	return dst
}

// MulVec3 returns dst = L·x for a vector field x (len N), each component
// independently. dst is reused when its capacity suffices and must not
// alias x.
func (L *Laplacian) MulVec3(dst, x []geom.Vec3) []geom.Vec3 {
	if len(x) != L.N {
		panic("mesh: Laplacian.MulVec3: len(x) != N")
	}
	if cap(dst) < L.N {
		dst = make([]geom.Vec3, L.N)
	}
	dst = dst[:L.N]
	col, val := L.Col, L.Val
	for i := 0; i < L.N; i++ {
		var sx, sy, sz float64
		for k := L.RowStart[i]; k < L.RowStart[i+1]; k++ {
			w, p := val[k], x[col[k]]
			sx += w * p.X
			sy += w * p.Y
			sz += w * p.Z
		}
		dst[i] = geom.Vec3{X: sx, Y: sy, Z: sz}
	}
	return dst
}

// Dims returns N, N (mat.Matrix).
func (L *Laplacian) Dims() (r, c int) { return L.N, L.N }

// SymmetricDim returns N (mat.Symmetric).
func (L *Laplacian) SymmetricDim() int { return L.N }

// At returns entry (i, j), zero off the pattern, by binary search in row i.
// It panics when i or j is out of range.
func (L *Laplacian) At(i, j int) float64 {
	if uint(i) >= uint(L.N) || uint(j) >= uint(L.N) {
		panic("mesh: Laplacian.At: index out of range")
	}
	row := L.Col[L.RowStart[i]:L.RowStart[i+1]]
	if k, ok := slices.BinarySearch(row, int32(j)); ok {
		return L.Val[int(L.RowStart[i])+k]
	}
	return 0
}

// T returns L itself: L is symmetric (mat.Matrix).
func (L *Laplacian) T() mat.Matrix { return L }

var _ mat.Symmetric = (*Laplacian)(nil)
