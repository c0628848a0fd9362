package cloth

import (
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
)

// freeBudget and conBudget multiply the per-call move budget (half the
// shortest rest edge) of unconstrained and constrained vertices (see
// limitStrain).
const (
	freeBudget = 4
	conBudget  = 2
)

// strainLimitSweeps caps the Gauss–Seidel sweeps of limitStrain per call.
const strainLimitSweeps = 200

// limitStrain is the deformation constraint of Provot 1995 ("Deformation
// constraints in a mass-spring model to describe rigid cloth behavior",
// cited by wang2010 §2), as used by Bridson, Fedkiw and Anderson 2002 §8 for
// strain limiting: every edge longer than (1+StrainLimit) times its rest
// length is shortened (to 1 + 0.95·StrainLimit times it) by moving its two
// ends towards each other in proportion to their inverse masses, in
// Gauss–Seidel sweeps over the edges in index order (deterministic) until
// no edge exceeds the limit or strainLimitSweeps is reached. A vertex's move
// respects its constraints of the substep (the Baraff–Witkin filter S_i):
// pinned and attached vertices do not move, and a vertex in contact may
// slide along the contact plane and move away from the surface but not
// into it. The ends' relative velocity along the edge, when they separate,
// is removed as in an inelastic collision (Provot's velocity correction
// would add Δx/h, which grows without bound as a retried substep is halved:
// a limit that cannot be met, between two contacts, then launches vertices).
//
// A constrained vertex moves at most its shortest rest edge in one call
// (conBudget): where the limit conflicts with the contacts (an edge almost
// along the contact normals at its ends), the filtered moves slide a
// vertex sideways by a little each sweep, and over many sweeps, unbounded,
// that drift stretched its other edges by 100 %. An unconstrained vertex
// may move up to twice its shortest rest edge (freeBudget): the linear
// solve lets edges turn freely (a spring at its rest length has no
// stiffness across it), and on the 25k MakeHuman suit edges of 5 mm came
// out of it turned by a full edge length; with half an edge the per-frame
// maximum strain over 30 walk frames had p90 58 %, with two edges 15 %
// (unbounded: the same, and 50 % more vertex-frames inside the body).
// Raising the constrained budget from half an edge to one cut the
// edge-frames above 10 % by 17–55 % on five scenes (MakeHuman suits at 25k
// and unrefined, walk and kick, the procedural demo), penetration
// unchanged.
//
// It returns the number of sweeps done.
func (c *Cloth) limitStrain() int {
	lim := c.opts.StrainLimit
	if !(lim > 0) {
		return 0
	}
	w := &c.work
	x, v := c.X, c.V
	edges, rest := c.edges, c.edgeRest
	invm := c.invMassSL
	// Edges are shortened to 0.95 of the limit, and the sweeps stop once
	// none exceeds it: the slack makes Gauss–Seidel converge in a few
	// sweeps where exact projection crawls (a sheet hanging from two
	// corners kept edges 1 % over the limit after 200 sweeps).
	tol := 1 + lim
	aim := 1 + 0.95*lim
	copy(w.xs, x)
	if c.veStart == nil {
		c.buildVertexEdges()
	}
	worst, total := 0.0, 0.0
	// process projects edge k and reports whether it moved its ends.
	process := func(k int32) bool {
		e := edges[k]
		a, b := e[0], e[1]
		L := rest[k]
		d := x[b].Sub(x[a])
		l := d.Len()
		if !(l > aim*L) || l == 0 {
			return false
		}
		worst = math.Max(worst, l/L)
		total += l/L - aim
		wa, wb := invm[a], invm[b]
		if w.kind[a] == uint8(Fixed) {
			wa = 0
		}
		if w.kind[b] == uint8(Fixed) {
			wb = 0
		}
		if wa+wb == 0 {
			return false
		}
		u := d.Scale(1 / l)
		excess := l - aim*L
		da := w.allowMove(a, u.Scale(excess*wa/(wa+wb)))
		db := w.allowMove(b, u.Scale(-excess*wb/(wa+wb)))
		da, db = c.budget(a, da), c.budget(b, db)
		x[a], x[b] = x[a].Add(da), x[b].Add(db)
		// Remove the separating relative velocity along the edge (an
		// inelastic collision of the two ends).
		if vr := v[b].Sub(v[a]).Dot(u); vr > 0 {
			v[a] = v[a].Add(w.allowMove(a, u.Scale(vr*wa/(wa+wb))))
			v[b] = v[b].Add(w.allowMove(b, u.Scale(-vr*wb/(wa+wb))))
		}
		return true
	}
	// The first sweep visits every edge; later ones only the edges at the
	// vertices moved in the sweep before (an active set, in edge order).
	if len(c.slMark) != len(edges) {
		c.slMark = make([]bool, len(edges))
	}
	moved := c.slMoved[:0]
	for k := range edges {
		if process(int32(k)) {
			moved = append(moved, edges[k][0], edges[k][1])
		}
	}
	sweeps := 1
	// Stop early when the total excess strain has not dropped by 1 % over
	// ten sweeps: the limit conflicts with the constraints there.
	var hist [10]float64
	for worst > tol && sweeps < strainLimitSweeps && len(moved) > 0 {
		if sweeps > len(hist) && total > 0.99*hist[sweeps%len(hist)] {
			break
		}
		hist[sweeps%len(hist)] = total
		sweeps++
		act := c.slActive[:0]
		for _, vtx := range moved {
			for _, k := range c.ve[c.veStart[vtx]:c.veStart[vtx+1]] {
				if !c.slMark[k] {
					c.slMark[k] = true
					act = append(act, k)
				}
			}
		}
		slices.Sort(act)
		worst, total = 0, 0
		moved = moved[:0]
		for _, k := range act {
			c.slMark[k] = false
			if process(k) {
				moved = append(moved, edges[k][0], edges[k][1])
			}
		}
		c.slActive = act
	}
	c.slMoved = moved
	return sweeps
}

// allowMove restricts a strain-limiting move of vertex i to what its
// constraint of the substep allows (see limitStrain): along a contact
// plane's normal only outwards.
func (w *work) allowMove(i int32, d geom.Vec3) geom.Vec3 {
	switch ConstraintKind(w.kind[i]) {
	case Free:
		return d
	case Plane:
		n := w.dir[i]
		if dn := n.Dot(d); dn < 0 {
			return d.Sub(n.Scale(dn))
		}
		return d
	}
	return w.filter1(i, d)
}

// budget shortens a strain-limiting move d of vertex i so that the vertex
// stays within its shortest rest edge (twice it when unconstrained) of
// where limitStrain found it (w.xs).
func (c *Cloth) budget(i int32, d geom.Vec3) geom.Vec3 {
	w := &c.work
	p := c.X[i].Add(d).Sub(w.xs[i])
	lim := c.slBudget[i]
	if w.kind[i] == uint8(Free) {
		lim *= freeBudget
	} else {
		lim *= conBudget
	}
	if l := p.Len(); l > lim {
		// Keep the move's end on the sphere of radius lim.
		return p.Scale(lim / l).Add(w.xs[i]).Sub(c.X[i])
	}
	return d
}

// buildVertexEdges builds the vertex-to-edge adjacency (CSR over c.edges).
func (c *Cloth) buildVertexEdges() {
	n := len(c.X)
	c.veStart = make([]int32, n+1)
	for _, e := range c.edges {
		c.veStart[e[0]+1]++
		c.veStart[e[1]+1]++
	}
	for i := 0; i < n; i++ {
		c.veStart[i+1] += c.veStart[i]
	}
	c.ve = make([]int32, c.veStart[n])
	fill := append([]int32(nil), c.veStart[:n]...)
	for k, e := range c.edges {
		for _, v := range e {
			c.ve[fill[v]] = int32(k)
			fill[v]++
		}
	}
}

// MaxEdgeStrain returns the edge (index into Edges) with the largest
// elongation strain l/L − 1 and that strain.
func (c *Cloth) MaxEdgeStrain() (edge int, strain float64) {
	edge, strain = -1, math.Inf(-1)
	for k, e := range c.edges {
		if s := c.X[e[0]].Dist(c.X[e[1]])/c.edgeRest[k] - 1; s > strain {
			edge, strain = k, s
		}
	}
	return edge, strain
}
