package cloth

import (
	"sort"

	"github.com/pleat-dev/pleat/geom"
)

// bsr is a square block-sparse matrix with 3x3 blocks in compressed sparse
// row form. The sparsity (one block per vertex pair sharing an element, plus
// the diagonal) is fixed when the cloth is built; the values are refilled
// every step. Both (i,j) and (j,i) are stored, so rows can be multiplied
// independently in parallel.
type bsr struct {
	n        int
	rowStart []int32 // n+1
	col      []int32
	val      []geom.Mat3
	diag     []int32 // slot of (i,i)
}

func (m *bsr) build(n int, pairs [][2]int32) {
	m.n = n
	// Collect each row's columns (with the diagonal), sort and dedupe.
	rows := make([][]int32, n)
	for i := 0; i < n; i++ {
		rows[i] = append(make([]int32, 0, 8), int32(i))
	}
	for _, p := range pairs {
		rows[p[0]] = append(rows[p[0]], p[1])
		rows[p[1]] = append(rows[p[1]], p[0])
	}
	m.rowStart = make([]int32, n+1)
	m.col = m.col[:0]
	m.diag = make([]int32, n)
	for i := 0; i < n; i++ {
		r := rows[i]
		sort.Slice(r, func(a, b int) bool { return r[a] < r[b] })
		w := 0
		for k := range r {
			if k == 0 || r[k] != r[k-1] {
				r[w] = r[k]
				w++
			}
		}
		r = r[:w]
		for _, j := range r {
			if j == int32(i) {
				m.diag[i] = int32(len(m.col))
			}
			m.col = append(m.col, j)
		}
		m.rowStart[i+1] = int32(len(m.col))
	}
	m.val = make([]geom.Mat3, len(m.col))
}

// slot returns the index of block (i,j); it panics if absent.
func (m *bsr) slot(i, j int32) int32 {
	lo, hi := int(m.rowStart[i]), int(m.rowStart[i+1])
	k := lo + sort.Search(hi-lo, func(k int) bool { return m.col[lo+k] >= j })
	if k == hi || m.col[k] != j {
		panic("cloth: missing block in sparsity pattern")
	}
	return int32(k)
}

// addMat adds a to dst.
func addMat(dst *geom.Mat3, a *geom.Mat3) {
	for r := 0; r < 3; r++ {
		dst[r][0] += a[r][0]
		dst[r][1] += a[r][1]
		dst[r][2] += a[r][2]
	}
}

// addOuter adds s·a bᵀ to dst.
func addOuter(dst *geom.Mat3, s float64, a, b geom.Vec3) {
	ax, ay, az := s*a.X, s*a.Y, s*a.Z
	dst[0][0] += ax * b.X
	dst[0][1] += ax * b.Y
	dst[0][2] += ax * b.Z
	dst[1][0] += ay * b.X
	dst[1][1] += ay * b.Y
	dst[1][2] += ay * b.Z
	dst[2][0] += az * b.X
	dst[2][1] += az * b.Y
	dst[2][2] += az * b.Z
}

// mulVec returns m·v for a Mat3 pointer (avoids copying the matrix).
func mulVec(m *geom.Mat3, v geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: m[0][0]*v.X + m[0][1]*v.Y + m[0][2]*v.Z,
		Y: m[1][0]*v.X + m[1][1]*v.Y + m[1][2]*v.Z,
		Z: m[2][0]*v.X + m[2][1]*v.Y + m[2][2]*v.Z,
	}
}

// mulTVec returns mᵀ·v.
func mulTVec(m *geom.Mat3, v geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: m[0][0]*v.X + m[1][0]*v.Y + m[2][0]*v.Z,
		Y: m[0][1]*v.X + m[1][1]*v.Y + m[2][1]*v.Z,
		Z: m[0][2]*v.X + m[1][2]*v.Y + m[2][2]*v.Z,
	}
}
