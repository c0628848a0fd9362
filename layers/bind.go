package layers

import (
	"math"
	"slices"
	"sort"

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
	mats  []affine     // scratch for lbs
	valid []bool       // false: no body triangle (falls back to LBS)
	cross []crossBind
	skinP []geom.Vec3 // posed skin point of each outfit vertex (last place)
	cand  []int32     // candidate triangles of the cross bindings (ids in ctris)
	ctris [][3]int32  // the distinct candidate triangles (used-vertex ids)
	cent  []geom.Vec3 // their centroids (last place)
	// the body triangles around each candidate triangle's corners (all
	// parts), for the pseudo-normals of the exact test: those around used
	// vertex u are ringT[ring[2u]:ring[2u+1]] (used-vertex ids)
	ring  []int32
	ringT [][3]int32
	// ringA[i] is the rest-pose angle of ringT[i] at the ring's vertex:
	// the weights of the corner pseudo-normals (exactPlane)
	ringA []float64
	// patchT[patch[k]:patch[k+1]] are the distinct body triangles around
	// the corners of candidate k, in the order the rings give them
	patch  []int32
	patchT [][3]int32
	// nbr are each candidate triangle's neighbours across its edges that
	// are candidates of the same part (ids in ctris, −1 for none)
	nbr [][3]int32
	// vnbr[vnbrOff[k]:vnbrOff[k+1]] are the candidates of candidate k's
	// part that share a corner with it (walkV)
	vnbr, vnbrOff []int32
	frame         int // place calls, for the staggered candidate scans
	thick         float64
	// clr is each outfit vertex's clearance (m): the thickness plus the
	// sag of its faces over the skin (clearance.go); the offset floor of
	// its binding and the distance kept from its own part
	clr []float64
	// faces keeps the skin out of the dynamic cloth's faces (nil where
	// the outfit has no topology)
	faces *facePush
}

// crossBind is a second skin point for an outfit vertex that lies near a
// body part other than its own in the rest pose (cloth at the side of the
// torso, near the inner arm; cloth between the thighs): when the skin
// deformation brings that part within reach, the vertex is kept outside
// its tangent plane. Skinning lets limbs sink into the torso; this keeps
// the cloth between them on the outside of both.
type crossBind struct {
	v      int32
	tri    [3]int32 // used-vertex ids
	bary   [3]float64
	reach  float64
	p, n   geom.Vec3 // posed skin point and normal
	po, no geom.Vec3 // posed own skin point and normal of the vertex
	// cand are the candidate triangles (sb.cand[c0:c1]) of the other part
	// near the rest point (tri among them): each frame the one whose
	// centroid is nearest the vertex gives the plane (its centroid and
	// normal), so the plane follows the part as it slides past the vertex
	c0, c1 int32
	best   int32   // the candidate chosen last (ids in ctris), −1 before
	bestD  float64 // its centroid's squared distance to the vertex then
	// sphere: the binding bounds a loose sphere (looseLayer) instead of
	// pushing the vertex
	sphere bool
	// adj: the other part is one joint from the vertex's own (the shin
	// for cloth on the back of the thigh), or a loose vertex's second
	// part; only the output's exact test uses it, for cloth inside (the
	// cheap plane is no test across a joint whose surfaces are continuous
	// at rest)
	adj bool
	// jc and jp are the joints of an adj binding's two parts (the deeper
	// in the skeleton first); off is true while the parts are turned less
	// than adjBend from each other from the rest pose (not followed)
	jc, jp int32
	off    bool
	// self: the part is the vertex's own (its bound triangle's), for a
	// vertex of the floating layer, which slides over its limb away from
	// its bound point; only the output's exact test uses it. lazy: the
	// own part of a loose vertex near another part, whose loose particle
	// moves away from its bound point too; it is not tested itself, only
	// found when another part's push moves the vertex, so that the push
	// keeps it outside its own part (pushOut). clear is the clearance
	// beyond the thickness the exact test found last (NaN before the
	// first), when the vertex was at lastR from candidate lastT's
	// centroid and lastT's normal was lastN
	self, lazy bool
	// fold: a self binding of tight cloth near a joint (foldReach): the
	// candidate tested is the nearest one the cloth is behind (foldScan)
	fold         bool
	clear        float64
	lastT        int32
	lastR, lastN geom.Vec3
}

func triFrame(a, b, c geom.Vec3) (u, n, w geom.Vec3) {
	u = b.Sub(a).Unit()
	n = geom.TriangleNormal(a, b, c).Unit()
	return u, n, n.Cross(u)
}

// newSurfaceBinding binds the outfit's rest vertices (triangles tris) to
// ch's body; offsets along the normal are at least each vertex's
// clearance: minOff plus the sag of its edges over the skin
// (sagClearances; vertices inside the rest body are put that far
// outside). Every vertex gets a cross binding where one is found; those
// for which sphere is true only bound their loose sphere.
func newSurfaceBinding(ch *character.Character, verts []geom.Vec3, tris [][3]int32, minOff float64, sphere, float func(v int) bool) *surfaceBinding {
	cross := newCrossFinder(ch)
	body := ch.Body
	bvh := mesh.NewBVH(body.Verts, body.Tris)
	bn := mesh.VertexNormals(body, nil)
	bp, bpn := make([]geom.Vec3, len(verts)), make([]geom.Vec3, len(verts))
	for i, p := range verts {
		h := bvh.ClosestPoint(p)
		if h.Tri < 0 {
			continue
		}
		t := body.Tris[h.Tri]
		bp[i] = h.Point
		bpn[i] = bn[t[0]].Scale(h.Bary[0]).AddScaled(h.Bary[1], bn[t[1]]).AddScaled(h.Bary[2], bn[t[2]]).Unit()
	}
	sags := sagClearances(verts, tris, bp, bpn, func() []bool {
		ok := make([]bool, len(verts))
		for i := range ok {
			ok[i] = bpn[i] != (geom.Vec3{})
		}
		return ok
	}())
	sb := &surfaceBinding{thick: minOff, tris: make([][3]int32, len(verts)), bary: make([][3]float64, len(verts)),
		local: make([]geom.Vec3, len(verts)), valid: make([]bool, len(verts)), clr: make([]float64, len(verts))}
	used := map[int32]int32{}
	ctID := map[int32]int32{} // body triangle -> ctris id
	var ctBody []int32        // ctris id -> body triangle
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
		sb.clr[i] = minOff
		h := bvh.ClosestPoint(p)
		if h.Tri < 0 {
			continue
		}
		t := body.Tris[h.Tri]
		u, n, w := triFrame(body.Verts[t[0]], body.Verts[t[1]], body.Verts[t[2]])
		if n == (geom.Vec3{}) {
			continue
		}
		sb.clr[i] = minOff + sags[i]
		d := p.Sub(h.Point)
		l := geom.Vec3{X: d.Dot(u), Y: max(d.Dot(n), sb.clr[i]), Z: d.Dot(w)}
		sb.tris[i] = [3]int32{id(t[0]), id(t[1]), id(t[2])}
		sb.bary[i], sb.local[i], sb.valid[i] = h.Bary, l, true
		bindTo := func(ct int32, cb [3]float64, d float64, g int, adj, own, lazy bool, gate int) {
			// the joints of the part gate and the vertex's own (for an
			// adjacent part, the joint between them: the child's rotation
			// relative to its parent's bends it)
			jc, jp := int32(-1), int32(-1)
			if gate >= 0 {
				jc, jp = int32(cross.groups[gate].joint), int32(cross.triJ[h.Tri])
			}
			if gate >= 0 && cross.depth[jp] > cross.depth[jc] {
				jc, jp = jp, jc
			}
			t := body.Tris[ct]
			c0 := int32(len(sb.cand))
			reach, most := crossCand, crossCands
			if adj || own || lazy {
				reach, most = adjCand, adjCands
			}
			if own && !float(i) {
				reach, most = foldCand, foldCands
			}
			for _, ct := range cross.near(g, t, cb, reach, most) {
				t := body.Tris[ct]
				k, ok := ctID[ct]
				if !ok {
					k = int32(len(sb.ctris))
					ctID[ct] = k
					ctBody = append(ctBody, ct)
					sb.ctris = append(sb.ctris, [3]int32{id(t[0]), id(t[1]), id(t[2])})
				}
				sb.cand = append(sb.cand, k)
			}
			sb.cross = append(sb.cross, crossBind{v: int32(i), tri: [3]int32{id(t[0]), id(t[1]), id(t[2])}, bary: cb,
				reach: min(d+crossSlack, crossCheck), sphere: sphere(i), adj: adj, self: own, lazy: lazy, fold: own && !float(i), jc: jc, jp: jp, best: -1, c0: c0, c1: int32(len(sb.cand)), clear: math.NaN()})
		}
		ct1, cb1, d1, g1, ok1 := cross.find(p, int(h.Tri), 1, adjReach, -1)
		ct2, cb2, d2, g2, ok2 := cross.find(p, int(h.Tri), 2, crossReach, -1)
		// the own part first, then the adjacent one: the push out of a
		// part further away comes last, so that it settles cloth squeezed
		// between the two
		if d.Len() < selfReach && (float(i) || sphere(i) && (ok1 || ok2)) {
			if g := cross.group(int(h.Tri)); g >= 0 {
				bindTo(h.Tri, h.Bary, d.Len(), g, false, float(i), !float(i), -1)
			}
		} else if !float(i) && !sphere(i) && d.Len() < foldReach {
			// tight cloth near a joint: bending it folds the skinned
			// skin over itself (the inside of the elbow, the armpit), over
			// the cloth kept outside its bound point's plane
			if g := cross.group(int(h.Tri)); g >= 0 {
				if gj := cross.blendGroup(body.Tris[h.Tri], h.Bary, g); gj >= 0 {
					bindTo(h.Tri, h.Bary, d.Len(), g, false, true, false, gj)
				}
			}
		}
		if ok1 {
			bindTo(ct1, cb1, d1, g1, true, false, false, g1)
		}
		if ok2 {
			// the next nearest part too (the raised thigh against the
			// belly, beside the other thigh), for the exact test only
			if ct, cb, d, g3, ok := cross.find(p, int(h.Tri), 2, secondReach, g2); ok && sphere(i) {
				bindTo(ct, cb, d, g3, true, false, false, g3)
			}
			bindTo(ct2, cb2, d2, g2, false, false, false, -1)
		}
	}
	sb.restFloor(body, ids, tris, bn, func(i int) bool { return !sphere(i) && !float(i) })
	if top, err := mesh.NewTopology(&mesh.Mesh{Verts: verts, Tris: tris}); err == nil {
		sb.faces = newFacePush(body, bn, verts, tris, top, func(v int32) bool { return sphere(int(v)) || float(int(v)) }, minOff, id)
	}
	sb.rings(body, ctBody, cross.triJ, ctID, id)
	sb.skinP = make([]geom.Vec3, len(verts))
	sb.cent = make([]geom.Vec3, len(sb.ctris))
	sb.rest = make([]geom.Vec3, len(ids))
	for k, v := range ids {
		sb.rest[k] = body.Verts[v]
	}
	sb.w = ch.Weights.Subset(ids)
	return sb
}

// restFloorIters bounds the passes of restFloor.
const restFloorIters = 3

// restFloor raises the offsets of the tight vertices (tight true) of the
// outfit's faces (tris) that the rest body pokes into: the rest body's
// vertices (normals bn) are where its surface stands out most against a
// flat face, so each body vertex less than the thickness behind a face
// along its normal (from pokeWindow inside the skin) raises the face's
// corners by what it lacks. The sag clearance bounds this for smooth
// skin; this catches sharper features (the breasts' tips under a
// blouse). ids maps used-vertex ids to body vertices.
func (sb *surfaceBinding) restFloor(body *mesh.Mesh, ids []int32, tris [][3]int32, bn []geom.Vec3, tight func(int) bool) {
	x := make([]geom.Vec3, len(sb.local))
	need := make([]float64, len(sb.local))
	var bvh *mesh.BVH
	for range restFloorIters {
		for i, ok := range sb.valid {
			if !ok {
				continue // not tight-bound: far from the skin
			}
			t := sb.tris[i]
			a, b, c := body.Verts[ids[t[0]]], body.Verts[ids[t[1]]], body.Verts[ids[t[2]]]
			u, n, w := triFrame(a, b, c)
			bc, l := sb.bary[i], sb.local[i]
			p := a.Scale(bc[0]).AddScaled(bc[1], b).AddScaled(bc[2], c)
			x[i] = p.AddScaled(l.X, u).AddScaled(l.Y, n).AddScaled(l.Z, w)
		}
		if bvh == nil {
			bvh = mesh.NewBVH(x, tris)
		} else {
			bvh.Refit(x)
		}
		raised := false
		for v, p := range body.Verts {
			n := bn[v]
			if n == (geom.Vec3{}) {
				continue
			}
			h, ok := bvh.Raycast(p.AddScaled(-pokeWindow, n), n, pokeWindow+sb.thick)
			if !ok {
				continue
			}
			d := sb.thick - (h.T - pokeWindow)
			for _, c := range tris[h.Tri] {
				if sb.valid[c] && tight(int(c)) && d > need[c] {
					need[c], raised = d, true
				}
			}
		}
		if !raised {
			return
		}
		for i, d := range need {
			sb.local[i].Y += d
			need[i] = 0
		}
	}
}

// place skins the used body vertices and writes each bound outfit vertex's
// position into dst, and its triangle's normal into nrm (both len(verts));
// unbound vertices keep dst as it is (the caller's LBS) and get normal 0.
func (sb *surfaceBinding) place(skin []geom.Rigid, dst, nrm []geom.Vec3) {
	if len(sb.posed) != len(sb.rest) {
		sb.posed = make([]geom.Vec3, len(sb.rest))
	}
	sb.mats = lbs(sb.posed, sb.rest, sb.w, skin, sb.mats)
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
		sb.skinP[i] = p
	}
	sb.frame++
	for k, t := range sb.ctris {
		sb.cent[k] = x[t[0]].Add(x[t[1]]).Add(x[t[2]]).Scale(1.0 / 3)
	}
	for k := range sb.cross {
		cb := &sb.cross[k]
		// the plane of the candidate whose centroid is nearest the vertex:
		// the other part slides past it (an arm swinging beside the torso)
		// (a full scan only when the part was near last time, or every
		// crossRescan frames, staggered)
		if cb.jc >= 0 {
			// |q_p·q_c| = cos(θ/2), θ the angle of the child's rotation
			// relative to the parent's (skinning matrices are relative to
			// the rest pose)
			if c := math.Abs(skin[cb.jp].R.Dot(skin[cb.jc].R)); c > adjBendCos || cb.fold && c > foldBendCos {
				cb.off = true
				continue
			}
		}
		cb.no, cb.po = nrm[cb.v], sb.skinP[cb.v]
		if cb.lazy {
			continue // found when needed (push)
		}
		if cb.self && cb.best >= 0 {
			// followed at the output, from where the cloth is (exact)
			cb.off = false // a fold binding bent again (exactFold)
			continue
		}
		q, tc := dst[cb.v], cb.tri
		switch {
		case cb.c1 == cb.c0:
		case cb.best < 0 || cb.off || (sb.frame+k)%crossFull == 0 ||
			cb.bestD <= crossNear*crossNear && (sb.frame+k)%crossRescan == 0:
			// all candidates: at the start, and now and then (staggered)
			// in case the walk below stopped in a local minimum
			sb.scan(cb, q)
		case cb.bestD <= crossNear*crossNear || (sb.frame+k)%crossRescan == 0:
			sb.walk(cb, q)
		default:
			cb.bestD = sb.cent[cb.best].Dist2(q)
		}
		cb.off = false
		if cb.best >= 0 {
			cb.p, tc = sb.cent[cb.best], sb.ctris[cb.best]
			if cb.bestD > crossExact*crossExact && !cb.sphere {
				// beyond the reach of the pushes and of the exact test
				// (both check bestD first): no plane needed
				continue
			}
		}
		a, b, c := x[tc[0]], x[tc[1]], x[tc[2]]
		cb.n = geom.TriangleNormal(a, b, c).Unit()
		if cb.c0 == cb.c1 {
			cb.p = a.Scale(cb.bary[0]).AddScaled(cb.bary[1], b).AddScaled(cb.bary[2], c)
		}
	}
	sb.push(dst, true)
}

// relTo returns q relative to candidate t's centroid and t's unit normal
// (as posed by the last place).
func (sb *surfaceBinding) relTo(t int32, q geom.Vec3) (r, n geom.Vec3) {
	x, tr := sb.posed, sb.ctris[t]
	return q.Sub(sb.cent[t]), geom.TriangleNormal(x[tr[0]], x[tr[1]], x[tr[2]]).Unit()
}

// scan chooses cb's candidate whose centroid is nearest q among all.
func (sb *surfaceBinding) scan(cb *crossBind, q geom.Vec3) {
	best := math.Inf(1)
	for _, t := range sb.cand[cb.c0:cb.c1] {
		if d := sb.cent[t].Dist2(q); d < best {
			best, cb.best = d, t
		}
	}
	cb.bestD = best
}

// foldScan chooses, among cb's candidates within crossCheck of q, the
// one whose triangle is nearest q with q less than the thickness outside
// its plane: where the skin folds over itself the nearest centroid is
// under the cloth, not on the fold over it. It is false where there is
// none.
func (sb *surfaceBinding) foldScan(cb *crossBind, q geom.Vec3) bool {
	x := sb.posed
	best := crossCheck * crossCheck
	found := int32(-1)
	for _, t := range sb.cand[cb.c0:cb.c1] {
		if sb.cent[t].Dist2(q) > foldCent*foldCent {
			continue
		}
		tr := sb.ctris[t]
		a, b, c := x[tr[0]], x[tr[1]], x[tr[2]]
		// q·n ≥ thickness with n the unnormalised normal: no sqrt
		nt := geom.TriangleNormal(a, b, c)
		if o := q.Sub(a).Dot(nt); o >= 0 && o*o >= sb.thick*sb.thick*nt.Dot(nt) {
			continue
		}
		cp, _ := closestOnTri(q, a, b, c)
		if d := cp.Dist2(q); d < best {
			best, found = d, t
		}
	}
	if found < 0 {
		return false
	}
	cb.best, cb.bestD = found, sb.cent[found].Dist2(q)
	return true
}

// walk moves cb's chosen candidate to the edge neighbour (of its part)
// whose centroid is nearer q, while there is one, at most crossWalk
// steps: the other part moves little in a frame, so the nearest centroid
// moves little over its surface.
func (sb *surfaceBinding) walk(cb *crossBind, q geom.Vec3) {
	cur := cb.best
	d := sb.cent[cur].Dist2(q)
	for range crossWalk {
		next := int32(-1)
		for _, nb := range sb.nbr[cur] {
			if nb >= 0 {
				if dn := sb.cent[nb].Dist2(q); dn < d {
					d, next = dn, nb
				}
			}
		}
		if next < 0 {
			break
		}
		cur = next
	}
	cb.best, cb.bestD = cur, d
}

// walkV is walk across the candidates' corners as well as their edges:
// it steps over the jagged borders of a part (its triangles are those
// whose first corner's strongest joint is the part's), where edge
// neighbours are missing.
func (sb *surfaceBinding) walkV(cb *crossBind, q geom.Vec3) {
	cur := cb.best
	d := sb.cent[cur].Dist2(q)
	for range crossWalk {
		next := int32(-1)
		for _, nb := range sb.vnbr[sb.vnbrOff[cur]:sb.vnbrOff[cur+1]] {
			if dn := sb.cent[nb].Dist2(q); dn < d {
				d, next = dn, nb
			}
		}
		if next < 0 {
			break
		}
		cur = next
	}
	cb.best, cb.bestD = cur, d
}

// push keeps the cross-bound vertices of x outside the other body part's
// tangent plane (as posed by the last place) where it is within reach.
// At the output (anchors false) the exact test decides instead.
func (sb *surfaceBinding) push(x []geom.Vec3, anchors bool) {
	// a vertex's bindings are consecutive, its own part's first: for a
	// vertex with one, the plane of the closest point on its own part
	// replaces its bound point's in the pushes out of the others (cloth
	// of the floating layer slides away from its bound point)
	own := -1 // the vertex's own-part binding
	ownDone := false
	var ownP, ownN geom.Vec3
	for k := range sb.cross {
		cb := &sb.cross[k]
		q := x[cb.v]
		if cb.self && !cb.fold || cb.lazy {
			own, ownDone = k, false
		} else if own >= 0 && sb.cross[own].v != cb.v {
			own = -1
		}
		if (cb.adj || cb.self) && (anchors || cb.off) || cb.lazy {
			continue
		}
		cp, cn := cb.p, cb.n
		if !anchors && cb.c1 > cb.c0 {
			p, n, ok := sb.exact(cb, k, q)
			if !ok {
				continue
			}
			cp, cn = p, n
			if cb.self && !cb.fold {
				ownDone, ownP, ownN = true, p, n
			}
		} else if cb.best >= 0 && cb.bestD > crossExact*crossExact || q.Dist2(cb.p) > cb.reach*cb.reach {
			continue
		}
		s := q.Sub(cp).Dot(cn)
		if s >= 0 && cb.adj {
			// at a joint the parts' surfaces are continuous at rest: only
			// cloth inside the adjacent part is pushed
			continue
		}
		gap := sb.gap(cb)
		if s -= gap; s >= 0 {
			continue
		}
		po, no := cb.po, cb.no
		if cb.self && !cb.fold {
			// out of its own part along the exact normal (the bound
			// point's plane is what it slid away from)
			po, no = cp, cn
		} else if own >= 0 && !anchors {
			if !ownDone {
				ownDone, ownP, ownN = true, po, no
				ob := &sb.cross[own]
				switch {
				case !ob.lazy || ob.c1 == ob.c0:
				case ob.best < 0:
					sb.scan(ob, q)
				default:
					sb.walk(ob, q)
				}
				if ob.best >= 0 {
					if p, n, ok := sb.exactPlane(ob, q); ok && p.Dist2(q) <= crossExact*crossExact {
						ownP, ownN = p, n
					}
				}
			}
			po, no = ownP, ownN
		}
		x[cb.v] = pushOut(q, s, cn, po, no, gap)
		if own >= 0 && !anchors && !cb.self {
			if ob := &sb.cross[own]; ob.lazy && ob.best >= 0 {
				// the push slid a loose vertex over its own part's
				// curved surface, away from where its plane was found
				// (into the front of the thigh below the hip): found
				// again where it is now, inside it goes back out the
				// thickness along the exact pseudo-normal
				q = x[cb.v]
				if p, n, ok := sb.exactPlane(ob, q); ok && p.Dist2(q) <= crossExact*crossExact {
					if o := q.Sub(p).Dot(n); o < 0 {
						x[cb.v] = q.AddScaled(sb.clr[cb.v]-o, n)
					}
					ownP, ownN = p, n
				}
			}
		}
	}
}

// gap is the distance cb's push keeps: the vertex's clearance from its own
// part (self bindings of floating cloth), the thickness from the others.
func (sb *surfaceBinding) gap(cb *crossBind) float64 {
	if cb.self && !cb.fold {
		return sb.clr[cb.v]
	}
	return sb.thick
}

// exact returns the exact closest point on cb's part near q and its
// pseudo-normal (exactPlane), or false where the test is not needed: the
// part is out of reach, or (other parts) the nearest candidate's plane
// puts q beyond the thickness by more than the margin (crossMargin for a
// part two or more joints away, none for an adjacent one), or
// conservative advancement shows that q cannot have come within the
// thickness since the last test.
func (sb *surfaceBinding) exact(cb *crossBind, k int, q geom.Vec3) (p, n geom.Vec3, ok bool) {
	if cb.fold {
		return sb.exactFold(cb, k, q)
	}
	if cb.self && cb.best >= 0 {
		// the floating cloth is not where skinning puts it (place): the
		// candidate nearest the cloth itself, walked to every frame and
		// scanned for every crossFull (staggered)
		if (sb.frame+k)%crossFull == 0 {
			sb.scan(cb, q)
		} else {
			sb.walk(cb, q)
		}
		cb.p = sb.cent[cb.best]
	}
	if cb.best < 0 || cb.bestD > crossExact*crossExact || q.Dist2(cb.p) > crossExact*crossExact {
		return p, n, false
	}
	if !cb.self {
		if s := q.Sub(cb.p).Dot(cb.n) - sb.thick; cb.adj && s > 0 || s > crossMargin {
			return p, n, false
		}
	}
	// the clearance c found last bounds the distance to the patch around
	// candidate lastT from below, less how far q has moved relative to it
	// since: the change of its offset r from the centroid plus |r| times
	// the turn of its normal (the patch turning about its centroid);
	// every crossFull frames it is tested regardless (the patch also
	// deforms)
	r, nt := sb.relTo(cb.lastT, q)
	if cb.clear > r.Dist(cb.lastR)+math.Sqrt(r.Dot(r)*nt.Dist2(cb.lastN)) && (sb.frame+k)%crossFull != 0 {
		return p, n, false
	}
	if !cb.self {
		// from the candidate place chose, across corners: an edge walk
		// stops short of the nearest centroid where the part's
		// triangles are not edge-connected (its jagged borders). A
		// scan of all candidates here cost a third of the frame's
		// candidate distances
		sb.walkV(cb, q)
	}
	return sb.exactAt(cb, q)
}

// exactFold is exact for a fold binding: the candidate is foldScan's,
// chosen only where conservative advancement does not rule contact out
// since the last test, and, after a scan that found none, every
// crossRescan frames (staggered).
func (sb *surfaceBinding) exactFold(cb *crossBind, k int, q geom.Vec3) (p, n geom.Vec3, ok bool) {
	if cb.best < 0 {
		return p, n, false
	}
	if cb.lastT < 0 {
		if (sb.frame+k)%crossRescan != 0 {
			return p, n, false
		}
	} else if r, nt := sb.relTo(cb.lastT, q); cb.clear > r.Dist(cb.lastR)+math.Sqrt(r.Dot(r)*nt.Dist2(cb.lastN)) && (sb.frame+k)%crossFull != 0 {
		return p, n, false
	}
	if !sb.foldScan(cb, q) {
		cb.lastT = -1
		return p, n, false
	}
	cb.p = sb.cent[cb.best]
	return sb.exactAt(cb, q)
}

// exactAt is the exact test at cb's chosen candidate (exact), which it
// records for conservative advancement.
func (sb *surfaceBinding) exactAt(cb *crossBind, q geom.Vec3) (p, n geom.Vec3, ok bool) {
	p, n, ok = sb.exactPlane(cb, q)
	cb.lastT = cb.best
	cb.lastR, cb.lastN = sb.relTo(cb.best, q)
	cb.clear = math.NaN()
	if ok {
		// outside, the distance to the closest point bounds the
		// distance to the patch (the pseudo-normal's side only tells
		// which side it is on)
		g := sb.gap(cb)
		cb.clear = q.Sub(p).Dot(n) - g
		if cb.clear > -g {
			cb.clear = q.Dist(p) - g
		}
	}
	if !ok || p.Dist2(q) > crossExact*crossExact {
		return p, n, false
	}
	return p, n, true
}

// Cross bindings: vertices within crossReach (m) of a body part two or more
// joints away from their own (a sleeve's underside and the torso); the
// tangent plane is only trusted near its point, within the rest distance
// plus crossSlack and at most crossCheck.
const (
	crossReach = 0.15
	// adjReach (m): vertices this near a part one joint from their own
	// get an adjacent binding
	adjReach   = 0.06
	crossSlack = 0.02
	crossCheck = 0.05
	// crossSlideMin is the least 1 − (n·n_own)² for which the push slides
	// along the own tangent plane (below it the planes face each other)
	crossSlideMin = 0.3
	// crossCand (m) and crossCands bound a cross binding's candidate
	// triangles around its rest point
	crossCand  = 0.12
	crossCands = 96
	// adjCand and adjCands bound an adjacent binding's candidates; it is
	// followed only while the joint between the parts is bent more than
	// adjBend (rad) from the rest pose
	adjCand  = 0.08
	adjCands = 48
	adjBend  = 25 * math.Pi / 180
	// secondReach (m): a loose vertex this near a second part two or
	// more joints away gets a binding to it as to an adjacent part
	secondReach = 0.10
	// a binding whose chosen candidate was farther than crossNear (m)
	// follows the other part only every crossRescan frames; every
	// crossFull frames it scans all its candidates; crossWalk bounds the
	// steps of a frame's walk
	crossNear   = 0.06
	crossRescan = 4
	crossFull   = 16
	crossWalk   = 16
	// crossExact (m): the output's exact test runs for vertices within it
	// of the chosen candidate's centroid
	crossExact = 0.08
	// crossMargin (m): and for a part two or more joints away, where the
	// chosen candidate's plane puts it no more than this beyond the
	// thickness (skinning sinks the arm past the armpit's centroids)
	crossMargin = 0.01
	// selfReach (m): a floating vertex this near the skin at rest gets a
	// binding to its own part (as near as collideSkin's skinContact)
	selfReach = 0.06
)

// foldReach (m): a tight vertex this near the skin at rest whose bound
// point is skinned partly (at least foldWeight) by a joint adjacent to its
// part's gets a binding to its own part, followed while the two are bent
// more than foldBend (rad) apart.
const (
	foldReach  = 0.03
	foldWeight = 0.2
	foldBend   = 45 * math.Pi / 180
	// foldCand (m) and foldCands bound a fold binding's candidates
	foldCand  = 0.06
	foldCands = 32
	// foldCent (m): foldScan considers the candidates whose centroids
	// lie this near the cloth (crossCheck plus a triangle's size)
	foldCent = crossCheck + 0.02
)

// adjBendCos is cos(adjBend/2), the quaternion dot product at adjBend;
// foldBendCos is foldBend's.
var adjBendCos, foldBendCos = math.Cos(adjBend / 2), math.Cos(foldBend / 2)

// crossFinder finds, for a point, the closest skin point on triangles whose
// strongest joint is at least two joints away in the skeleton from a given
// triangle's.
type crossFinder struct {
	body   *mesh.Mesh
	triJ   []int // strongest joint of each body triangle (its first corner's)
	groups []crossGroup
	depth  []int
	parent []int
	// weights are the body's skinning weights
	weights skel.Weights
}

type crossGroup struct {
	joint int
	tris  []int32 // body triangle ids
	bvh   *mesh.BVH
	box   geom.Box
}

func newCrossFinder(ch *character.Character) *crossFinder {
	sk := ch.Skeleton
	cf := &crossFinder{body: ch.Body, weights: ch.Weights, triJ: make([]int, len(ch.Body.Tris)), depth: make([]int, sk.NumJoints()), parent: make([]int, sk.NumJoints())}
	for j := range cf.depth {
		cf.parent[j] = sk.Parent(j)
		if p := sk.Parent(j); p >= 0 {
			cf.depth[j] = cf.depth[p] + 1
		}
	}
	byJ := make([][]int32, sk.NumJoints())
	for t, tri := range ch.Body.Tris {
		js, ws := ch.Weights.Influences(int(tri[0]))
		j, best := 0, float32(-1)
		for k, w := range ws {
			if w > best {
				best, j = w, int(js[k])
			}
		}
		cf.triJ[t] = j
		byJ[j] = append(byJ[j], int32(t))
	}
	for j, ts := range byJ {
		if len(ts) == 0 {
			continue
		}
		tris := make([][3]int32, len(ts))
		for k, t := range ts {
			tris[k] = ch.Body.Tris[t]
		}
		b := mesh.NewBVH(ch.Body.Verts, tris)
		cf.groups = append(cf.groups, crossGroup{joint: j, tris: ts, bvh: b, box: b.Bounds()})
	}
	return cf
}

// group returns the group of body triangle t's part (−1 for none).
func (cf *crossFinder) group(t int) int {
	for g := range cf.groups {
		if cf.groups[g].joint == cf.triJ[t] {
			return g
		}
	}
	return -1
}

// blendGroup returns the group of the joint adjacent to group g's that
// skins the point bary on body triangle t most, with at least foldWeight
// (−1 for none).
func (cf *crossFinder) blendGroup(t [3]int32, bary [3]float64, g int) int {
	oj := cf.groups[g].joint
	var js []int
	var ws []float64
	for k, v := range t {
		vj, vw := cf.weights.Influences(int(v))
		for m, j := range vj {
			if i := slices.Index(js, int(j)); i >= 0 {
				ws[i] += bary[k] * float64(vw[m])
			} else {
				js, ws = append(js, int(j)), append(ws, bary[k]*float64(vw[m]))
			}
		}
	}
	best, bj := foldWeight, -1
	for i, j := range js {
		if j != oj && ws[i] >= best && cf.treeDist(j, oj) == 1 {
			best, bj = ws[i], j
		}
	}
	for gi := range cf.groups {
		if bj >= 0 && cf.groups[gi].joint == bj {
			return gi
		}
	}
	return -1
}

func (cf *crossFinder) treeDist(a, b int) int {
	d := 0
	for cf.depth[a] > cf.depth[b] {
		a, d = cf.parent[a], d+1
	}
	for cf.depth[b] > cf.depth[a] {
		b, d = cf.parent[b], d+1
	}
	for a != b {
		a, b, d = cf.parent[a], cf.parent[b], d+2
	}
	return d
}

// find returns the closest triangle (body id) and barycentric point within
// reach of p on a body part minTree or more joints from triangle own's
// (exactly one for minTree 1), with p outside it, and the distance.
func (cf *crossFinder) find(p geom.Vec3, own, minTree int, reach float64, skip int) (tri int32, bary [3]float64, dist float64, group int, ok bool) {
	oj := cf.triJ[own]
	best := reach * reach
	for gi, g := range cf.groups {
		if td := cf.treeDist(g.joint, oj); gi == skip || g.box.Dist2(p) > best || td < minTree || minTree == 1 && td > 1 {
			continue
		}
		h, hit := g.bvh.ClosestPointWithin(p, math.Sqrt(best))
		if !hit || h.Dist2 > best {
			continue
		}
		t := cf.body.Tris[g.tris[h.Tri]]
		n := geom.TriangleNormal(cf.body.Verts[t[0]], cf.body.Verts[t[1]], cf.body.Verts[t[2]])
		if p.Sub(h.Point).Dot(n) <= 0 {
			continue // inside that part at rest: no consistent side
		}
		best, tri, bary, group, ok = h.Dist2, g.tris[h.Tri], h.Bary, gi, true
	}
	return tri, bary, math.Sqrt(best), group, ok
}

// pushOut moves q, s (< 0) from outside the plane of normal n by the
// thickness, out of it while keeping it the thickness outside its own
// tangent plane (point po, normal own) where it can:
//   - where the planes meet at an angle (1 − (n·own)² > crossSlideMin) it
//     slides along the own plane, so that the push does not drive it into
//     its own limb;
//   - where they face each other (n·own < 0: the cloth between an arm and
//     the torso) it moves along n. Moving t changes its clearances beyond
//     the thickness to s + t (other) and a + t(n·own) (own). It moves by
//     −s if that leaves the own clearance ≥ 0. Otherwise the parts leave
//     less than twice the thickness between them: it goes where the two
//     clearances are equal, t = (a − s)/(1 − n·own), the midpoint of the
//     gap, while that is outside both (common clearance ≥ −thickness);
//     where the parts overlap (skinning sinks the arm into the torso) no
//     point is outside both and it stays the thickness outside its own
//     part (t = −a/(n·own), or not at all when a < 0), on the surface
//     nearest to it;
//   - else (parallel planes) it moves along n and back out of the own plane.
func pushOut(q geom.Vec3, s float64, n, po, own geom.Vec3, thick float64) geom.Vec3 {
	c := n.Dot(own)
	d := n.AddScaled(-c, own)
	if k := d.Dot(n); k > crossSlideMin {
		q = q.AddScaled(-s/k, d)
	} else if c < 0 {
		a := q.Sub(po).Dot(own) - thick
		t := -s
		if a+t*c < 0 {
			t = (a - s) / (1 - c)
			if s+t < -thick {
				t = max(0, -a/c)
			}
		}
		return q.AddScaled(t, n)
	} else {
		q = q.AddScaled(-s, n)
	}
	if o := q.Sub(po).Dot(own) - thick; o < 0 {
		q = q.AddScaled(-o, own)
	}
	return q
}

// near returns the triangles of group g whose centroids lie within
// reach of the point bary on triangle t (rest pose), at most most of
// them, nearest first.
func (cf *crossFinder) near(g int, t [3]int32, bary [3]float64, reach float64, most int) []int32 {
	v := cf.body.Verts
	p := v[t[0]].Scale(bary[0]).AddScaled(bary[1], v[t[1]]).AddScaled(bary[2], v[t[2]])
	type cd struct {
		t int32
		d float64
	}
	var out []cd
	for _, ct := range cf.groups[g].tris {
		tr := cf.body.Tris[ct]
		c := v[tr[0]].Add(v[tr[1]]).Add(v[tr[2]]).Scale(1.0 / 3)
		if d := c.Dist2(p); d <= reach*reach {
			out = append(out, cd{ct, d})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].d < out[j].d || out[i].d == out[j].d && out[i].t < out[j].t })
	ids := make([]int32, 0, min(len(out), most))
	for _, c := range out[:min(len(out), most)] {
		ids = append(ids, c.t)
	}
	return ids
}

// rings fills sb.ring and sb.ringT for the corners of the candidate
// triangles (body ids ctBody, ctris ids ctID, triJ the body triangles'
// parts) and sb.nbr; id gives (and adds) used-vertex ids.
func (sb *surfaceBinding) rings(body *mesh.Mesh, ctBody []int32, triJ []int, ctID map[int32]int32, id func(int32) int32) {
	inc := make([][]int32, len(body.Verts))
	for t, tr := range body.Tris {
		for _, v := range tr {
			inc[v] = append(inc[v], int32(t))
		}
	}
	sb.nbr = make([][3]int32, len(ctBody))
	for k, ct := range ctBody {
		tr := body.Tris[ct]
		for e := range 3 {
			sb.nbr[k][e] = -1
			u, w := tr[e], tr[(e+1)%3]
			for _, o := range inc[u] {
				if o == ct || triJ[o] != triJ[ct] || !slices.Contains(body.Tris[o][:], w) {
					continue
				}
				if c, ok := ctID[o]; ok {
					sb.nbr[k][e] = c
				}
			}
		}
	}
	sb.vnbrOff = make([]int32, 1, len(ctBody)+1)
	for _, ct := range ctBody {
		tr := body.Tris[ct]
		start := len(sb.vnbr)
		for _, v := range tr {
			for _, o := range inc[v] {
				if o == ct || triJ[o] != triJ[ct] {
					continue
				}
				if c, ok := ctID[o]; ok && !slices.Contains(sb.vnbr[start:], c) {
					sb.vnbr = append(sb.vnbr, c)
				}
			}
		}
		sb.vnbrOff = append(sb.vnbrOff, int32(len(sb.vnbr)))
	}
	seen := map[int32]bool{}
	var corners []int32 // body ids of the candidates' corners, in order
	for _, ct := range ctBody {
		for _, v := range body.Tris[ct] {
			if !seen[v] {
				seen[v] = true
				corners = append(corners, v)
			}
		}
	}
	around := make([][][3]int32, len(corners))
	angle := make([][]float64, len(corners))
	for i, v := range corners {
		for _, t := range inc[v] {
			tr := body.Tris[t]
			around[i] = append(around[i], [3]int32{id(tr[0]), id(tr[1]), id(tr[2])})
			k := slices.Index(tr[:], v)
			x := body.Verts
			angle[i] = append(angle[i], cornerAngle(x[tr[k]], x[tr[(k+1)%3]], x[tr[(k+2)%3]]))
		}
	}
	// the used ids are final now
	n := 0
	for _, v := range corners {
		n = max(n, int(id(v))+1)
	}
	sb.ring = make([]int32, 2*n)
	for i, v := range corners {
		u := id(v)
		sb.ring[2*u] = int32(len(sb.ringT))
		sb.ringT = append(sb.ringT, around[i]...)
		sb.ringA = append(sb.ringA, angle[i]...)
		sb.ring[2*u+1] = int32(len(sb.ringT))
	}
	sb.patch = make([]int32, len(sb.ctris)+1)
	for k, tr := range sb.ctris {
		sb.patch[k] = int32(len(sb.patchT))
		start := len(sb.patchT)
		for _, v := range tr {
			for _, t := range sb.around(v) {
				if !slices.Contains(sb.patchT[start:], t) {
					sb.patchT = append(sb.patchT, t)
				}
			}
		}
	}
	sb.patch[len(sb.ctris)] = int32(len(sb.patchT))
}

// keepOut keeps every bound vertex of x outside the tangent plane of its
// own skin point (as posed by the last place) by its clearance.
func (sb *surfaceBinding) keepOut(x, nrm []geom.Vec3) {
	for i, ok := range sb.valid {
		if !ok {
			continue
		}
		if o := x[i].Sub(sb.skinP[i]).Dot(nrm[i]) - sb.clr[i]; o < 0 {
			x[i] = x[i].AddScaled(-o, nrm[i])
		}
	}
}
