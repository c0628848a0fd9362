package mesh

import (
	"fmt"
	"slices"

	"github.com/pleat-dev/pleat/geom"
)

// RefitVerts refits the hierarchy to verts when, since the last refit, only
// the vertices changed have moved: it bounds again the leaves whose
// triangles use them and their ancestors. Boxes are minima and maxima of
// the same corners, so the tree is exactly as Refit(verts) leaves it, in
// time proportional to the moved vertices' leaves times the tree depth.
// The first call lists each vertex's leaves (O(triangles), kept). It panics
// if len(verts) differs from the count given to NewBVH or a vertex id is
// out of range.
func (b *BVH) RefitVerts(verts []geom.Vec3, changed []int32) {
	if len(verts) != b.nverts {
		panic(fmt.Sprintf("mesh: BVH.RefitVerts got %d vertices, built with %d", len(verts), b.nverts))
	}
	if len(b.nodes) == 0 {
		copy(b.vx, verts)
		return
	}
	if b.vertLeafStart == nil {
		b.listVertLeaves()
	}
	// The nodes to refit, each once (stamped with this call's number): the
	// moved vertices' leaves and their ancestors.
	b.gen++
	if b.gen == 0 { // wrapped: old stamps could match
		clear(b.stamp)
		b.gen = 1
	}
	dirty := b.dirty[:0]
	for _, v := range changed {
		if v < 0 || int(v) >= b.nverts {
			panic(fmt.Sprintf("mesh: BVH.RefitVerts vertex %d out of range [0,%d)", v, b.nverts))
		}
		b.vx[v] = verts[v]
		for _, j := range b.vertLeaf[b.vertLeafStart[v]:b.vertLeafStart[v+1]] {
			for ; j >= 0 && b.stamp[j] != b.gen; j = b.parent[j] {
				b.stamp[j] = b.gen
				dirty = append(dirty, j)
			}
		}
	}
	// A node's children follow it in the depth-first array, so refitting
	// in decreasing node order is bottom-up.
	slices.Sort(dirty)
	for k := len(dirty) - 1; k >= 0; k-- {
		b.fitNode(verts, dirty[k])
	}
	b.dirty = dirty[:0]
}

// listVertLeaves lists, per vertex, the leaf nodes whose distinct vertices
// include it (vertLeafStart, vertLeaf: compressed rows).
func (b *BVH) listVertLeaves() {
	start := make([]int32, b.nverts+1)
	for _, v := range b.leafVert {
		start[v+1]++
	}
	for v := range b.nverts {
		start[v+1] += start[v]
	}
	leaf := make([]int32, len(b.leafVert))
	fill := slices.Clone(start[:b.nverts])
	for j := range b.nodes {
		l := b.leafNum[j]
		if l < 0 {
			continue
		}
		for _, v := range b.leafVert[b.leafStart[l]:b.leafStart[l+1]] {
			leaf[fill[v]] = int32(j)
			fill[v]++
		}
	}
	b.vertLeafStart, b.vertLeaf = start, leaf
	b.stamp = make([]uint32, len(b.nodes))
}
