package resynth

import (
	"fmt"
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
)

// poisson is the reconstruction system of Eq. P1 (see doc.go): the
// weighted edge Laplacian of the rest mesh plus the constraint weights on
// its diagonal, factored once as L·Lᵀ in envelope (skyline) form after a
// reverse Cuthill–McKee reordering, which keeps the envelope narrow for a
// mesh. Solving for the three coordinates at once costs about
// 2·3·(envelope size) multiply-adds.
type poisson struct {
	n int
	// Per triangle edge (01, 12, 20) weight and rest vector r_b − r_a.
	ew   [][3]float64
	edge [][3]geom.Vec3
	tris [][3]int32
	// Constraint vertices and their weights w_c.
	cons []int32
	wc   []float64
	// Envelope Cholesky factor in the permuted order: row i holds columns
	// first[i]..i at val[start[i]:start[i+1]], the diagonal last.
	perm  []int32 // perm[new] = old
	inv   []int32 // inv[old] = new
	first []int32
	start []int64
	val   []float64
}

// Edge weight bounds relative to the mean: a very short edge would make
// the system stiff along it without adding information.
const (
	minEdgeWeight = 0.1
	maxEdgeWeight = 10.0
)

// newPoisson builds and factors the system for the rest mesh with the
// given constrained vertices; cw are their weights relative to the mean
// diagonal of the Laplacian.
func newPoisson(rest []geom.Vec3, tris [][3]int32, cons []int32, cw []float64) (*poisson, error) {
	n := len(rest)
	p := &poisson{n: n, tris: tris, cons: cons, ew: make([][3]float64, len(tris)), edge: make([][3]geom.Vec3, len(tris))}
	mean := 0.0
	for t, tri := range tris {
		for k := 0; k < 3; k++ {
			e := rest[tri[(k+1)%3]].Sub(rest[tri[k]])
			p.edge[t][k] = e
			mean += e.Len2()
		}
	}
	mean /= float64(3 * len(tris))
	if !(mean > 0) {
		return nil, fmt.Errorf("resynth: the garment's rest edges have zero length")
	}
	// Off-diagonal entries per vertex pair, and the diagonal.
	diag := make([]float64, n)
	type pair struct{ a, b int32 }
	off := map[pair]float64{}
	for t, tri := range tris {
		for k := 0; k < 3; k++ {
			w := mean / p.edge[t][k].Len2()
			w = min(max(w, minEdgeWeight), maxEdgeWeight)
			p.ew[t][k] = w
			a, b := tri[k], tri[(k+1)%3]
			diag[a] += w
			diag[b] += w
			if a > b {
				a, b = b, a
			}
			off[pair{a, b}] -= w
		}
	}
	md := 0.0
	for _, d := range diag {
		md += d
	}
	md /= float64(n)
	p.wc = make([]float64, len(cons))
	for k, c := range cons {
		p.wc[k] = cw[k] * md
		diag[c] += p.wc[k]
	}
	adj := make([][]int32, n)
	pairs := make([]pair, 0, len(off))
	for k := range off {
		pairs = append(pairs, k)
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.b - y.b)
	})
	for _, k := range pairs {
		adj[k.a] = append(adj[k.a], k.b)
		adj[k.b] = append(adj[k.b], k.a)
	}
	p.perm = rcm(adj)
	p.inv = make([]int32, n)
	for i, v := range p.perm {
		p.inv[v] = int32(i)
	}
	p.first = make([]int32, n)
	p.start = make([]int64, n+1)
	for i := 0; i < n; i++ {
		f := int32(i)
		for _, u := range adj[p.perm[i]] {
			f = min(f, p.inv[u])
		}
		p.first[i] = f
		p.start[i+1] = p.start[i] + int64(int32(i)-f+1)
	}
	p.val = make([]float64, p.start[n])
	for i := 0; i < n; i++ {
		p.val[p.start[i+1]-1] = diag[p.perm[i]]
	}
	for _, k := range pairs {
		i, j := p.inv[k.a], p.inv[k.b]
		if i < j {
			i, j = j, i
		}
		p.val[p.start[i]+int64(j-p.first[i])] = off[k]
	}
	return p, p.factor()
}

// factor overwrites val with the Cholesky factor (row-oriented envelope
// factorisation: L_ij = (A_ij − Σ_k L_ik L_jk)/L_jj over the common
// envelope, L_ii = √(A_ii − Σ_k L_ik²)).
func (p *poisson) factor() error {
	for i := 0; i < p.n; i++ {
		fi := p.first[i]
		ri := p.val[p.start[i]:p.start[i+1]] // columns fi..i
		for j := fi; j < int32(i); j++ {
			fj := p.first[j]
			rj := p.val[p.start[j]:p.start[j+1]] // columns fj..j
			k0 := max(fi, fj)
			a := ri[k0-fi : j-fi]
			b := rj[k0-fj : j-fj]
			s := ri[j-fi] - dot(a, b)
			ri[j-fi] = s / rj[j-fj]
		}
		d := ri[:int32(i)-fi]
		s := ri[int32(i)-fi] - dot(d, d)
		if !(s > 0) {
			return fmt.Errorf("resynth: the reconstruction system is singular at vertex %d (a garment piece without a constrained vertex?)", p.perm[i])
		}
		ri[int32(i)-fi] = math.Sqrt(s)
	}
	return nil
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s0, s1 := 0.0, 0.0
	i := 0
	for ; i+1 < len(a); i += 2 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
	}
	if i < len(a) {
		s0 += a[i] * b[i]
	}
	return s0 + s1
}

// envelopeSize returns the number of stored factor entries.
func (p *poisson) envelopeSize() int { return len(p.val) }

// rhs fills b (3n: all x, then all y, then all z, in the permuted order)
// with the right-hand side of Eq. P1's normal equations for gradients f
// (one per triangle) and constraint targets y.
func (p *poisson) rhs(b []float64, f []geom.Mat3, y []geom.Vec3) {
	clear(b)
	n := p.n
	bx, by, bz := b[:n], b[n:2*n], b[2*n:3*n]
	for t, tri := range p.tris {
		ft := &f[t]
		for k := 0; k < 3; k++ {
			g := ft.MulVec(p.edge[t][k]).Scale(p.ew[t][k])
			a, c := p.inv[tri[k]], p.inv[tri[(k+1)%3]]
			bx[a] -= g.X
			by[a] -= g.Y
			bz[a] -= g.Z
			bx[c] += g.X
			by[c] += g.Y
			bz[c] += g.Z
		}
	}
	for k, c := range p.cons {
		i := p.inv[c]
		bx[i] += p.wc[k] * y[k].X
		by[i] += p.wc[k] * y[k].Y
		bz[i] += p.wc[k] * y[k].Z
	}
}

// solve solves L·Lᵀ·x = b in place (b as from rhs) and writes the
// positions in the original order to dst.
func (p *poisson) solve(b []float64, dst []geom.Vec3) {
	n := p.n
	bx, by, bz := b[:n], b[n:2*n], b[2*n:3*n]
	for i := 0; i < n; i++ {
		fi := p.first[i]
		ri := p.val[p.start[i]:p.start[i+1]]
		m := len(ri) - 1
		r := ri[:m]
		xs, ys, zs := bx[fi:i], by[fi:i], bz[fi:i]
		xs, ys, zs = xs[:m], ys[:m], zs[:m]
		sx, sy, sz := bx[i], by[i], bz[i]
		for k, l := range r {
			sx -= l * xs[k]
			sy -= l * ys[k]
			sz -= l * zs[k]
		}
		d := 1 / ri[m]
		bx[i], by[i], bz[i] = sx*d, sy*d, sz*d
	}
	for i := n - 1; i >= 0; i-- {
		fi := p.first[i]
		ri := p.val[p.start[i]:p.start[i+1]]
		m := len(ri) - 1
		r := ri[:m]
		d := 1 / ri[m]
		x, y, z := bx[i]*d, by[i]*d, bz[i]*d
		bx[i], by[i], bz[i] = x, y, z
		xs, ys, zs := bx[fi:i], by[fi:i], bz[fi:i]
		xs, ys, zs = xs[:m], ys[:m], zs[:m]
		for k, l := range r {
			xs[k] -= l * x
			ys[k] -= l * y
			zs[k] -= l * z
		}
	}
	for i, v := range p.perm {
		dst[v] = geom.Vec3{X: bx[i], Y: by[i], Z: bz[i]}
	}
}

// rcm returns a reverse Cuthill–McKee order of the graph adj (perm[new] =
// old): breadth-first from a pseudo-peripheral vertex of each component,
// neighbours by increasing degree, then reversed.
func rcm(adj [][]int32) []int32 {
	n := len(adj)
	seen := make([]bool, n)
	order := make([]int32, 0, n)
	level := make([]int32, n)
	bfs := func(s int32, mark []bool) (last int32, depth int32) {
		q := []int32{s}
		mark[s] = true
		level[s] = 0
		for h := 0; h < len(q); h++ {
			u := q[h]
			last, depth = u, level[u]
			for _, v := range adj[u] {
				if !mark[v] {
					mark[v] = true
					level[v] = level[u] + 1
					q = append(q, v)
				}
			}
		}
		for _, u := range q {
			mark[u] = false
		}
		return last, depth
	}
	tmp := make([]bool, n)
	nb := []int32{}
	for s0 := 0; s0 < n; s0++ {
		if seen[s0] {
			continue
		}
		// Pseudo-peripheral start: repeat BFS from the farthest vertex
		// while the depth grows.
		s := int32(s0)
		_, d := bfs(s, tmp)
		for it := 0; it < 4; it++ {
			far, d2 := bfs(s, tmp)
			if it > 0 && d2 <= d {
				break
			}
			s, d = far, d2
		}
		head := len(order)
		order = append(order, s)
		seen[s] = true
		for h := head; h < len(order); h++ {
			u := order[h]
			nb = nb[:0]
			for _, v := range adj[u] {
				if !seen[v] {
					seen[v] = true
					nb = append(nb, v)
				}
			}
			slices.SortStableFunc(nb, func(a, b int32) int {
				if da, db := len(adj[a]), len(adj[b]); da != db {
					return da - db
				}
				return int(a - b)
			})
			order = append(order, nb...)
		}
	}
	slices.Reverse(order)
	return order
}
