package layers

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// facePush keeps the skin out of the faces of the dynamic cloth (loose
// and floating), which moves over the body away from where it was bound:
// the pushes of each cloth vertex out of the body leave its faces free to
// sag into the skin between vertices (a 5 cm skirt edge over an 8 cm
// thigh dips 4 mm; more where the skirt has slid over a more curved part
// of the leg than its sag clearance assumed). The full simulation keeps
// body vertices out of cloth faces by its vertex–face collisions; this is
// the same test one way, for a precomputed list of body vertices: those
// whose normal meets a dynamic face within coverReach in the rest pose.
// Each follows the cloth face over it by walking across edges (as the
// cross bindings follow the body), and where it comes within the
// thickness of that face's outer side, the face's corners move out along
// its normal until it is the thickness outside.
type facePush struct {
	body  []int32     // body vertices watched (used-vertex ids of the binding)
	n0    []geom.Vec3 // their rest normals
	tri   []int32     // outfit triangle each is under (last frame)
	tris  [][3]int32  // outfit triangles
	nbr   [][3]int32  // triangle across side k (corners k, k+1), −1 at a border
	sign  []float64   // +1 where a triangle's normal (CCW) points out of the body at rest, −1 where in
	thick float64
	// wait is the frames each watched vertex skips before its next test
	// (conservative advancement: its last clearance from the face over
	// the relative motion bound facePushStep per frame)
	wait []uint8
}

// facePushWalk bounds the steps of a frame's walk; facePushReach (m) is
// the largest depth of the skin in front of a face that is pushed (beyond
// it the face is taken to be another layer of cloth across the limb).
// facePushStep (m) bounds how far the skin moves relative to the cloth
// over it in a frame, for the frames a test may skip (at most
// facePushSkip): the walk's skirt and sleeves move under 1 m/s relative
// to the limb they cover, 3.3 cm per frame at 30 frames/s.
//
// facePushSpacing (m) is the least rest distance between watched body
// vertices: the skin between them stands out beyond them by at most
// d²κ/8, 0.7 mm at d = 1.5 cm over an arm of radius 4 cm.
const (
	facePushSpacing = 0.015
	facePushWalk    = 8
	facePushReach   = 0.04
	facePushStep    = 0.04
	facePushSkip    = 3
)

// newFacePush watches the body vertices whose rest normal (bn) meets a
// face of the outfit (rest verts, tris, top its topology) with a corner
// for which dyn is true, within coverReach; id gives their used-vertex
// ids in the binding (adding them, so that place skins them).
func newFacePush(body *mesh.Mesh, bn []geom.Vec3, verts []geom.Vec3, tris [][3]int32, top *mesh.Topology, dyn func(v int32) bool, thick float64, id func(int32) int32) *facePush {
	fp := &facePush{tris: tris, thick: thick, sign: make([]float64, len(tris)), nbr: make([][3]int32, len(tris))}
	dynTri := make([]bool, len(tris))
	any := false
	for t, tr := range tris {
		dynTri[t] = dyn(tr[0]) || dyn(tr[1]) || dyn(tr[2])
		any = any || dynTri[t]
	}
	if !any {
		return fp
	}
	for t := range tris {
		for k := range 3 {
			fp.nbr[t][k] = -1
			e := top.TriEdges[t][k]
			for _, o := range top.EdgeTris[top.EdgeTriStart[e]:top.EdgeTriStart[e+1]] {
				if int(o) != t && top.EdgeTriStart[e+1]-top.EdgeTriStart[e] == 2 {
					fp.nbr[t][k] = o
				}
			}
		}
	}
	bvh := mesh.NewBVH(verts, tris)
	votes := make([]float64, len(tris))
	// the watched vertices at least facePushSpacing apart (greedy in
	// vertex order, on a grid of cells that size)
	type cell struct{ x, y, z int }
	grid := map[cell][]geom.Vec3{}
	cellOf := func(p geom.Vec3) cell {
		return cell{int(math.Floor(p.X / facePushSpacing)), int(math.Floor(p.Y / facePushSpacing)), int(math.Floor(p.Z / facePushSpacing))}
	}
	near := func(p geom.Vec3) bool {
		c := cellOf(p)
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				for dz := -1; dz <= 1; dz++ {
					for _, q := range grid[cell{c.x + dx, c.y + dy, c.z + dz}] {
						if q.Dist2(p) < facePushSpacing*facePushSpacing {
							return true
						}
					}
				}
			}
		}
		return false
	}
	for v, p := range body.Verts {
		n := bn[v]
		if n == (geom.Vec3{}) {
			continue
		}
		h, ok := bvh.Raycast(p.AddScaled(-pokeDepth, n), n, coverReach+pokeDepth)
		if !ok {
			continue
		}
		tr := tris[h.Tri]
		votes[h.Tri] += geom.TriangleNormal(verts[tr[0]], verts[tr[1]], verts[tr[2]]).Dot(n)
		if !dynTri[h.Tri] || near(p) {
			continue
		}
		grid[cellOf(p)] = append(grid[cellOf(p)], p)
		fp.body = append(fp.body, id(int32(v)))
		fp.n0 = append(fp.n0, n)
		fp.tri = append(fp.tri, int32(h.Tri))
	}
	// a face's outer side: the body normals that met it, else its
	// neighbours' (the outfit's winding is consistent within a garment)
	for t := range tris {
		fp.sign[t] = 1
		if votes[t] < 0 {
			fp.sign[t] = -1
		}
	}
	for range 4 {
		for t := range tris {
			if votes[t] != 0 {
				continue
			}
			for _, o := range fp.nbr[t] {
				if o >= 0 && votes[o] != 0 {
					fp.sign[t] = fp.sign[o]
				}
			}
		}
	}
	fp.wait = make([]uint8, len(fp.body))
	return fp
}

// facePushCos is the least cosine between a face's outer normal and the
// skin's for the face to be over the skin (not cloth of another part
// beside it: the torso's beside the arm).
const facePushCos = 0.5

// apply moves the outfit's vertices x out of the faces the skin (posed
// used vertices bx, skinned by w with the transforms mats) stands in
// front of.
func (fp *facePush) apply(x, bx []geom.Vec3, w skel.Weights, mats []affine) {
	for i, b := range fp.body {
		if fp.wait[i] > 0 {
			fp.wait[i]--
			continue
		}
		p := bx[b]
		t := fp.tri[i]
		var a, e1, e2 geom.Vec3
		inside := false
		for range facePushWalk {
			tr := fp.tris[t]
			a = x[tr[0]]
			e1, e2 = x[tr[1]].Sub(a), x[tr[2]].Sub(a)
			// barycentrics of p's projection on the plane, times the
			// (positive) Gram determinant (Ericson §3.4)
			ap := p.Sub(a)
			d00, d01, d11 := e1.Dot(e1), e1.Dot(e2), e2.Dot(e2)
			d20, d21 := ap.Dot(e1), ap.Dot(e2)
			den := d00*d11 - d01*d01
			if !(den > 0) {
				break
			}
			l1 := d11*d20 - d01*d21
			l2 := d00*d21 - d01*d20
			l0 := den - l1 - l2
			// across the side opposite the most negative corner
			k, m := -1, 0.0
			for c, l := range [3]float64{l0, l1, l2} {
				if l < m {
					k, m = c, l
				}
			}
			if k < 0 {
				inside = true
				break
			}
			o := fp.nbr[t][(k+1)%3]
			if o < 0 {
				break
			}
			t = o
		}
		fp.tri[i] = t
		if !inside {
			continue
		}
		n := e1.Cross(e2)
		u := n.Unit().Scale(fp.sign[t])
		s := p.Sub(a).Dot(u) + fp.thick
		if s <= 0 {
			// the clearance −s bounds the frames until contact
			fp.wait[i] = uint8(min(facePushSkip, -s/facePushStep))
			continue
		}
		if s > facePushReach {
			continue
		}
		// the skin's normal: the rest one turned by the vertex's blended
		// skinning matrix (up to scale, which the test does not need)
		var m [9]float64
		for k := w.Offsets[b]; k < w.Offsets[b+1]; k++ {
			mj := &mats[w.Joints[k]].m
			for r := range m {
				m[r] += float64(w.W[k]) * mj[r]
			}
		}
		q := fp.n0[i]
		nb := geom.Vec3{X: m[0]*q.X + m[1]*q.Y + m[2]*q.Z, Y: m[3]*q.X + m[4]*q.Y + m[5]*q.Z, Z: m[6]*q.X + m[7]*q.Y + m[8]*q.Z}
		if nb.Dot(u) < facePushCos*nb.Len() {
			continue
		}
		tr := fp.tris[t]
		for _, c := range tr {
			x[c] = x[c].AddScaled(s, u)
		}
	}
}
