package procedural

import (
	"math"
	"sync"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// cubeEdges are the 12 edges of a cell as pairs of corner ids (bit 0 = +x,
// bit 1 = +y, bit 2 = +z).
var cubeEdges = [12][2]int{
	{0, 1}, {2, 3}, {4, 5}, {6, 7},
	{0, 2}, {1, 3}, {4, 6}, {5, 7},
	{0, 4}, {1, 5}, {2, 6}, {3, 7},
}

// ambiguous reports whether the corners inside (bit set in mask) or those
// outside form more than one edge-connected group in the cube: there naive
// surface nets would join two sheets at one vertex (non-manifold).
func ambiguous(mask int) bool {
	for _, want := range [2]int{1, 0} {
		var seen, n int
		for c := range 8 {
			if (mask>>c)&1 != want || seen&(1<<c) != 0 {
				continue
			}
			n++
			stack := []int{c}
			seen |= 1 << c
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for b := range 3 {
					y := x ^ (1 << b)
					if (mask>>y)&1 == want && seen&(1<<y) == 0 {
						seen |= 1 << y
						stack = append(stack, y)
					}
				}
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

// surfaceNets polygonises the zero set of f (negative inside) over box with
// cubic cells of size h whose lattice is shifted by shift·h, by naive
// surface nets (Gibson 1998): one vertex per cell the surface crosses, at
// the mean of the edge crossings, pulled onto the surface by Newton steps
// along grad (kept in its cell), and one quad per crossing grid edge, split
// along its shorter diagonal. The triangles are oriented with normals
// pointing to f > 0. ok is false when some cell is ambiguous (two sheets),
// in which case the mesh may be non-manifold and the caller should shift
// the lattice. f must be safe for concurrent use; the result does not
// depend on workers.
func surfaceNets(f func(geom.Vec3) float64, grad func(geom.Vec3) geom.Vec3, box geom.Box, h float64, shift geom.Vec3, workers int) (m *mesh.Mesh, ok bool) {
	org := box.Min.Sub(geom.V(2*h, 2*h, 2*h)).Add(shift.Scale(h))
	sz := box.Size()
	nx := int(math.Ceil(sz.X/h)) + 5
	ny := int(math.Ceil(sz.Y/h)) + 5
	nz := int(math.Ceil(sz.Z/h)) + 5
	node := func(i, j, k int) geom.Vec3 {
		return geom.V(org.X+float64(i)*h, org.Y+float64(j)*h, org.Z+float64(k)*h)
	}
	nid := func(i, j, k int) int { return i + nx*(j+ny*k) }
	val := make([]float64, nx*ny*nz)
	parallel(nz, workers, func(k int) {
		for j := range ny {
			for i := range nx {
				val[nid(i, j, k)] = f(node(i, j, k))
			}
		}
	})
	in := func(n int) bool { return val[n] < 0 }

	// Cell vertices.
	cx, cy, cz := nx-1, ny-1, nz-1
	cid := func(i, j, k int) int { return i + cx*(j+cy*k) }
	cellVert := make([]int32, cx*cy*cz)
	ok = true
	m = &mesh.Mesh{}
	for k := range cz {
		for j := range cy {
			for i := range cx {
				var mask int
				var cv [8]float64
				for c := range 8 {
					n := nid(i+c&1, j+(c>>1)&1, k+(c>>2)&1)
					cv[c] = val[n]
					if in(n) {
						mask |= 1 << c
					}
				}
				ci := cid(i, j, k)
				cellVert[ci] = -1
				if mask == 0 || mask == 255 {
					continue
				}
				if ambiguous(mask) {
					ok = false
				}
				var sum geom.Vec3
				var cnt float64
				for _, e := range cubeEdges {
					a, b := e[0], e[1]
					if (mask>>a)&1 == (mask>>b)&1 {
						continue
					}
					t := cv[a] / (cv[a] - cv[b])
					pa := geom.V(float64(a&1), float64((a>>1)&1), float64((a>>2)&1))
					pb := geom.V(float64(b&1), float64((b>>1)&1), float64((b>>2)&1))
					sum = sum.Add(pa.Lerp(pb, t))
					cnt++
				}
				cellVert[ci] = int32(len(m.Verts))
				m.Verts = append(m.Verts, node(i, j, k).Add(sum.Scale(h/cnt)))
			}
		}
	}
	// Project the vertices onto the surface, keeping each in its cell.
	parallel(len(m.Verts), workers, func(v int) {
		p := m.Verts[v]
		lo := geom.V(math.Floor((p.X-org.X)/h)*h+org.X, math.Floor((p.Y-org.Y)/h)*h+org.Y, math.Floor((p.Z-org.Z)/h)*h+org.Z)
		hi := lo.Add(geom.V(h, h, h))
		for range 3 {
			g := grad(p)
			g2 := g.Len2()
			if g2 < 1e-12 {
				break
			}
			p = p.Sub(g.Scale(f(p) / g2)).Max(lo).Min(hi)
		}
		m.Verts[v] = p
	})
	// Quads across crossing grid edges.
	quad := func(a, b, c, d int32, flip bool) {
		if flip {
			b, d = d, b
		}
		if m.Verts[a].Dist2(m.Verts[c]) <= m.Verts[b].Dist2(m.Verts[d]) {
			m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
		} else {
			m.Tris = append(m.Tris, [3]int32{a, b, d}, [3]int32{b, c, d})
		}
	}
	for k := 1; k < cz; k++ {
		for j := 1; j < cy; j++ {
			for i := 1; i < cx; i++ {
				n0 := in(nid(i, j, k))
				if n0 != in(nid(i+1, j, k)) { // x edge; cells around in (y, z)
					quad(cellVert[cid(i, j-1, k-1)], cellVert[cid(i, j, k-1)], cellVert[cid(i, j, k)], cellVert[cid(i, j-1, k)], !n0)
				}
				if n0 != in(nid(i, j+1, k)) { // y edge; cells around in (z, x)
					quad(cellVert[cid(i-1, j, k-1)], cellVert[cid(i-1, j, k)], cellVert[cid(i, j, k)], cellVert[cid(i, j, k-1)], !n0)
				}
				if n0 != in(nid(i, j, k+1)) { // z edge; cells around in (x, y)
					quad(cellVert[cid(i-1, j-1, k)], cellVert[cid(i, j-1, k)], cellVert[cid(i, j, k)], cellVert[cid(i-1, j, k)], !n0)
				}
			}
		}
	}
	return m, ok
}

// parallel runs fn(i) for i in [0, n) on up to workers goroutines (0 means
// 8), in contiguous fixed chunks; fn must only write to data owned by i.
func parallel(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = 8
	}
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
