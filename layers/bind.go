package layers

import (
	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// surfaceBinding places each outfit vertex on the skinned body: the
// "attachment information of the underlying skin mapped to the cloth
// vertices" of §3.1. Each vertex keeps its rest offset from its closest
// body point in the frame of that point's triangle (edge, normal, their
// cross product), so it follows the skin's surface, not only its bones,
// and stays on the outside wherever the skin does. Only the body vertices
// of the bound triangles are skinned each frame.
type surfaceBinding struct {
	rest  []geom.Vec3  // rest positions of the used body vertices
	w     skel.Weights // their weights
	tris  [][3]int32   // bound triangle of each outfit vertex (used-vertex ids)
	bary  [][3]float64 // barycentric coordinates of the closest point
	local []geom.Vec3  // offset in the triangle frame (u, n, w)
	posed []geom.Vec3  // skinned used body vertices
	valid []bool       // false: no body triangle (falls back to LBS)
}

func triFrame(a, b, c geom.Vec3) (u, n, w geom.Vec3) {
	u = b.Sub(a).Unit()
	n = geom.TriangleNormal(a, b, c).Unit()
	return u, n, n.Cross(u)
}

// newSurfaceBinding binds the outfit's rest vertices to ch's body; offsets
// along the normal are at least minOff (vertices inside the rest body are
// put that far outside).
func newSurfaceBinding(ch *character.Character, verts []geom.Vec3, minOff float64) *surfaceBinding {
	body := ch.Body
	bvh := mesh.NewBVH(body.Verts, body.Tris)
	sb := &surfaceBinding{tris: make([][3]int32, len(verts)), bary: make([][3]float64, len(verts)),
		local: make([]geom.Vec3, len(verts)), valid: make([]bool, len(verts))}
	used := map[int32]int32{}
	var ids []int32
	id := func(v int32) int32 {
		if k, ok := used[v]; ok {
			return k
		}
		k := int32(len(ids))
		used[v] = k
		ids = append(ids, v)
		return k
	}
	for i, p := range verts {
		h := bvh.ClosestPoint(p)
		if h.Tri < 0 {
			continue
		}
		t := body.Tris[h.Tri]
		u, n, w := triFrame(body.Verts[t[0]], body.Verts[t[1]], body.Verts[t[2]])
		if n == (geom.Vec3{}) {
			continue
		}
		d := p.Sub(h.Point)
		l := geom.Vec3{X: d.Dot(u), Y: max(d.Dot(n), minOff), Z: d.Dot(w)}
		sb.tris[i] = [3]int32{id(t[0]), id(t[1]), id(t[2])}
		sb.bary[i], sb.local[i], sb.valid[i] = h.Bary, l, true
	}
	sb.rest = make([]geom.Vec3, len(ids))
	for k, v := range ids {
		sb.rest[k] = body.Verts[v]
	}
	sb.w = ch.Weights.Subset(ids)
	return sb
}

// place skins the used body vertices and writes each bound outfit vertex's
// position into dst, and its triangle's normal into nrm (both len(verts));
// unbound vertices keep dst as it is (the caller's LBS) and get normal 0.
func (sb *surfaceBinding) place(skin []geom.Rigid, dst, nrm []geom.Vec3) {
	sb.posed = skel.LBS(sb.rest, sb.w, skin, sb.posed)
	x := sb.posed
	for i, t := range sb.tris {
		if !sb.valid[i] {
			nrm[i] = geom.Vec3{}
			continue
		}
		a, b, c := x[t[0]], x[t[1]], x[t[2]]
		u, n, w := triFrame(a, b, c)
		bc := sb.bary[i]
		p := a.Scale(bc[0]).AddScaled(bc[1], b).AddScaled(bc[2], c)
		l := sb.local[i]
		dst[i] = p.AddScaled(l.X, u).AddScaled(l.Y, n).AddScaled(l.Z, w)
		nrm[i] = n
	}
}
