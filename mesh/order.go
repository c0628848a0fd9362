package mesh

import "slices"

// RCMOrder returns the vertices of a mesh with nv vertices and triangles
// tris in reverse Cuthill–McKee order (Cuthill and McKee 1969; George
// 1971), as perm[new] = old: each connected part is numbered breadth
// first from a vertex of least degree, the neighbours of each vertex in
// order of increasing degree, and the whole sequence is reversed. Vertices
// joined by an edge get nearby numbers, so a matrix over the mesh's edges
// (the cloth solver's) has a narrow band, and an incomplete factorisation
// that drops fill outside the matrix's pattern (cloth.BlockIC) is a closer
// approximation. Ties are broken by vertex id, so the order is
// deterministic. Every index of tris must lie in [0, nv).
func RCMOrder(nv int, tris [][3]int32) []int32 {
	// Adjacency in CSR form, duplicates removed.
	deg := make([]int32, nv+1)
	for _, t := range tris {
		for c := range 3 {
			deg[t[c]+1] += 2
		}
	}
	for i := range nv {
		deg[i+1] += deg[i]
	}
	adj := make([]int32, deg[nv])
	fill := slices.Clone(deg[:nv])
	for _, t := range tris {
		for c := range 3 {
			a, b := t[c], t[(c+1)%3]
			adj[fill[a]], adj[fill[b]] = b, a
			fill[a]++
			fill[b]++
		}
	}
	start := make([]int32, nv+1)
	var n int32
	for v := range nv {
		nb := adj[deg[v]:deg[v+1]]
		slices.Sort(nb)
		nb = slices.Compact(nb)
		start[v] = n
		n += int32(copy(adj[n:], nb))
	}
	start[nv] = n
	degree := func(v int32) int32 { return start[v+1] - start[v] }
	byDegree := func(a, b int32) int {
		if d := degree(a) - degree(b); d != 0 {
			return int(d)
		}
		return int(a - b)
	}
	seeds := make([]int32, nv)
	for i := range seeds {
		seeds[i] = int32(i)
	}
	slices.SortFunc(seeds, byDegree)
	seen := make([]bool, nv)
	order := make([]int32, 0, nv)
	for _, s := range seeds {
		if seen[s] {
			continue
		}
		seen[s] = true
		order = append(order, s)
		for head := len(order) - 1; head < len(order); head++ {
			v := order[head]
			first := len(order)
			for _, w := range adj[start[v]:start[v+1]] {
				if !seen[w] {
					seen[w] = true
					order = append(order, w)
				}
			}
			slices.SortFunc(order[first:], byDegree)
		}
	}
	slices.Reverse(order)
	return order
}
