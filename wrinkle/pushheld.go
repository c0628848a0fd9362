package wrinkle

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// Held points. The walk (BodyPush) settles most points each frame: it
// ends outside, at Thickness or more, near the triangle it started on.
// Where the point and that stretch of the body barely move against each
// other it would do so again, and a bound says when. Each body part is
// cut into patches (its triangles by their rest centroids on a grid of
// patchCell); a patch with the patches of its part that share a corner
// with it is its neighbourhood. A point whose walk (or exact query) ended
// outside at distance d ≥ Thickness on a triangle of patch c of part k in
// frame f₀, at x₀, has the surface of c's neighbourhood at least
//
//	d − |Tₖ(f)⁻¹x − Tₖ(f₀)⁻¹x₀| − m_c(f₀, f)
//
// from it in frame f, where c's neighbourhood was as far as d, with
// Tₖ(f) part k's rigid transform in frame f (its joint's skinning
// transform: SetBodyPose) and m_c(f₀, f) a bound on how far any point of
// that neighbourhood moved in k's own frame from f₀ to f: a rigid
// transform keeps distances, a point of a triangle moves by a convex
// combination of its corners' moves, and the triangle inequality does
// the rest. m_c is the smaller of two bounds over the neighbourhood's
// corners: the sum of their largest moves frame by frame from f₀ to f,
// and their largest distance from the rest shape in f₀ plus that in f
// (the skinning transform takes a corner bound wholly to k's joint to
// its rest position, so the second is small away from the joints and
// lasts however long the point is held). While that is Thickness or more
// the point is held: settled as its walk would settle it, without the
// walk, and only where the walk alone would settle it (not due its
// refresh, not watched, its triangle not at risk). Like the walk the
// bound is local: what lies beyond the neighbourhood (another part, a
// fold, a walk that would have gone farther) is the exact queries' and
// the watch's, as for the walk. TestBodyPushHeld checks that the walk
// settles every held point; per-part bounds instead of per-patch ones
// held 70% as many points in bench synth (28.5% of vertex-frames against
// 40.4%).
//
// heldRing is the number of frames of part transforms and motion bounds
// kept: a point is held at most heldRing − 1 frames after its walk.
// heldSlack (m) covers rounding in the transforms and the sums.
const (
	heldRing  = 64
	heldSlack = 1e-7
)

// rigidMat is a rigid transform y = R·x + T with R as a matrix.
type rigidMat struct {
	r [9]float64
	t geom.Vec3
}

func (m *rigidMat) apply(x geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: m.r[0]*x.X + m.r[1]*x.Y + m.r[2]*x.Z + m.t.X,
		Y: m.r[3]*x.X + m.r[4]*x.Y + m.r[5]*x.Z + m.t.Y,
		Z: m.r[6]*x.X + m.r[7]*x.Y + m.r[8]*x.Z + m.t.Z,
	}
}

// inverseMat returns the matrix form of a's inverse, its rotation made
// unit first.
func inverseMat(a geom.Rigid) rigidMat {
	q := a.R.Normalize()
	inv := geom.Rigid{R: q, T: a.T}.Inverse()
	m := inv.R.Mat3()
	return rigidMat{r: [9]float64{m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], m[2][0], m[2][1], m[2][2]}, t: inv.T}
}

// heldState is BodyPush's bookkeeping for held points (SetBodyPose).
type heldState struct {
	label []int32     // dense part → its label (SetParts)
	rest  []geom.Vec3 // the body's rest positions
	loc   []geom.Vec3 // per partVert entry: its position in its part's frame, last posed frame
	// Patches of each part (patchCell): per triangle its patch, per
	// patch its part, its corners as partVert entries
	// (patchEnt[patchStart[c]:patchStart[c+1]]) and the patches of its
	// part that share a corner with it, itself included
	// (patchAdj[adjStart[c]:adjStart[c+1]]).
	patchOf, patchPart   []int32
	patchEnt, patchStart []int32
	patchAdj, adjStart   []int32
	// Scratch of SetBodyPose: per partVert entry and per patch the
	// squared largest move since the last frame and distance from rest.
	stepV, devV, stepP, devP []float64
	// Per ring slot g mod heldRing (g a SetBody count): the parts'
	// inverse transforms, and per patch its motion bounds.
	inv   [heldRing][]rigidMat
	bound [heldRing][]patchBound
	gen   uint64 // SetBody calls so far
	pose  uint64 // the last SetBody count given transforms, 0 for none
	// chain is the first SetBody count of the present run of frames
	// that all had transforms (cum is summed over it).
	chain uint64
	pt    []heldPoint // per garment point
}

// patchBound is a patch's motion bounds in one frame: the running sum of
// the largest move per frame of its and its neighbours' corners, and
// their largest distance from rest, m.
type patchBound struct{ cum, dev float64 }

// heldPoint is what a garment point's last settling walk or query found:
// its position in the found patch's part's frame, the distance (negative:
// none), the SetBody count then and the patch.
type heldPoint struct {
	y geom.Vec3
	d float64
	g uint64
	c int32
}

// patchCell (m) is the edge of the grid cells that cut each body part
// into patches by their triangles' rest centroids. In bench synth 6 cm
// held 37.5% of vertex-frames, 4 cm 40.4%, 3 cm 42.3% (over 60 frames);
// smaller patches cover less of a walk's way.
const patchCell = 0.04

// setPatches cuts the parts into patches and sizes the held state for n
// garment points.
func (b *BodyPush) setPatches(label []int32, n int) {
	h := &b.held
	*h = heldState{label: label, rest: h.rest, gen: h.gen, loc: make([]geom.Vec3, len(b.partVert)), pt: make([]heldPoint, n)}
	for i := range h.pt {
		h.pt[i].d = -1
	}
	type key struct{ part, x, y, z int32 }
	ids := map[key]int32{}
	h.patchOf = make([]int32, len(b.m.Tris))
	for t, tr := range b.m.Tris {
		c := h.rest[tr[0]].Add(h.rest[tr[1]]).Add(h.rest[tr[2]]).Scale(1.0 / (3 * patchCell))
		k := key{b.triPart[t], int32(math.Floor(c.X)), int32(math.Floor(c.Y)), int32(math.Floor(c.Z))}
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
			h.patchPart = append(h.patchPart, k.part)
		}
		h.patchOf[t] = id
		b.tri[t].patch = id
	}
	np := len(ids)
	// Each patch's corners as entries of its part's partVert range.
	entry := make([]int32, len(b.m.Verts)) // vertex → its entry in the part at hand
	byPatch := make([][]int32, np)
	seen := make([]int32, len(b.m.Verts))
	for i := range seen {
		seen[i] = -1
	}
	for k := range b.partBox {
		for j := b.partStart[k]; j < b.partStart[k+1]; j++ {
			entry[b.partVert[j]] = j
		}
		for t, tr := range b.m.Tris {
			if int(b.triPart[t]) != k {
				continue
			}
			c := h.patchOf[t]
			for _, v := range tr {
				if seen[v] != c {
					seen[v] = c
					byPatch[c] = append(byPatch[c], entry[v])
				}
			}
		}
	}
	// Patches sharing an entry (a corner within the part) are neighbours.
	ofEntry := make([][]int32, len(b.partVert))
	h.patchStart = make([]int32, np+1)
	for c, es := range byPatch {
		h.patchEnt = append(h.patchEnt, es...)
		h.patchStart[c+1] = int32(len(h.patchEnt))
		for _, j := range es {
			ofEntry[j] = append(ofEntry[j], int32(c))
		}
	}
	h.adjStart = make([]int32, np+1)
	mark := make([]int32, np)
	for i := range mark {
		mark[i] = -1
	}
	for c, es := range byPatch {
		for _, j := range es {
			for _, o := range ofEntry[j] {
				if mark[o] != int32(c) {
					mark[o] = int32(c)
					h.patchAdj = append(h.patchAdj, o)
				}
			}
		}
		h.adjStart[c+1] = int32(len(h.patchAdj))
	}
	h.stepV, h.devV = make([]float64, len(b.partVert)), make([]float64, len(b.partVert))
	h.stepP, h.devP = make([]float64, np), make([]float64, np)
	for s := range heldRing {
		h.inv[s], h.bound[s] = make([]rigidMat, len(label)), make([]patchBound, np)
	}
}

// SetBodyPose is SetBody with the rigid transform of each part label in
// this frame, skin[l] for label l (skel.SkinMatrices for BodyParts'
// joint labels), which lets Push settle a point without its walk while
// motion bounds show the walk would settle it (see heldRing and the
// comment above it). Without parts (SetParts) it is SetBody.
func (b *BodyPush) SetBodyPose(x []geom.Vec3, skin []geom.Rigid) error {
	if err := b.SetBody(x); err != nil {
		return err
	}
	h := &b.held
	if b.triPart == nil || skin == nil {
		return nil
	}
	for k, l := range h.label {
		if int(l) >= len(skin) {
			return fmt.Errorf("wrinkle: body part %d (label %d) has no transform (%d given)", k, l, len(skin))
		}
	}
	g := h.gen
	s := g % heldRing
	prev := h.pose != 0 && h.pose == g-1
	if !prev {
		h.chain = g
	}
	ps := (g - 1) % heldRing
	for k, l := range h.label {
		m := inverseMat(skin[l])
		h.inv[s][k] = m
		for j := b.partStart[k]; j < b.partStart[k+1]; j++ {
			v := b.partVert[j]
			y := m.apply(b.m.Verts[v])
			h.devV[j] = y.Dist2(h.rest[v])
			if prev {
				h.stepV[j] = y.Dist2(h.loc[j])
			}
			h.loc[j] = y
		}
	}
	for c := range h.stepP {
		step, dev := 0.0, 0.0
		for _, j := range h.patchEnt[h.patchStart[c]:h.patchStart[c+1]] {
			step, dev = max(step, h.stepV[j]), max(dev, h.devV[j])
		}
		h.stepP[c], h.devP[c] = step, dev
	}
	for c := range h.stepP {
		step, dev := 0.0, 0.0
		for _, o := range h.patchAdj[h.adjStart[c]:h.adjStart[c+1]] {
			step, dev = max(step, h.stepP[o]), max(dev, h.devP[o])
		}
		cum := 0.0
		if prev {
			cum = h.bound[ps][c].cum + math.Sqrt(step)
		}
		h.bound[s][c] = patchBound{cum, math.Sqrt(dev)}
	}
	h.pose = g
	return nil
}

// hold records that point i at x was settled outside the body at
// distance d ≥ Thickness from body triangle tri by its walk or the exact
// query (or, with d < 0, that it was not).
func (b *BodyPush) hold(i int, x geom.Vec3, tri int32, d float64) {
	h := &b.held
	if h.pt == nil {
		return
	}
	if d < 0 || h.pose != h.gen {
		h.pt[i].d = -1
		return
	}
	c := b.tri[tri].patch
	h.pt[i] = heldPoint{y: h.inv[h.gen%heldRing][h.patchPart[c]].apply(x), d: d, g: h.gen, c: c}
}

// heldNow reports whether point i at x is settled without its walk in
// the running Push: held, where the walk alone would settle it (not due
// its refresh, not watched, its hint not at risk).
func (b *BodyPush) heldNow(i int, x geom.Vec3) bool {
	h := b.hint[i]
	return h >= 0 && b.refresh > 1 && (b.frame+uint64(i))%uint64(b.refresh) != 0 &&
		b.watch[i] == 0 && b.heldAt(i, x) && b.face[h].risk <= b.frame
}

// heldAt reports whether point i at x is held: its part's surface is
// proved Thickness or more from it by its last settling walk or query
// and the motion bounds since.
func (b *BodyPush) heldAt(i int, x geom.Vec3) bool {
	h := &b.held
	if h.pt == nil || h.pose != h.gen {
		return false
	}
	pt := &h.pt[i]
	if pt.d < 0 || h.gen-pt.g >= heldRing {
		return false
	}
	c := pt.c
	s := h.gen % heldRing
	now, then := h.bound[s][c], h.bound[pt.g%heldRing][c]
	m := now.dev + then.dev
	if pt.g >= h.chain { // cum is summed over pt.g to gen
		m = min(m, now.cum-then.cum)
	}
	r := pt.d - m - b.Thickness - heldSlack
	if r < 0 {
		return false
	}
	return h.inv[s][h.patchPart[c]].apply(x).Dist2(pt.y) <= r*r
}
