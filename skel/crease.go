package skel

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// Crease names a joint where two segments fold against each other: Joint
// (an elbow, a knee) bends the segment from Proximal's head to Joint's
// head (the upper arm, the thigh) towards the one from Joint's head to
// Distal's head (the forearm, the calf). Distal must be a descendant of
// Joint. Proximal is an ancestor of Joint for a limb's crease; for a
// trunk crease (a hip: Proximal the neck, Joint the hip, Distal the knee)
// it is outside Joint's subtree, and the proximal segment is the joints
// on the skeleton's path from Proximal to Joint's parent (spine, pelvis).
type Crease struct {
	Proximal, Joint, Distal int
}

// Creaser keeps the two segments of each Crease of a skinned body out of
// each other. Linear blend skinning lets a deeply bent limb pass into
// itself: on the MakeHuman body the calf is 58 mm inside the thigh at a
// knee flexion of 150°, where real soft tissue flattens against itself
// instead. Cloth caught in such an overlap is inside the body whichever
// way it moves. Apply flattens the two segments against each other, as
// soft tissue does. With o the joint's posed head, d_p and d_d the unit
// directions from o to Proximal's and Distal's heads, b = (d_p + d_d)/|·|
// the bisector of the bend (pointing into its inner side) and
// m = (d_d − d_p)/|·| the normal of the bisecting plane (towards the
// distal side), each segment is bounded by a plane through o opened by
// creaseOpen from the bisecting one towards its own bone,
//
//	n_p = sin(creaseOpen)·b + cos(creaseOpen)·m    (proximal)
//	n_d = −sin(creaseOpen)·b + cos(creaseOpen)·m   (distal),
//
// so that the flattened faces meet at the joint and open a narrow wedge
// towards the crease's mouth (2·r·sin(creaseOpen) wide at r from o): a
// cloth vertex pressed into the crease has a side to be on and a
// direction out (collide.Params.SqueezeFolds), where faces flattened onto
// one plane would leave it inside one segment or the other. A vertex of
// the proximal segment with t = (x − o)·n_p > 0, or of the distal one
// with t = (x − o)·n_d < 0, that lies on the inner side of the bend
// ((x − o)·b > 0) is moved towards its plane,
//
//	x ← x − s·t·n,
//
// with s rising smoothly from 0 at a flexion (π − ∠(d_p, d_d)) of
// creaseStart, or the rest pose's flexion where that is more, to 1 at
// creaseFull − creaseStart beyond that: a straight or slightly bent limb,
// whose skinned segments are apart, and the rest pose (an A-pose's bent
// elbows) are untouched, and the correction grows continuously with the
// bend. A vertex belongs to a segment by its
// largest weight (ties to the lower joint index): the distal segment is
// Joint's subtree, the proximal one the joints on the path from Proximal
// to Joint's parent. A trunk crease differs in where the faces meet and
// what it flattens (applyTrunk) and starts later (creaseTrunkStart).
//
// A Creaser is immutable and safe for concurrent use on distinct vertex
// slices.
type Creaser struct {
	creases []Crease
	rest    [][3]geom.Vec3 // per crease: rest heads of Proximal, Joint, Distal
	start   []float64      // per crease: the flexion where flattening starts, radians
	prox    [][]int32      // per crease: the proximal segment's vertices
	dist    [][]int32      // per crease: the distal segment's vertices
	lca     []int          // per crease: the common ancestor of Proximal and Joint
	nverts  int
}

// creaseStart and creaseFull (radians) are the flexions between which a
// Crease's flattening grows from nothing to full: below 45° the bisecting
// plane lies more than 67° from each segment and the skinned segments are
// apart; at 75° the bend closes the inner side of the joint. creaseOpen
// (radians) is the angle between the two flattened faces' planes and the
// bisecting one.
const (
	creaseStart = 45 * math.Pi / 180
	creaseFull  = 75 * math.Pi / 180
	creaseOpen  = 2 * math.Pi / 180
)

// NewCreaser prepares creases of skeleton sk for a body with skinning
// weights w. The error names the first crease whose joints are out of
// range or not a chain, or whose heads coincide.
func NewCreaser(sk *Skeleton, w Weights, creases []Crease) (*Creaser, error) {
	n := w.NumVerts()
	c := &Creaser{creases: append([]Crease(nil), creases...), nverts: n}
	rw := sk.RestWorld()
	nj := sk.NumJoints()
	for i, cr := range creases {
		for _, j := range [3]int{cr.Proximal, cr.Joint, cr.Distal} {
			if j < 0 || j >= nj {
				return nil, fmt.Errorf("skel: crease %d: joint %d out of range [0, %d)", i, j, nj)
			}
		}
		if descends(sk, cr.Proximal, cr.Joint) {
			return nil, fmt.Errorf("skel: crease %d: %q is %q or below it", i, sk.Joint(cr.Proximal).Name, sk.Joint(cr.Joint).Name)
		}
		if sk.Parent(cr.Joint) < 0 {
			return nil, fmt.Errorf("skel: crease %d: %q is a root", i, sk.Joint(cr.Joint).Name)
		}
		lca := commonAncestor(sk, cr.Proximal, cr.Joint)
		if lca < 0 {
			return nil, fmt.Errorf("skel: crease %d: %q and %q are in different trees", i, sk.Joint(cr.Proximal).Name, sk.Joint(cr.Joint).Name)
		}
		c.lca = append(c.lca, lca)
		if !descends(sk, cr.Distal, cr.Joint) || cr.Distal == cr.Joint {
			return nil, fmt.Errorf("skel: crease %d: %q is not a descendant of %q", i, sk.Joint(cr.Distal).Name, sk.Joint(cr.Joint).Name)
		}
		h := [3]geom.Vec3{rw[cr.Proximal].T, rw[cr.Joint].T, rw[cr.Distal].T}
		if h[0].Dist(h[1]) < 1e-6 || h[2].Dist(h[1]) < 1e-6 {
			return nil, fmt.Errorf("skel: crease %d at %q: a segment has no length", i, sk.Joint(cr.Joint).Name)
		}
		c.rest = append(c.rest, h)
		start := creaseStart
		if lca != cr.Proximal {
			start = creaseTrunkStart
		}
		c.start = append(c.start, max(start, flexion(h[0].Sub(h[1]).Unit(), h[2].Sub(h[1]).Unit())))
	}
	c.prox = make([][]int32, len(creases))
	c.dist = make([][]int32, len(creases))
	for v := range n {
		d := w.Dominant(v)
		if d < 0 {
			continue
		}
		for i, cr := range creases {
			switch {
			case descends(sk, d, cr.Joint):
				c.dist[i] = append(c.dist[i], int32(v))
			case descends(sk, d, c.lca[i]) && (descends(sk, cr.Proximal, d) || descends(sk, sk.Parent(cr.Joint), d)):
				c.prox[i] = append(c.prox[i], int32(v))
			}
		}
	}
	return c, nil
}

// commonAncestor returns the deepest joint that a and b both descend from
// (or are), -1 when they are in different trees.
func commonAncestor(sk *Skeleton, a, b int) int {
	for j := a; j >= 0; j = sk.Parent(j) {
		if descends(sk, b, j) {
			return j
		}
	}
	return -1
}

// descends reports whether joint j is a or a descendant of it.
func descends(sk *Skeleton, j, a int) bool { return j == a || sk.IsAncestor(a, j) }

// Apply flattens the creases of the body x, skinned by skin (SkinMatrices
// of the pose), in place. It panics if len(x) is not the body's vertex
// count.
func (c *Creaser) Apply(skin []geom.Rigid, x []geom.Vec3) {
	if len(x) != c.nverts {
		panic("skel: Creaser.Apply: vertex count differs from the weights'")
	}
	for i, cr := range c.creases {
		h := &c.rest[i]
		o := skin[cr.Joint].Apply(h[1])
		dp := skin[cr.Proximal].Apply(h[0]).Sub(o).Unit()
		dd := skin[cr.Distal].Apply(h[2]).Sub(o).Unit()
		s := smoothstep((flexion(dp, dd) - c.start[i]) / (creaseFull - creaseStart))
		if s == 0 {
			continue
		}
		m := dd.Sub(dp)
		if l := m.Len(); l > 1e-9 {
			m = m.Scale(1 / l)
		} else {
			continue
		}
		in := dp.Add(dd)
		b := in.Unit()
		sd, cd := math.Sincos(creaseOpen)
		np, nd := b.Scale(sd).Add(m.Scale(cd)), b.Scale(-sd).Add(m.Scale(cd))
		if c.lca[i] == cr.Proximal {
			flatten(x, c.prox[i], o, np, in, s, 1)
			flatten(x, c.dist[i], o, nd, in, s, -1)
			continue
		}
		c.applyTrunk(x, i, o, dp, dd, b, m, np, nd, s)
	}
}

// applyTrunk flattens trunk crease i (see Creaser). The trunk is deeper
// on the inner side of the bend than the limb (the belly lies further in
// front of the hip joint than the front of the thigh), so the two faces
// meet where the trunk's inner surface, the line x·n_t = a with
// n_t = sin α·b + cos α·m ⊥ d_p (α the half angle between d_p and d_d),
// crosses the limb's, x·n_d = c with n_d = sin α·b − cos α·m: at
// (x − o)·m = γ = (a − c)/(2 cos α). a and c are measured in the pose:
// the furthest inner reach of each segment's skin within half the limb
// segment's length of o. Only trunk vertices beside the limb (within its
// extent across the bend plane, fading out over creaseSide) are
// flattened.
func (c *Creaser) applyTrunk(x []geom.Vec3, i int, o, dp, dd, b, m, np, nd geom.Vec3, s float64) {
	h := &c.rest[i]
	reach := h[2].Dist(h[1]) / 2
	side := dp.Cross(dd).Unit()
	nt := b.Sub(dp.Scale(b.Dot(dp))).Unit()
	ndd := b.Sub(dd.Scale(b.Dot(dd))).Unit()
	a, cc := 0.0, 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range c.dist[i] {
		d := x[v].Sub(o)
		if ax := d.Dot(dd); ax <= 0 || ax > reach {
			continue
		}
		cc = max(cc, d.Dot(ndd))
		l := d.Dot(side)
		lo, hi = min(lo, l), max(hi, l)
	}
	if lo > hi {
		return
	}
	for _, v := range c.prox[i] {
		d := x[v].Sub(o)
		if ax := d.Dot(dp); ax <= 0 || ax > reach {
			continue
		}
		if l := d.Dot(side); l < lo || l > hi {
			continue
		}
		a = max(a, d.Dot(nt))
	}
	cosA := b.Dot(dp)
	if cosA < 1e-3 {
		return
	}
	oc := o.Add(m.Scale((a - cc) / (2 * cosA)))
	for _, v := range c.prox[i] {
		d := x[v].Sub(o)
		if d.Dot(b) <= 0 {
			continue
		}
		l := d.Dot(side)
		w := 1 - smoothstep(max(lo-l, l-hi)/creaseSide)
		if w == 0 {
			continue
		}
		if t := x[v].Sub(oc).Dot(np); t > 0 {
			x[v] = x[v].Sub(np.Scale(s * w * t))
		}
	}
	// oc − o is along m ⊥ b, so the inner side seen from oc is the
	// one seen from o.
	flatten(x, c.dist[i], oc, nd, b, s, -1)
}

// creaseSide (m) is the width over which a trunk crease's flattening fades
// out beside the limb. creaseTrunkStart (radians) replaces creaseStart for
// a trunk crease: a thigh flexed less than 75° lies below the belly, and
// flattening it there only carves the groin.
const (
	creaseSide       = 0.02
	creaseTrunkStart = 75 * math.Pi / 180
)

// flatten moves the vertices vs of x that lie on the inner side of the
// bend (in) and past the plane through o with normal m (on its side
// sign·m) towards it, s of the way.
func flatten(x []geom.Vec3, vs []int32, o, m, in geom.Vec3, s, sign float64) {
	for _, v := range vs {
		d := x[v].Sub(o)
		t := d.Dot(m)
		if t*sign <= 0 || d.Dot(in) <= 0 {
			continue
		}
		x[v] = x[v].Sub(m.Scale(s * t))
	}
}

// flexion returns the bend between segments of unit directions dp and dd
// from their joint: π − ∠(dp, dd), 0 for a straight limb.
func flexion(dp, dd geom.Vec3) float64 {
	return math.Pi - math.Acos(max(-1, min(1, dp.Dot(dd))))
}

// smoothstep is 3t² − 2t³ on [0, 1], clamped outside.
func smoothstep(t float64) float64 {
	t = max(0, min(1, t))
	return t * t * (3 - 2*t)
}
