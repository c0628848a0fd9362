package wrinkle

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// Held points. The walk (BodyPush) settles most points each frame: it
// ends outside, at Thickness or more, on the part it started on. Where
// the point and that part barely move against each other it would do so
// again, and a bound says when: a point whose walk (or exact query) ended
// outside at distance d ≥ Thickness on part k in frame f₀, at x₀, has the
// part's surface there at least
//
//	d − |Tₖ(f)⁻¹x − Tₖ(f₀)⁻¹x₀| − mₖ(f₀, f)
//
// from it in frame f, with Tₖ(f) part k's rigid transform in frame f (its
// joint's skinning transform: SetBodyPose) and mₖ(f₀, f) a bound on how
// far any point of part k's surface moved in k's own frame from f₀ to f:
// a rigid transform keeps distances, a point of a triangle moves by a
// convex combination of its corners' moves, and the triangle inequality
// does the rest. mₖ is the smaller of two bounds over the part's
// corners: the sum of their largest moves frame by frame from f₀ to f,
// and their largest distance from the rest shape in f₀ plus that in f
// (the skinning transform takes a corner bound wholly to k's joint to
// its rest position, so the second is small away from the joints and
// lasts however long the point is held). While that is Thickness or more
// the point is held: settled as its walk would settle it, without the
// walk, and only where the walk alone would settle it (not due its
// refresh, not watched, its triangle not at risk). The bound covers the
// walk's neighbourhood of the surface, not what lies beyond it (another
// part, a fold of the same one): those are the exact queries' and the
// watch's, as for the walk.
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
	// Per ring slot g mod heldRing (g a SetBody count): the parts'
	// inverse transforms, the running sums of their corners' largest
	// moves per frame, and their corners' largest distances from rest.
	inv  [heldRing][]rigidMat
	cum  [heldRing][]float64
	dev  [heldRing][]float64
	gen  uint64 // SetBody calls so far
	pose uint64 // the last SetBody count given transforms, 0 for none
	// chain is the first SetBody count of the present run of frames
	// that all had transforms (cum is summed over it).
	chain uint64
	// Per garment point: the distance its last settling walk or query
	// found (negative: none), its part, its position in that part's
	// frame then and the SetBody count then.
	d []float64
	p []int32
	y []geom.Vec3
	g []uint64
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
		step, dev := 0.0, 0.0
		lo, hi := b.partStart[k], b.partStart[k+1]
		for j := lo; j < hi; j++ {
			v := b.partVert[j]
			y := m.apply(b.m.Verts[v])
			dev = max(dev, y.Dist2(h.rest[v]))
			if prev {
				step = max(step, y.Dist2(h.loc[j]))
			}
			h.loc[j] = y
		}
		c := math.Sqrt(step)
		if prev {
			c += h.cum[ps][k]
		}
		h.cum[s][k], h.dev[s][k] = c, math.Sqrt(dev)
	}
	h.pose = g
	return nil
}

// hold records that point i at x was settled outside the body at
// distance d ≥ Thickness from body triangle tri by its walk or the exact
// query (or, with d < 0, that it was not).
func (b *BodyPush) hold(i int, x geom.Vec3, tri int32, d float64) {
	h := &b.held
	if h.d == nil {
		return
	}
	if d < 0 || h.pose != h.gen {
		h.d[i] = -1
		return
	}
	k := b.triPart[tri]
	h.d[i], h.p[i], h.y[i], h.g[i] = d, k, h.inv[h.gen%heldRing][k].apply(x), h.gen
}

// heldNow reports whether point i at x is settled without its walk in
// the running Push: held, where the walk alone would settle it (not due
// its refresh, not watched, its hint not at risk).
func (b *BodyPush) heldNow(i int, x geom.Vec3) bool {
	h := b.hint[i]
	return h >= 0 && b.refresh > 1 && (b.frame+uint64(i))%uint64(b.refresh) != 0 &&
		b.watch[i] == 0 && b.riskUntil[h] <= b.frame && b.heldAt(i, x)
}

// heldAt reports whether point i at x is held: its part's surface is
// proved Thickness or more from it by its last settling walk or query
// and the motion bounds since.
func (b *BodyPush) heldAt(i int, x geom.Vec3) bool {
	h := &b.held
	if h.d == nil || h.pose != h.gen {
		return false
	}
	d0, g0 := h.d[i], h.g[i]
	if d0 < 0 || h.gen-g0 >= heldRing {
		return false
	}
	k := h.p[i]
	s, s0 := h.gen%heldRing, g0%heldRing
	m := h.dev[s][k] + h.dev[s0][k]
	if g0 >= h.chain { // cum is summed over g0 to gen
		m = min(m, h.cum[s][k]-h.cum[s0][k])
	}
	r := d0 - m - b.Thickness - heldSlack
	if r < 0 {
		return false
	}
	return h.inv[s][k].apply(x).Dist2(h.y[i]) <= r*r
}
