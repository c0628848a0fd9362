package wrinkle

import (
	"fmt"
	"slices"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// Prealign is the transfer with wang2010's per-joint pre-alignment (§3.4,
// last paragraph): where two joints' regions blend (the abdomen between
// the hips, the shoulder between chest and upper arm), each joint's
// wrinkle mesh is first moved onto the coarse simulation on its own, and
// the aligned meshes are then blended, so that two wrinkle patterns that
// sit at different places are not averaged into a ghost of both.
//
// For a vertex v with influences w_J(v) from two roles or more,
//
//	x(v) = Σ_J w_J(v) (g_J(v) + T(g_J)(v)),
//
// where g_J is the synthesized fine mesh with role J's own wrinkle mesh
// (the Synthesizer's result with J's influence alone) in J's blend
// vertices, and T(g) the transfer's offsets (Transfer.Offsets, Eqs. 5–6
// smoothed). A vertex of one role J that blends elsewhere gets the same
// sum with its one term, f + T(g_J): T(g_J) differs from T(f) near J's
// blend vertices (Eq. 5 averages them into the coarse offsets around), so
// where another role's weight falls to zero the result tends to this one
// and the blend zone has no seam at its edge. Every other vertex gets the
// plain transfer f + T(f). Each
// role's mesh comes from a Synthesizer of its own over the same samples,
// restricted to that role's blend vertices, or from the main Synthesizer
// as it blends (Share), which interpolates each role once for both.
//
// T is affine in the fine mesh (Eq. 5 subtracts a weighted mean of it,
// Eq. 6 and the smoothing are linear), and g_J differs from f only at J's
// blend vertices, so
//
//	T(g_J) = T(f) − S^n A D (g_J − f),
//
// with D the down-sampling weights of Eq. 5: a role costs a sparse
// down-sampling of its vertices' differences and, at those vertices only,
// a row of S^n A, instead of a whole transfer. This equals a transfer of
// g_J up to float rounding.
//
// A Prealign allocates nothing per frame and is not safe for concurrent
// use; it shares the transfer's goroutines, and Close ends its
// synthesizers' goroutines.
type Prealign struct {
	t     *Transfer
	roles []alignRole
	// CSR of the blend vertices' roles: blend vertex bv[i] has roles
	// bRole[bStart[i]:bStart[i+1]] (ascending, the spec's order) with
	// weights bW, and g[j] is role bRole[j]'s own mesh g_J at bv[i].
	bv     []int32
	bStart []int32
	bRole  []int32
	bW     []float64
	g      []geom.Vec3
	// bIdx[u] is fine vertex u's index in bv; for a vertex of one
	// blending role k (its only influence) −2−k; else −1.
	bIdx []int32
	// dAt[v*K+k] is role k's down-sampled difference D (g_k − f) at
	// coarse vertex v (K roles): a fine vertex's roles at one coarse
	// vertex are adjacent.
	// hAt[v*K+k] = o(v) − dAt[v*K+k], o the coarse offsets of Eq. 5: role
	// k's own coarse offset (Eq. 5 for g_k).
	dAt, hAt []geom.Vec3
	// The rows of D restricted to each role's blend vertices: row r,
	// which sets dAt[dRow[r]], sums (g[dSlot[e]] − f[dFine[e]])·dW[e]
	// over e in [dStart[r], dStart[r+1]), fine vertices ascending.
	dRow, dStart, dSlot, dFine []int32
	dW                         []float64
	shared                     bool
	db                         *DB // for the per-role synthesizers, until made
	rig                        *Rig

	// The running frame's slices and chunk functions (see Transfer).
	fine, dst      []geom.Vec3
	roleFn, fuseFn func(lo, hi int)
}

type alignRole struct {
	role  Role
	synth *Synthesizer
	verts []int32 // the role's blend vertices, ascending
	slot  []int32 // slot[i]: the index in Prealign.g of the role at verts[i]
	x     []geom.Vec3
}

// NewPrealign prepares pre-alignment for db's garment with transfer t
// (built on db's fine mesh). Unless it shares the main Synthesizer
// (Share), its first Synthesize makes one more Synthesizer per role that
// blends with another, each storing its blend vertices' samples.
func NewPrealign(db *DB, rig *Rig, t *Transfer) (*Prealign, error) {
	n := len(db.Rest)
	if t.NumFine() != n {
		return nil, fmt.Errorf("wrinkle: prealign: transfer for %d fine vertices, database garment %d", t.NumFine(), n)
	}
	if db.Header.Shards != 1 {
		return nil, fmt.Errorf("wrinkle: prealign: database is shard %d of %d: merge the shards first", db.Header.Shard, db.Header.Shards)
	}
	if err := db.CheckRig(rig); err != nil {
		return nil, fmt.Errorf("wrinkle: prealign: %w", err)
	}
	a := &Prealign{t: t, bIdx: make([]int32, n)}
	// The blending roles in the spec's order, which is the Synthesizer's
	// order of a vertex's influences (Share writes g in it).
	byRole := map[Role]int{}
	for v := 0; v < n; v++ {
		if rs, _ := db.Regions.Influences(v); len(rs) >= 2 {
			for _, r := range rs {
				byRole[r] = -1
			}
		}
	}
	for i := 0; i < db.Spec.NumJoints(); i++ {
		r := db.Spec.JointSpec(i).Role
		if _, ok := byRole[r]; ok {
			byRole[r] = len(a.roles)
			a.roles = append(a.roles, alignRole{role: r})
		}
	}
	type rw struct {
		k int32
		w float64
	}
	var row []rw
	a.bStart = []int32{0}
	for v := 0; v < n; v++ {
		a.bIdx[v] = -1
		rs, ws := db.Regions.Influences(v)
		if len(rs) == 1 {
			if k, ok := byRole[rs[0]]; ok {
				a.bIdx[v] = int32(-2 - k)
			}
		}
		if len(rs) < 2 {
			continue
		}
		row = row[:0]
		for i, r := range rs {
			k := byRole[r]
			if k < 0 {
				return nil, fmt.Errorf("wrinkle: prealign: vertex %d is influenced by %s, which the spec does not sample", v, r)
			}
			row = append(row, rw{int32(k), float64(ws[i])})
		}
		slices.SortFunc(row, func(x, y rw) int { return int(x.k - y.k) })
		a.bIdx[v] = int32(len(a.bv))
		a.bv = append(a.bv, int32(v))
		for _, e := range row {
			ar := &a.roles[e.k]
			ar.verts = append(ar.verts, int32(v))
			ar.slot = append(ar.slot, int32(len(a.bRole)))
			a.bRole, a.bW = append(a.bRole, e.k), append(a.bW, e.w)
		}
		a.bStart = append(a.bStart, int32(len(a.bRole)))
	}
	a.g = make([]geom.Vec3, len(a.bRole))
	a.dAt = make([]geom.Vec3, len(a.roles)*t.nc)
	a.hAt = make([]geom.Vec3, len(a.roles)*t.nc)
	a.downRows()
	a.roleFn, a.fuseFn = a.roleChunk, a.fuseChunk
	a.db, a.rig = db, rig
	return a, nil
}

// ownSynths makes the per-role synthesizers (Synthesize's first call
// without Share): each decodes its role's samples at its blend vertices.
func (a *Prealign) ownSynths() error {
	db, n := a.db, len(a.bIdx)
	for k := range a.roles {
		ar := &a.roles[k]
		reg := &Regions{Region: db.Regions.Region, Offsets: make([]int32, n+1)}
		i := 0
		for v := 0; v < n; v++ {
			if i < len(ar.verts) && ar.verts[i] == int32(v) {
				reg.Roles = append(reg.Roles, ar.role)
				reg.W = append(reg.W, 1)
				i++
			}
			reg.Offsets[v+1] = int32(len(reg.Roles))
		}
		one := *db
		one.Regions = reg
		// One goroutine each: they run one after the other, beside the
		// main synthesis and the coarse simulation, at the role's blend
		// vertices only (Apply reads nothing else of ar.x).
		s, err := NewSynthesizer(&one, a.rig, SynthOptions{Workers: 1, Verts: ar.verts})
		if err != nil {
			for j := range a.roles {
				if a.roles[j].synth != nil {
					a.roles[j].synth.Close()
					a.roles[j].synth, a.roles[j].x = nil, nil
				}
			}
			return fmt.Errorf("wrinkle: prealign: %s: %w", ar.role, err)
		}
		ar.synth, ar.x = s, make([]geom.Vec3, n)
	}
	return nil
}

// Share makes s, a Synthesizer of the same database over all its
// vertices, write the blending roles' own meshes as it synthesizes the
// blended one: each blend vertex's roles are interpolated once, for both.
// Prealign's own synthesizers are closed; Synthesize then does nothing,
// and Apply uses the meshes of s's last Synthesize. The meshes are those
// Synthesize would make, bit for bit. It returns an error, changing
// nothing, if s's vertices or their roles are not the database's.
func (a *Prealign) Share(s *Synthesizer) error {
	n := len(a.bIdx)
	if s.NumVerts() != n || s.verts != nil {
		return fmt.Errorf("wrinkle: prealign: synthesizer of %d vertices (subset %v), want all %d", s.NumVerts(), s.verts != nil, n)
	}
	idx := make([]int, len(a.roles)) // alignRole → s.roles index
	for k, ar := range a.roles {
		idx[k] = -1
		for i := range s.roles {
			if s.roles[i].role == ar.role {
				idx[k] = i
			}
		}
		if idx[k] < 0 {
			return fmt.Errorf("wrinkle: prealign: the synthesizer does not sample %s", ar.role)
		}
	}
	// s writes a vertex's roles into g in the order of its influences:
	// they must be the blend row's, one for one.
	for i, v := range a.bv {
		ins := s.infl[s.inflOff[v]:s.inflOff[v+1]]
		want := a.bRole[a.bStart[i]:a.bStart[i+1]]
		if len(ins) != len(want) {
			return fmt.Errorf("wrinkle: prealign: vertex %d has %d roles in the synthesizer, %d in the database", v, len(ins), len(want))
		}
		for j, k := range want {
			if int(ins[j].role) != idx[k] {
				return fmt.Errorf("wrinkle: prealign: vertex %d: the synthesizer lacks role %s or orders it otherwise", v, a.roles[k].role)
			}
		}
	}
	for i := 0; i < n; i++ {
		if s.inflOff[i+1]-s.inflOff[i] >= 2 && a.bIdx[i] < 0 {
			return fmt.Errorf("wrinkle: prealign: vertex %d blends roles in the synthesizer, not in the database", i)
		}
	}
	s.blendG, s.blendAt = a.g, make([]int32, n)
	for v := range s.blendAt {
		s.blendAt[v] = -1
		if i := a.bIdx[v]; i >= 0 {
			s.blendAt[v] = a.bStart[i]
		}
	}
	for k := range a.roles {
		ar := &a.roles[k]
		if ar.synth != nil {
			ar.synth.Close()
			ar.synth = nil
		}
		ar.x = nil
	}
	a.shared, a.db, a.rig = true, nil, nil
	return nil
}

// Close ends the per-role synthesizers' goroutines.
func (a *Prealign) Close() {
	for _, ar := range a.roles {
		if ar.synth != nil {
			ar.synth.Close()
		}
	}
}

// NumRoles returns the number of roles pre-aligned (those that blend).
func (a *Prealign) NumRoles() int { return len(a.roles) }

// Synthesize makes each blending role's own wrinkle mesh for pose p. It
// may run while the coarse simulation steps; Apply uses its result. Its
// first call makes the per-role synthesizers (decoding their samples);
// after Share it does nothing.
func (a *Prealign) Synthesize(p skel.Pose) error {
	if a.shared {
		return nil
	}
	if len(a.roles) > 0 && a.roles[0].synth == nil {
		if err := a.ownSynths(); err != nil {
			return err
		}
	}
	for k := range a.roles {
		ar := &a.roles[k]
		if _, err := ar.synth.Synthesize(p, ar.x); err != nil {
			return err
		}
		for i, u := range ar.verts {
			a.g[ar.slot[i]] = ar.x[u]
		}
	}
	return nil
}

// Apply writes into dst the synthesized fine mesh fine (Synthesizer's
// result for the pose given to Synthesize) moved onto the coarse mesh
// with the blend vertices pre-aligned per role. dst must not alias fine.
func (a *Prealign) Apply(fine, coarse, dst []geom.Vec3) error {
	t := a.t
	if err := t.check(fine, coarse, dst); err != nil {
		return err
	}
	if len(dst) > 0 && len(fine) > 0 && &dst[0] == &fine[0] {
		return fmt.Errorf("wrinkle: prealign: dst aliases the fine mesh")
	}
	t.down(fine, coarse)
	a.fine, a.dst = fine, dst[:t.nf]
	if t.nf < transferSerialBelow {
		a.roleChunk(0, len(a.dRow))
		a.ownOffsets()
		a.fuseChunk(0, t.nf)
	} else {
		t.pool.run(len(a.dRow), downChunk, a.roleFn)
		a.ownOffsets()
		t.pool.run(t.nf, upChunk, a.fuseFn)
	}
	a.fine, a.dst = nil, nil
	t.fine, t.coarse = nil, nil
	return nil
}

// downRows sets the rows of D per role (dRow, ...): coarse vertex v's
// row of role k lists k's blend vertices u with v a corner of u's
// projection at a non-zero weight, u ascending.
func (a *Prealign) downRows() {
	t, nr := a.t, len(a.roles)
	cnt := make([]int32, t.nc)
	at := make([]int32, t.nc) // the next entry of v's row
	a.dStart = []int32{0}
	for k := range a.roles {
		ar := &a.roles[k]
		clear(cnt)
		for _, u := range ar.verts {
			for c, v := range t.corner[u] {
				if t.dU[u][c] != 0 {
					cnt[v]++
				}
			}
		}
		for v, n := range cnt {
			if n > 0 {
				at[v] = a.dStart[len(a.dStart)-1]
				a.dRow = append(a.dRow, int32(v*nr+k))
				a.dStart = append(a.dStart, at[v]+n)
			}
		}
		n := int(a.dStart[len(a.dStart)-1])
		a.dSlot, a.dFine = slices.Grow(a.dSlot, n-len(a.dSlot))[:n], slices.Grow(a.dFine, n-len(a.dFine))[:n]
		a.dW = slices.Grow(a.dW, n-len(a.dW))[:n]
		for i, u := range ar.verts {
			for c, v := range t.corner[u] {
				if w := t.dU[u][c]; w != 0 {
					a.dSlot[at[v]], a.dFine[at[v]], a.dW[at[v]] = ar.slot[i], u, w
					at[v]++
				}
			}
		}
	}
}

// roleChunk computes the rows [lo, hi) of D (g_k − f) (downRows): the
// differences at each role's blend vertices down-sampled with Eq. 5's
// weights, in the order of the transfer's rows (fine vertices
// ascending). Coarse vertices a role's rows miss stay zero.
func (a *Prealign) roleChunk(lo, hi int) {
	g, fine := a.g, a.fine
	for r := lo; r < hi; r++ {
		var x, y, z float64
		e0, e1 := a.dStart[r], a.dStart[r+1]
		gs, fs, w := a.dSlot[e0:e1], a.dFine[e0:e1:e1], a.dW[e0:e1:e1]
		for e, j := range gs {
			gj, f, we := g[j], fine[fs[e]], w[e]
			x += (gj.X - f.X) * we
			y += (gj.Y - f.Y) * we
			z += (gj.Z - f.Z) * we
		}
		a.dAt[a.dRow[r]] = geom.Vec3{X: x, Y: y, Z: z}
	}
}

// ownOffsets sets hAt from the coarse offsets and dAt.
func (a *Prealign) ownOffsets() {
	nr := len(a.roles)
	for v, o := range a.t.off {
		for k := v * nr; k < (v+1)*nr; k++ {
			a.hAt[k] = o.Sub(a.dAt[k])
		}
	}
}

// fuseChunk writes fine vertices [lo, hi): f + T(f) (Transfer.Apply) at
// a vertex of no blending role, f + T(g_k) at one of blending role k
// alone (own), and at a blend vertex
//
//	Σ_J w_J (g_J + T(g_J)) = Σ_J w_J g_J + S^n A Σ_J w_J (o − D (g_J − f)),
//
// with o the coarse offsets of Eq. 5 (o − D (g_J − f) is hAt): one pass
// over the vertex's row of S^n A for all its roles (blend).
func (a *Prealign) fuseChunk(lo, hi int) {
	t := a.t
	off, fine, dst := t.off, a.fine, a.dst
	for u := lo; u < hi; u++ {
		switch i := a.bIdx[u]; {
		case i >= 0:
			dst[u] = a.blend(u, int(a.bStart[i]), int(a.bStart[i+1]))
		case i == -1:
			dst[u] = fine[u].Add(t.smoothed(off, u))
		default:
			dst[u] = fine[u].Add(a.own(u, int(-2-i)))
		}
	}
}

// own returns T(g_k) at fine vertex u, which only role k influences
// (g_k = f there): u's row of S^n A over role k's own coarse offsets.
func (a *Prealign) own(u, k int) geom.Vec3 {
	t, nr := a.t, len(a.roles)
	var x, y, z float64
	r0, r1 := t.uStart[u], t.uStart[u+1]
	col, rw := t.uCol[r0:r1], t.uW[r0:r1:r1]
	for e, v := range col {
		h, we := a.hAt[int(v)*nr+k], rw[e]
		x += we * h.X
		y += we * h.Y
		z += we * h.Z
	}
	return geom.Vec3{X: x, Y: y, Z: z}
}

// blend is fuseChunk's result at blend vertex u, whose roles are entries
// [j0, j1) of the blend rows. Two roles, the usual case, are written out.
func (a *Prealign) blend(u, j0, j1 int) geom.Vec3 {
	t, nr := a.t, len(a.roles)
	var g geom.Vec3
	for j := j0; j < j1; j++ {
		g = g.Add(a.g[j].Scale(a.bW[j]))
	}
	var x, y, z float64
	r0, r1 := t.uStart[u], t.uStart[u+1]
	col, rw := t.uCol[r0:r1], t.uW[r0:r1:r1]
	if j1-j0 == 2 {
		k0, k1 := int(a.bRole[j0]), int(a.bRole[j0+1])
		w0, w1 := a.bW[j0], a.bW[j0+1]
		for e, v := range col {
			b := int(v) * nr
			h0, h1 := a.hAt[b+k0], a.hAt[b+k1]
			we := rw[e]
			x += we * (w0*h0.X + w1*h1.X)
			y += we * (w0*h0.Y + w1*h1.Y)
			z += we * (w0*h0.Z + w1*h1.Z)
		}
		return geom.Vec3{X: g.X + x, Y: g.Y + y, Z: g.Z + z}
	}
	ks, ws := a.bRole[j0:j1], a.bW[j0:j1:j1]
	for e, v := range col {
		b := int(v) * nr
		var ox, oy, oz float64
		for j, k := range ks {
			h, w := a.hAt[b+int(k)], ws[j]
			ox += w * h.X
			oy += w * h.Y
			oz += w * h.Z
		}
		we := rw[e]
		x += we * ox
		y += we * oy
		z += we * oz
	}
	return geom.Vec3{X: g.X + x, Y: g.Y + y, Z: g.Z + z}
}
