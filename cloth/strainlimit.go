package cloth

import (
	"math"
	mbits "math/bits"

	"github.com/pleat-dev/pleat/geom"
)

// strainLimitSweeps caps the Gauss–Seidel sweeps of limitStrain per call.
// After the first sweep only the edges at vertices moved in the sweep
// before are visited, a few hundred on a 25k-vertex garment, so the cap
// costs little; 200 stopped chains of edges wrapped around a limb at
// 10–13 % (Gauss–Seidel propagates a correction one edge per sweep) in 24
// of 86 frames of the 25k MakeHuman walk, 1000 in none. The jersey jeans
// at 25k (1–2 mm edges at the thighs) hit 1000 in four substeps of that
// walk and kept edges at up to 19 % (79 edge-frames above 10 %); 5000 in
// none (none above 10 %).
const strainLimitSweeps = 5000

// relaxAfter is the number of plain sweeps before limitStrain applies
// Options.StrainLimitRelax. Over-relaxing from the first sweep shortens
// edges past the aim where a few plain sweeps would have met the limit,
// and the springs then pull them back: light database samples (an elbow
// or knee bent 45–75°) took 15–50 % more CPU and more frames to come to
// rest. In a 25k-vertex settle two thirds of the calls converge within 50
// plain sweeps; the rest run hundreds to thousands.
const relaxAfter = 50

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
// slide along the contact plane, move away from the surface, and move into
// it by at most Options.ContactSlack (see allowMove). The ends' relative
// velocity along the edge, when they separate, is removed as in an
// inelastic collision (Provot's velocity correction would add Δx/h, which
// grows without bound as a retried substep is halved: a limit that cannot
// be met, between two contacts, then launches vertices).
//
// The moves are not bounded otherwise. The free vertices' moves once were
// (to twice their shortest rest edge per call) and the constrained ones'
// (to one), which left single edges turned by the linear solve at 30–70 %
// on the 25k MakeHuman suit; with the slack, removing the bounds took the
// edge-frames above 10 % to none on five scenes (MakeHuman suits at 25k
// and unrefined, walk and kick, the procedural demo) at a similar
// penetration (the deepest vertex went from 14 to 8 mm on the 25k walk).
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
	// Over-relaxation starts only after relaxAfter plain sweeps: most
	// calls converge within them and keep plain Gauss–Seidel's result.
	omega := 1.0
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
		if omega > 1 {
			excess = min(omega*excess, l-L)
		}
		da := c.allowMove(a, u.Scale(excess*wa/(wa+wb)))
		db := c.allowMove(b, u.Scale(-excess*wb/(wa+wb)))
		x[a], x[b] = x[a].Add(da), x[b].Add(db)
		// Remove the separating relative velocity along the edge (an
		// inelastic collision of the two ends), as far as the ends'
		// constraints let the impulse act: P_a and P_b filter the impulse
		// on each end (+u on a, −u on b), and only the relative velocity
		// they can change, vr' = (P_b v_b − P_a v_a)·u, is removed. Each
		// correction then loses kinetic energy. (Removing vr of the full
		// velocities with filtered impulses does not: where a contact
		// prescribes a vertex's normal velocity, the impulse pumped its
		// tangential velocity sweep after sweep, to 1e12 m/s on the 25k
		// jersey suit.)
		if vr := v[b].Sub(v[a]).Dot(u); vr > 0 {
			vr = min(vr, w.allowVelFor(b, u.Neg(), v[b]).Sub(w.allowVelFor(a, u, v[a])).Dot(u))
			if vr > 0 {
				v[a] = v[a].Add(w.allowVel(a, u.Scale(vr*wa/(wa+wb))))
				v[b] = v[b].Add(w.allowVel(b, u.Scale(-vr*wb/(wa+wb))))
			}
		}
		return true
	}
	// The first sweep visits every edge; later ones only the edges at the
	// vertices moved in the sweep before (an active set, in edge order: a
	// bitset over the edges, scanned between its lowest and highest word,
	// which visits them in index order without sorting).
	if len(c.slBits) != (len(edges)+63)/64 {
		c.slBits = make([]uint64, (len(edges)+63)/64)
	}
	bits := c.slBits
	moved := c.slMoved[:0]
	for k := range edges {
		if process(int32(k)) {
			moved = append(moved, edges[k][0], edges[k][1])
		}
	}
	sweeps := 1
	// Stop early when the total excess strain has not dropped by 1 % over
	// a hundred sweeps: the limit conflicts with the constraints there.
	// Over ten sweeps it also stopped slow but steady progress (a long
	// stretched strip converges in O(length²) sweeps): the MakeHuman jeans
	// at 50k vertices (1.5 mm edges at the thigh) kept edges at up to 18 %
	// in two frames of the walk, none above 10 % with a hundred
	// (TestStrainLimitSlowChain). The window restarts when over-relaxation
	// starts: overshooting edges activate their neighbours, so the first
	// relaxed sweeps' excess is not comparable with the plain ones'.
	var hist [100]float64
	from := 0
	for worst > tol && sweeps < strainLimitSweeps && len(moved) > 0 {
		if sweeps-from > len(hist) && total > 0.99*hist[sweeps%len(hist)] {
			break
		}
		hist[sweeps%len(hist)] = total
		sweeps++
		if sweeps == relaxAfter+1 && c.opts.StrainLimitRelax > 1 {
			omega, from = c.opts.StrainLimitRelax, sweeps
		}
		lo, hi := len(bits), -1
		for _, vtx := range moved {
			for _, k := range c.ve[c.veStart[vtx]:c.veStart[vtx+1]] {
				wd := int(k >> 6)
				bits[wd] |= 1 << (k & 63)
				lo, hi = min(lo, wd), max(hi, wd)
			}
		}
		worst, total = 0, 0
		moved = moved[:0]
		for wd := lo; wd <= hi; wd++ {
			for b := bits[wd]; b != 0; b &= b - 1 {
				k := int32(wd<<6 + mbits.TrailingZeros64(b))
				if process(k) {
					moved = append(moved, edges[k][0], edges[k][1])
				}
			}
			bits[wd] = 0
		}
	}
	c.slMoved = moved
	return sweeps
}

// allowMove restricts a strain-limiting move d of vertex i to what its
// constraint of the substep allows (see limitStrain): along a contact
// plane's normal outwards, and inwards only within Options.ContactSlack of
// where limitStrain found the vertex.
func (c *Cloth) allowMove(i int32, d geom.Vec3) geom.Vec3 {
	w := &c.work
	slack := c.opts.ContactSlack
	if slack > 0 && ConstraintKind(w.kind[i]) == Plane {
		n := w.dir[i]
		dn := n.Dot(d)
		// The vertex's normal offset after the move may not go below
		// −slack (nor below where it already is).
		lo := math.Min(0, -slack-n.Dot(c.X[i].Sub(w.xs[i])))
		if dn < lo {
			return d.Sub(n.Scale(dn - lo))
		}
		return d
	}
	return w.allowVel(i, d)
}

// allowVel restricts a velocity change d of vertex i to what its
// constraint of the substep allows: along a contact plane's normal only
// outwards.
func (w *work) allowVel(i int32, d geom.Vec3) geom.Vec3 {
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

// allowVelFor applies to y the filter that allowVel applies to a change of
// vertex i's velocity along dir (for a contact plane: the projection onto
// the plane when dir points into it, else none). It is the orthogonal
// projection P_i of that change, so y·allowVel(i, d) = allowVelFor(i, d, y)·d.
func (w *work) allowVelFor(i int32, dir, y geom.Vec3) geom.Vec3 {
	switch ConstraintKind(w.kind[i]) {
	case Free:
		return y
	case Plane:
		n := w.dir[i]
		if n.Dot(dir) < 0 {
			return y.Sub(n.Scale(n.Dot(y)))
		}
		return y
	}
	return w.filter1(i, y)
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

// LimitStrain moves the current positions so that no edge is stretched
// beyond Options.StrainLimit, as every substep does after its solve,
// holding hard attachments (Stiffness 0) and pinned vertices in place. It
// is for a state set from outside before the first Step (a garment skinned
// into a pose, whose skinning weights may tear it where they change fast).
// It returns the largest edge strain left (see MaxEdgeStrain); with no
// StrainLimit it only measures.
func (c *Cloth) LimitStrain() float64 {
	w := &c.work
	w.resetSubstep()
	for _, a := range c.att {
		if a.Stiffness == 0 {
			w.constrain(int32(a.Vertex), Fixed, geom.Vec3{}, geom.Vec3{}, true)
		}
	}
	c.limitStrain()
	w.resetSubstep()
	_, s := c.MaxEdgeStrain()
	return s
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
