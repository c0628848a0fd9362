package sim

import (
	"math"
	"slices"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// loops holds the attached loops of the pieces (waistbands, collars) and
// their targets.
//
// Each attached vertex follows the body surface: it is bound to its closest
// body point (triangle, barycentric coordinates and its offset in the
// triangle's frame) in the body's pose at binding. Skinning the garment
// itself would not do: a garment's skinning weights blend those of the body
// vertices it was fitted to, and neighbouring garment vertices fitted to
// different body parts (a waistband over the back of the pelvis and the top
// of the thigh) get different transforms, which stretched the MakeHuman
// jeans' waistband by up to 80 % over the walk. Nor does the skinned body
// surface alone: linear blend skinning stretches the MakeHuman skin itself
// by up to 87 % at the back of the waist between the rest pose and the
// walk's first pose. A waistband or collar is a closed band of fabric that
// moves with the pelvis or neck and does not stretch with the skin, so each
// loop follows the rigid motion that best fits its bound body points
// (rigidFit): the loop keeps its shape and follows the body as a whole.
// A piece's pins (Piece.Pins) come after its loop in every per-piece list;
// each follows its own bound body point.
type loops struct {
	pinK  float64    // pin stiffness, N/m (negative: hard pins)
	thick float64    // body safety distance, m
	reach float64    // deepest push of a target out of the body, m (see newLoops)
	lim   float64    // strain limit of the loop's edges
	tris  [][3]int32 // the collision body's triangles

	bound bool
	nLoop []int         // per piece: the loop's vertices, before the pins
	ids   [][]int       // per piece: the cloth's attachment ids
	binds [][]surfBind  // per piece and loop vertex
	rest  [][]geom.Vec3 // loop positions at binding
	pairs [][][2]int32  // loop edges (loopPairs)
	prev  [][]geom.Vec3 // targets at the start of the coming frame
	next  [][]geom.Vec3 // targets at its end
	ahead [][]geom.Vec3 // targets at the end of the frame after (see ahead)

	// body is the part of the collision body around the loops (verts:
	// its vertices in the body), refitted once per frame for the
	// targets' push-out (the whole body's refit took 5 % of a coarse
	// frame).
	body  *collide.Body
	verts []int32
	x     []geom.Vec3
	push  []geom.Vec3
}

// tgtRadius (m) is how far from the attached loops (in the rest pose) the
// body is kept for pushing their targets out: far more than a target
// strays from its loop's rigid fit. On a creased body (see newLoops) it
// is tgtRadiusCreased, which takes in a thigh raised against the belly.
const (
	tgtRadius        = 0.08
	tgtRadiusCreased = 0.25
)

// tgtReachCreased (m) is the deepest push of a loop's target out of a
// creased body.
const tgtReachCreased = 0.05

// newLoops prepares the loops of the pieces; the body part around them is
// cut from the collision body at bodyX (nil: no push-out).
//
// creased says that the body's folds are flattened (Options.Creases). A
// skinned body passes into itself where a limb folds against it (a thigh
// raised 105° is 4 cm deep in the belly), and a loop target inside such
// an overlap is inside whichever surface it is pushed through; so a
// target is pushed out by at most the safety distance, which only undoes
// the rigid loop's not following the skin's own bulging. On a creased
// body the folds have an outside, and a target caught in one (a
// waistband under the raised thigh) is pushed out however deep, up to
// tgtReachCreased: the waistband rides on the thigh as cloth does.
func newLoops(pieces []*Piece, cloths []*cloth.Cloth, bodyX []geom.Vec3, tris [][3]int32, pinK, thick, lim float64, creased bool) (*loops, error) {
	n := len(pieces)
	radius, reach := tgtRadius, thick
	if creased {
		radius, reach = tgtRadiusCreased, tgtReachCreased
	}
	l := &loops{pinK: pinK, thick: thick, reach: reach, lim: lim, tris: tris, nLoop: make([]int, n),
		ids: make([][]int, n), binds: make([][]surfBind, n), rest: make([][]geom.Vec3, n),
		pairs: make([][][2]int32, n), prev: make([][]geom.Vec3, n), next: make([][]geom.Vec3, n), ahead: make([][]geom.Vec3, n)}
	if bodyX == nil {
		return l, nil
	}
	var pts []geom.Vec3
	for i, p := range pieces {
		for _, v := range p.Attach {
			pts = append(pts, cloths[i].X[v])
		}
	}
	if len(pts) == 0 {
		return l, nil
	}
	var err error
	l.body, l.verts, err = nearBody(bodyX, tris, pts, radius)
	return l, err
}

// bind attaches each piece's loop and pins to the cloth at their current
// positions and binds them to the body (at bodyX, whose closest points
// body finds). The targets start where the vertices are.
func (l *loops) bind(pieces []*Piece, cloths []*cloth.Cloth, body *collide.Body, bodyX []geom.Vec3) {
	for i, p := range pieces {
		c := cloths[i]
		l.nLoop[i] = len(p.Attach)
		for _, v := range slices.Concat(p.Attach, p.Pins) {
			a := cloth.Attachment{Vertex: int(v)}
			if l.pinK > 0 {
				// Critically damped for the vertex alone.
				a.Stiffness, a.Damping = l.pinK, 2*math.Sqrt(l.pinK*c.Mass[v])
			}
			l.ids[i] = append(l.ids[i], c.Attach(a))
			l.binds[i] = append(l.binds[i], bindSurface(body, bodyX, l.tris, c.X[v]))
			l.rest[i] = append(l.rest[i], c.X[v])
		}
		l.pairs[i] = loopPairs(p.Mesh.Tris, p.Attach)
		l.prev[i] = l.prev[i][:0]
		for _, v := range slices.Concat(p.Attach, p.Pins) {
			l.prev[i] = append(l.prev[i], c.X[v])
		}
	}
	l.bound = true
}

// targets sets dst (per piece) to the loops' targets for body vertex
// positions bodyX.
func (l *loops) targets(bodyX []geom.Vec3, dst [][]geom.Vec3) {
	for i := range dst {
		dst[i] = dst[i][:0]
		for _, b := range l.binds[i] {
			dst[i] = append(dst[i], b.point(bodyX, l.tris))
		}
		n := l.nLoop[i]
		rot, tr := rigidFit(l.rest[i][:n], dst[i][:n])
		for j, p := range l.rest[i][:n] {
			dst[i][j] = rot.Rotate(p).Add(tr)
		}
	}
	l.pushOut(bodyX, dst)
}

// pushOut moves the loops' targets dst (per piece) out of the body at
// bodyX and holds each loop to the strain limit.
func (l *loops) pushOut(bodyX []geom.Vec3, dst [][]geom.Vec3) {
	// A target closer to the skin than the safety distance (or a little
	// inside: the rigid loop does not follow the skin's own bulging) is
	// moved out to it along the body normal, by at most l.reach (see
	// newLoops); keepLoop then holds the loop's edges to the strain
	// limit: a hard-pinned waistband vertex 1 mm off the skin beside a
	// neighbour pushed out to 3.4 mm stretched their 2.5 mm edge by 35 %,
	// the jeans' worst edge in 40 of 86 frames.
	if l.body == nil {
		return
	}
	l.x = l.x[:0]
	for _, v := range l.verts {
		l.x = append(l.x, bodyX[v])
	}
	l.body.SetFrame(l.x)
	l.body.Update(0)
	for i := range dst {
		push := l.push[:0]
		for _, p := range dst[i][:l.nLoop[i]] {
			var d geom.Vec3
			if con, ok := l.body.Query(p, max(2*l.thick, l.reach)); ok && con.Dist < l.thick {
				d = con.Normal.Scale(min(l.thick-con.Dist, l.reach))
			}
			push = append(push, d)
		}
		keepLoop(dst[i][:l.nLoop[i]], push, l.rest[i], l.pairs[i], l.lim)
		l.push = push
	}
}

// set moves the cloths' targets to fraction a of the way through the
// coming frame.
func (l *loops) set(cloths []*cloth.Cloth, a float64) {
	for i, c := range cloths {
		for j, id := range l.ids[i] {
			c.SetTarget(id, l.prev[i][j].Lerp(l.next[i][j], a))
		}
	}
}

// advance makes the frame's end targets the next frame's start.
func (l *loops) advance() {
	for i := range l.prev {
		copy(l.prev[i], l.next[i])
	}
}

// nearBody returns the triangles of the body (verts, tris) with a corner
// within r of one of pts, as a Body of their own, and the body vertex of
// each of its vertices.
func nearBody(verts []geom.Vec3, tris [][3]int32, pts []geom.Vec3, r float64) (*collide.Body, []int32, error) {
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		lo, hi = lo.Min(p), hi.Max(p)
	}
	pad := geom.V(r, r, r)
	lo, hi = lo.Sub(pad), hi.Add(pad)
	near := make([]bool, len(verts))
	for v, q := range verts {
		if q.X < lo.X || q.Y < lo.Y || q.Z < lo.Z || q.X > hi.X || q.Y > hi.Y || q.Z > hi.Z {
			continue
		}
		for _, p := range pts {
			if q.Dist2(p) <= r*r {
				near[v] = true
				break
			}
		}
	}
	whole := &mesh.Mesh{Verts: verts, Tris: tris}
	sub, ids, _ := mesh.Extract(whole, func(t int) bool {
		return near[tris[t][0]] || near[tris[t][1]] || near[tris[t][2]]
	})
	if len(sub.Tris) == 0 {
		return nil, nil, nil // nothing near: no push-out
	}
	if b, err := collide.NewBody(sub); err == nil {
		return b, ids, nil
	}
	// A part the body type does not take (e.g. two fans of triangles
	// touching at a vertex): the whole body.
	ids = make([]int32, len(verts))
	for v := range ids {
		ids[v] = int32(v)
	}
	b, err := collide.NewBody(whole)
	return b, ids, err
}

// loopPairs returns the pairs of positions in attach (the attached loop of
// a piece) whose vertices share an edge of the piece: the loop's own edges
// and the chords of triangles with two loop edges.
func loopPairs(tris [][3]int32, attach []int32) [][2]int32 {
	at := make(map[int32]int32, len(attach))
	for j, v := range attach {
		at[v] = int32(j)
	}
	seen := map[[2]int32]bool{}
	var out [][2]int32
	for _, t := range tris {
		for k := range 3 {
			a, okA := at[t[k]]
			b, okB := at[t[(k+1)%3]]
			if !okA || !okB {
				continue
			}
			if a > b {
				a, b = b, a
			}
			if !seen[[2]int32{a, b}] {
				seen[[2]int32{a, b}] = true
				out = append(out, [2]int32{a, b})
			}
		}
	}
	slices.SortFunc(out, func(p, q [2]int32) int {
		if p[0] != q[0] {
			return int(p[0] - q[0])
		}
		return int(p[1] - q[1])
	})
	return out
}

// keepLoop applies the pushes to a loop of attachment targets (x the
// rigidly moved loop, rest its rest positions, pairs the edges between
// them, see loopPairs) and then shortens every such edge the pushes
// stretched beyond strain lim by moving its two ends towards each other
// along it (Gauss–Seidel sweeps, Provot style): along the edge, so the
// targets stay clear of the skin. (The pushes alone stretched a 12 mm edge
// of the MakeHuman jeans' waistband by 14 %, held there by the hard pins;
// halving the pushes instead left a pin 1.5 mm off the skin beside a
// neighbour pushed to 3.4 mm, stretching their 1.3 mm edge by 45 %.)
func keepLoop(x, push, rest []geom.Vec3, pairs [][2]int32, lim float64) {
	for j := range x {
		x[j] = x[j].Add(push[j])
	}
	if !(lim > 0) {
		return
	}
	for sweep := 0; sweep < 50; sweep++ {
		worst := 0.0
		for _, pr := range pairs {
			j, k := pr[0], pr[1]
			L := rest[j].Dist(rest[k])
			d := x[k].Sub(x[j])
			l := d.Len()
			if l <= (1+lim)*L || l == 0 {
				continue
			}
			worst = max(worst, l/L-1)
			ex := (l - (1+0.95*lim)*L) / 2
			x[j] = x[j].AddScaled(ex/l, d)
			x[k] = x[k].AddScaled(-ex/l, d)
		}
		if worst == 0 {
			return
		}
	}
}

// surfBind ties a point to a body triangle: barycentric coordinates of its
// closest point and its offset in the triangle's frame (u along the first
// edge, n the normal, w = n × u).
type surfBind struct {
	tri   int32
	bary  [3]float64
	local geom.Vec3
}

func triFrame(c [3]geom.Vec3) (u, n, w geom.Vec3) {
	u = c[1].Sub(c[0]).Unit()
	n = geom.TriangleNormal(c[0], c[1], c[2]).Unit()
	return u, n, n.Cross(u)
}

// bindSurface binds p to its closest point on body, whose vertices are at
// bodyX (the body's current position).
func bindSurface(body *collide.Body, bodyX []geom.Vec3, tris [][3]int32, p geom.Vec3) surfBind {
	con := body.SignedDistance(p)
	if con.Tri < 0 {
		return surfBind{tri: -1, local: p}
	}
	t := tris[con.Tri]
	u, n, w := triFrame([3]geom.Vec3{bodyX[t[0]], bodyX[t[1]], bodyX[t[2]]})
	d := p.Sub(con.Point)
	return surfBind{tri: con.Tri, bary: con.Bary, local: geom.Vec3{X: d.Dot(u), Y: d.Dot(n), Z: d.Dot(w)}}
}

// point returns the bound point for body vertices at bodyX.
func (b surfBind) point(bodyX []geom.Vec3, tris [][3]int32) geom.Vec3 {
	if b.tri < 0 {
		return b.local
	}
	t := tris[b.tri]
	c := [3]geom.Vec3{bodyX[t[0]], bodyX[t[1]], bodyX[t[2]]}
	u, n, w := triFrame(c)
	p := c[0].Scale(b.bary[0]).AddScaled(b.bary[1], c[1]).AddScaled(b.bary[2], c[2])
	return p.AddScaled(b.local.X, u).AddScaled(b.local.Y, n).AddScaled(b.local.Z, w)
}
