package refine

import (
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// rcmPositions returns the new position of each vertex of a mesh with nv
// vertices and triangles tris in reverse Cuthill–McKee order
// (mesh.RCMOrder): the patch's IC preconditioner (cloth.BlockIC) then
// needs fewer CG iterations; on the suit walking a third fewer than in the
// order the red triangles' children list their vertices.
func rcmPositions(nv int, tris [][3]int32) []int32 {
	pos := make([]int32, nv)
	for i, v := range mesh.RCMOrder(nv, tris) {
		pos[v] = int32(i)
	}
	return pos
}

// permute renumbers the patch mesh m and its per-vertex keys by pos (new
// position of each vertex), in place.
func permute(m *mesh.Mesh, keys []int32, pos []int32) {
	verts := make([]geom.Vec3, len(m.Verts))
	ks := make([]int32, len(keys))
	for v, p := range pos {
		verts[p], ks[p] = m.Verts[v], keys[v]
	}
	m.Verts = verts
	copy(keys, ks)
	for t := range m.Tris {
		for c := range 3 {
			m.Tris[t][c] = pos[m.Tris[t][c]]
		}
	}
}
