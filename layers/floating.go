package layers

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// spring joins simulation vertices i and j.
type spring struct {
	i, j int32
	rest float64
	k    float64
}

// floatLayer is the floating cloth (§3.3): a mass-spring system stepped by
// implicit Euler (Eqs. 6–10) with a matrix-free conjugate gradient solve.
type floatLayer struct {
	idx    []int32 // outfit vertex of each simulation vertex
	pinned []bool  // held at its target
	pinK   []float64
	m      []float64
	x, v   []geom.Vec3
	x0     []geom.Vec3 // positions at the substep start
	target []geom.Vec3 // skinned positions at the substep end
	tvel   []geom.Vec3 // their velocities

	stretch []spring // implicit
	bend    []spring // explicit
	kd      float64  // stretch damping (N·s/m)
	limit   float64  // strain limit, ≤ 0 for none
	cgIters int
	grav    geom.Vec3
	air     float64 // 1/s
	thick   float64
	fric    float64

	caps []capsuleState

	// skin half-spaces: vertices on the skin in the rest pose stay on the
	// outside of the tangent plane of their bound skin point (skinOff is
	// clearance − rest normal offset, NaN for vertices without one)
	skinOff []float64
	nrm     []geom.Vec3
	// clr is each vertex's clearance (m): the thickness plus the sag of
	// its faces over the skin (clearance.go), kept from the capsules
	clr []float64

	// per-step scratch
	blk                  [][6]float64 // h²K + hD per stretch spring (symmetric 3x3)
	dinv                 [][6]float64 // inverse diagonal blocks
	f, b, r, z, p, q, dv []geom.Vec3

	// statistics of the last step
	iters, contacts int
}

func sym(a [6]float64, v geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		X: a[0]*v.X + a[1]*v.Y + a[2]*v.Z,
		Y: a[1]*v.X + a[3]*v.Y + a[4]*v.Z,
		Z: a[2]*v.X + a[4]*v.Y + a[5]*v.Z,
	}
}

// inv3 inverts a symmetric positive definite 3x3 (upper triangle
// 00 01 02 11 12 22).
func inv3(a [6]float64) [6]float64 {
	c00 := a[3]*a[5] - a[4]*a[4]
	c01 := a[2]*a[4] - a[1]*a[5]
	c02 := a[1]*a[4] - a[2]*a[3]
	det := a[0]*c00 + a[1]*c01 + a[2]*c02
	if det == 0 {
		return [6]float64{}
	}
	id := 1 / det
	return [6]float64{c00 * id, c01 * id, c02 * id,
		(a[0]*a[5] - a[2]*a[2]) * id, (a[1]*a[2] - a[0]*a[4]) * id, (a[0]*a[3] - a[1]*a[1]) * id}
}

// newFloatLayer builds the simulation over the vertices with Float > 0 and
// the pinned ring, with masses from the outfit's triangle areas.
func newFloatLayer(m *mesh.Mesh, top *mesh.Topology, c *Classification, caps []Capsule, normals []geom.Vec3, localY, clr []float64, opt Options) *floatLayer {
	n := len(m.Verts)
	local := make([]int32, n)
	fl := &floatLayer{kd: 0.01 * opt.Stretch, limit: opt.StrainLimit, cgIters: opt.CGIters, grav: opt.Gravity,
		air: 0.5, thick: opt.Thickness, fric: opt.Friction}
	for v := range n {
		local[v] = -1
		if c.Float[v] > 0 || c.Pinned[v] {
			local[v] = int32(len(fl.idx))
			fl.idx = append(fl.idx, int32(v))
			fl.pinned = append(fl.pinned, c.Pinned[v])
			k := 0.0
			if f := float64(c.Float[v]); f < 1 && !c.Pinned[v] {
				k = opt.Stretch * 4 * (1 - f) * (1 - f) // to the skinned position
			}
			fl.pinK = append(fl.pinK, k)
		}
	}
	k := len(fl.idx)
	if k == 0 {
		return fl
	}
	fl.m = make([]float64, k)
	for _, t := range m.Tris {
		a := geom.TriangleArea(m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]) * opt.Density / 3
		for _, v := range t {
			if l := local[v]; l >= 0 {
				fl.m[l] += a
			}
		}
	}
	for i := range fl.m {
		fl.m[i] = max(fl.m[i], 1e-6)
	}
	h := 1 / (opt.FPS * float64(opt.Substeps))
	for _, e := range top.Edges {
		a, b := local[e[0]], local[e[1]]
		if a >= 0 && b >= 0 && !(fl.pinned[a] && fl.pinned[b]) {
			fl.stretch = append(fl.stretch, spring{a, b, m.Verts[e[0]].Dist(m.Verts[e[1]]), opt.Stretch})
		}
	}
	// bending springs across each interior edge, explicit: stiffness a
	// fraction of the stability limit m/h² of the lighter end
	for e := range top.Edges {
		s, t := top.EdgeTriStart[e], top.EdgeTriStart[e+1]
		if t-s != 2 {
			continue
		}
		o1 := oppositeVert(m.Tris[top.EdgeTris[s]], top.Edges[e])
		o2 := oppositeVert(m.Tris[top.EdgeTris[s+1]], top.Edges[e])
		a, b := local[o1], local[o2]
		if a < 0 || b < 0 || (fl.pinned[a] && fl.pinned[b]) {
			continue
		}
		kb := opt.Bend * min(fl.m[a], fl.m[b]) / (h * h) / 4
		fl.bend = append(fl.bend, spring{a, b, m.Verts[o1].Dist(m.Verts[o2]), kb})
	}
	fl.x, fl.v, fl.x0 = make([]geom.Vec3, k), make([]geom.Vec3, k), make([]geom.Vec3, k)
	fl.target, fl.tvel = make([]geom.Vec3, k), make([]geom.Vec3, k)
	fl.f, fl.b, fl.r, fl.z = make([]geom.Vec3, k), make([]geom.Vec3, k), make([]geom.Vec3, k), make([]geom.Vec3, k)
	fl.p, fl.q, fl.dv = make([]geom.Vec3, k), make([]geom.Vec3, k), make([]geom.Vec3, k)
	fl.blk, fl.dinv = make([][6]float64, len(fl.stretch)), make([][6]float64, k)
	fl.skinOff, fl.nrm, fl.clr = make([]float64, k), make([]geom.Vec3, k), make([]float64, k)
	for i, v := range fl.idx {
		fl.x[i] = m.Verts[v]
		fl.skinOff[i] = math.NaN()
		if c.Dist[v] < skinContact && !math.IsNaN(localY[v]) {
			fl.skinOff[i] = clr[v] - localY[v]
		}
		fl.clr[i] = clr[v]
	}
	fl.candidates(caps, m, normals, opt.CandidateReach)
	return fl
}

func oppositeVert(t [3]int32, e [2]int32) int32 {
	for _, v := range t {
		if v != e[0] && v != e[1] {
			return v
		}
	}
	return t[0]
}

// candidates precomputes each capsule's list of possibly colliding
// vertices (§3.3): free simulation vertices within reach of it in the
// rest pose whose normal does not face into it (cloth facing the capsule
// from its far side can only reach it through other cloth).
func (fl *floatLayer) candidates(caps []Capsule, m *mesh.Mesh, normals []geom.Vec3, reach float64) {
	// the capsule each vertex is nearest to in the rest pose
	nearest := make([]int, len(fl.idx))
	for i, v := range fl.idx {
		best := math.Inf(1)
		for k, c := range caps {
			if d := c.Dist(m.Verts[v]); d < best {
				best, nearest[i] = d, k
			}
		}
	}
	for k, c := range caps {
		cs := capsuleState{Capsule: c}
		for i, v := range fl.idx {
			// vertices on the skin are held out of their own limb by their
			// skin half-space (collideSkin), which fits it better
			if fl.pinned[i] || (!math.IsNaN(fl.skinOff[i]) && nearest[i] == k) {
				continue
			}
			p := m.Verts[v]
			q, r, _ := capsuleNearest(c.A, c.B, c.RA, c.RB, p)
			d := p.Dist(q) - r
			if d > reach {
				continue
			}
			if u := p.Sub(q); d > 0.03 && normals[v].Dot(u) < -0.5*u.Len() {
				continue
			}
			cs.cand = append(cs.cand, int32(i))
		}
		fl.shrink(&cs, m)
		fl.caps = append(fl.caps, cs)
	}
}

// shrink narrows a capsule until its candidates are outside it by the
// thickness in the rest pose: the garment's rest shape is the contact it
// already makes with the leg, and a capsule fitted to the skin overlaps it
// where the skin is not round (the hips, the inner thighs). Each end's
// radius is lowered by the candidates on its half of the axis (twice, as
// they constrain each other), to at least 1 cm.
func (fl *floatLayer) shrink(cs *capsuleState, m *mesh.Mesh) {
	for range 2 {
		for _, i := range cs.cand {
			p := m.Verts[fl.idx[i]]
			q, r, t := capsuleNearest(cs.A, cs.B, cs.RA, cs.RB, p)
			room := p.Dist(q) - fl.thick
			if r <= room {
				continue
			}
			if t < 0.5 {
				cs.RA = max(0.01, (room-cs.RB*t)/(1-t))
			} else {
				cs.RB = max(0.01, (room-cs.RA*(1-t))/t)
			}
		}
	}
}

// setTargets moves the pinned vertices' targets to the outfit's skinned
// positions interpolated at fraction s between prev and cur, with the
// velocities of that interpolation (frame length dt).
func (fl *floatLayer) setTargets(prev, cur, nrm []geom.Vec3, s, dt float64) {
	for i, v := range fl.idx {
		fl.nrm[i] = nrm[v]
		fl.target[i] = prev[v].Lerp(cur[v], s)
		fl.tvel[i] = cur[v].Sub(prev[v]).Scale(1 / dt)
	}
}

// step advances the cloth by h: implicit Euler (Eqs. 6–10), strain
// limiting, capsule collisions.
func (fl *floatLayer) step(h float64) {
	k := len(fl.idx)
	if k == 0 {
		return
	}
	x, v := fl.x, fl.v
	for i := range k {
		if fl.pinned[i] {
			x[i], v[i] = fl.target[i], fl.tvel[i]
		}
		fl.x0[i] = x[i]
	}
	fl.forces(h)
	fl.solve(h)
	for i := range k {
		if !fl.pinned[i] {
			v[i] = v[i].Add(fl.dv[i])
			x[i] = x[i].AddScaled(h, v[i])
		}
	}
	if fl.limit > 0 {
		fl.limitStrain(6)
		for i := range k {
			if !fl.pinned[i] {
				v[i] = x[i].Sub(fl.x0[i]).Scale(1 / h)
			}
		}
	}
	fl.collide()
	fl.collideSkin()
}

// forces fills f (gravity, air drag, springs, pin springs), the right-hand
// side b = h(f + h ∂f/∂x v) and the per-spring blocks h²K + hD.
func (fl *floatLayer) forces(h float64) {
	x, v, f, b := fl.x, fl.v, fl.f, fl.b
	for i := range f {
		f[i] = fl.grav.Sub(v[i].Scale(fl.air)).Scale(fl.m[i])
		b[i] = geom.Vec3{}
		fl.dinv[i] = [6]float64{fl.m[i], 0, 0, fl.m[i], 0, fl.m[i]}
		if kp := fl.pinK[i]; kp > 0 {
			kdp := 0.01 * kp
			f[i] = f[i].Sub(x[i].Sub(fl.target[i]).Scale(kp)).Sub(v[i].Sub(fl.tvel[i]).Scale(kdp))
			b[i] = v[i].Scale(-h * kp) // h·∂f/∂x·v
			d := h*h*kp + h*kdp
			fl.dinv[i][0] += d
			fl.dinv[i][3] += d
			fl.dinv[i][5] += d
		}
	}
	for s := range fl.bend {
		sp := &fl.bend[s]
		d := x[sp.j].Sub(x[sp.i])
		l := d.Len()
		if l < 1e-12 {
			continue
		}
		fs := d.Scale(sp.k * (l - sp.rest) / l)
		f[sp.i] = f[sp.i].Add(fs)
		f[sp.j] = f[sp.j].Sub(fs)
	}
	for s := range fl.stretch {
		sp := &fl.stretch[s]
		d := x[sp.j].Sub(x[sp.i])
		l := d.Len()
		if l < 1e-12 {
			fl.blk[s] = [6]float64{}
			continue
		}
		u := d.Scale(1 / l)
		dv := v[sp.j].Sub(v[sp.i])
		fs := u.Scale(sp.k*(l-sp.rest) + fl.kd*dv.Dot(u))
		f[sp.i] = f[sp.i].Add(fs)
		f[sp.j] = f[sp.j].Sub(fs)
		// K = k(uuᵀ + max(0, 1 − L/l)(I − uuᵀ)), projected positive
		c := max(0, 1-sp.rest/l)
		a := h * h * sp.k
		o := a*(1-c) + h*fl.kd // coefficient of uuᵀ
		bk := [6]float64{o*u.X*u.X + a*c, o * u.X * u.Y, o * u.X * u.Z, o*u.Y*u.Y + a*c, o * u.Y * u.Z, o*u.Z*u.Z + a*c}
		fl.blk[s] = bk
		// h·(∂f/∂x v)_i = h·K(v_j − v_i): K part only (a/h² scaled by h)
		kv := symK(sp.k, c, u, dv).Scale(h)
		b[sp.i] = b[sp.i].Add(kv)
		b[sp.j] = b[sp.j].Sub(kv)
		for _, e := range [2]int32{sp.i, sp.j} {
			for t := range 6 {
				fl.dinv[e][t] += bk[t]
			}
		}
	}
	for i := range f {
		b[i] = b[i].Add(f[i]).Scale(h)
		fl.dinv[i] = inv3(fl.dinv[i])
	}
}

// symK returns k(uuᵀ + c(I − uuᵀ))·w.
func symK(k, c float64, u, w geom.Vec3) geom.Vec3 {
	a := u.Dot(w)
	return w.Scale(k*c).AddScaled(k*(1-c)*a, u)
}

// mul sets q = A·p with A = M + Σ blocks (+ pin diagonal), pinned rows
// filtered out (Baraff–Witkin S = 0).
func (fl *floatLayer) mul(p, q []geom.Vec3, h float64) {
	for i := range q {
		q[i] = p[i].Scale(fl.m[i])
		if kp := fl.pinK[i]; kp > 0 {
			q[i] = q[i].AddScaled(h*h*kp+h*0.01*kp, p[i])
		}
	}
	for s := range fl.stretch {
		sp := &fl.stretch[s]
		w := sym(fl.blk[s], p[sp.i].Sub(p[sp.j]))
		q[sp.i] = q[sp.i].Add(w)
		q[sp.j] = q[sp.j].Sub(w)
	}
	for i := range q {
		if fl.pinned[i] {
			q[i] = geom.Vec3{}
		}
	}
}

// solve runs preconditioned conjugate gradients for A·dv = b from dv = 0,
// at most cgIters iterations or to a relative residual of 1e-3.
func (fl *floatLayer) solve(h float64) {
	r, z, p, q, dv := fl.r, fl.z, fl.p, fl.q, fl.dv
	var rz, r0 float64
	for i := range r {
		dv[i] = geom.Vec3{}
		r[i] = fl.b[i]
		if fl.pinned[i] {
			r[i] = geom.Vec3{}
		}
		z[i] = sym(fl.dinv[i], r[i])
		p[i] = z[i]
		rz += r[i].Dot(z[i])
	}
	r0 = rz
	fl.iters = 0
	for it := 0; it < fl.cgIters && rz > 1e-6*r0 && rz > 0; it++ {
		fl.mul(p, q, h)
		pq := 0.0
		for i := range p {
			pq += p[i].Dot(q[i])
		}
		if !(pq > 0) {
			break
		}
		alpha := rz / pq
		nrz := 0.0
		for i := range r {
			dv[i] = dv[i].AddScaled(alpha, p[i])
			r[i] = r[i].AddScaled(-alpha, q[i])
			z[i] = sym(fl.dinv[i], r[i])
			nrz += r[i].Dot(z[i])
		}
		beta := nrz / rz
		rz = nrz
		for i := range p {
			p[i] = z[i].AddScaled(beta, p[i])
		}
		fl.iters++
	}
}

// limitStrain moves the ends of edges stretched beyond the limit towards
// each other (Provot 1995), pinned ends staying put.
func (fl *floatLayer) limitStrain(passes int) {
	x := fl.x
	for range passes {
		for s := range fl.stretch {
			sp := &fl.stretch[s]
			d := x[sp.j].Sub(x[sp.i])
			l := d.Len()
			lmax := sp.rest * (1 + fl.limit)
			if l <= lmax || l < 1e-12 {
				continue
			}
			corr := d.Scale((l - lmax) / l)
			pi, pj := fl.pinned[sp.i], fl.pinned[sp.j]
			switch {
			case pi && pj:
			case pi:
				x[sp.j] = x[sp.j].Sub(corr)
			case pj:
				x[sp.i] = x[sp.i].Add(corr)
			default:
				x[sp.i] = x[sp.i].AddScaled(0.5, corr)
				x[sp.j] = x[sp.j].AddScaled(-0.5, corr)
			}
		}
	}
}

// skinContact (m) is the largest rest distance to the skin at which a
// floating vertex is kept outside its bound skin point's tangent plane.
const skinContact = 0.06

// collideSkin keeps the vertices that touch the skin in the rest pose
// outside the tangent plane of their bound skin point (a cheap local
// collision with the limb they lie on, which capsules fit only roughly).
func (fl *floatLayer) collideSkin() {
	for i, off := range fl.skinOff {
		if math.IsNaN(off) || fl.pinned[i] {
			continue
		}
		n := fl.nrm[i]
		s := fl.x[i].Sub(fl.target[i]).Dot(n) - off
		if s >= 0 {
			continue
		}
		fl.contacts++
		fl.x[i] = fl.x[i].AddScaled(-s, n)
		if vn := fl.v[i].Sub(fl.tvel[i]).Dot(n); vn < 0 {
			fl.v[i] = fl.v[i].AddScaled(-vn, n)
		}
	}
}

// collide pushes candidate vertices out of the posed capsules and removes
// their velocity into them, less friction (§3.3's kinematic correction).
func (fl *floatLayer) collide() {
	fl.contacts = 0
	for c := range fl.caps {
		cs := &fl.caps[c]
		for _, i := range cs.cand {
			p := fl.x[i]
			q, r, t := capsuleNearest(cs.a, cs.b, cs.RA, cs.RB, p)
			off := p.Sub(q)
			d := off.Len()
			rr := r + fl.clr[i]
			if d >= rr {
				continue
			}
			fl.contacts++
			n := off.Scale(1 / max(d, 1e-12))
			if d < 1e-12 {
				n = geom.V(0, 0, 1)
			}
			fl.x[i] = q.AddScaled(rr, n)
			vc := cs.va.Lerp(cs.vb, t)
			rel := fl.v[i].Sub(vc)
			if vn := rel.Dot(n); vn < 0 {
				rel = rel.AddScaled(-vn, n)
				tan := rel.Len()
				rel = rel.Scale(max(0, 1-fl.fric*math.Min(1, -vn/max(tan, 1e-12))))
				fl.v[i] = vc.Add(rel)
			}
		}
	}
}
