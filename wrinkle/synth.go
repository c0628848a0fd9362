package wrinkle

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// SynthOptions configures NewSynthesizer. The zero value gives the
// defaults.
type SynthOptions struct {
	// OnClamp, if set, is called the first time a role's DoF is clamped
	// to its sampled range (once per role and DoF over the Synthesizer's
	// life), with the pose's angle and the range in radians.
	OnClamp func(c Clamp)
}

// Clamp describes a pose angle outside the sampled range.
type Clamp struct {
	Role          Role
	DoF           int
	Angle, Lo, Hi float64
}

// Status reports on one synthesized frame.
type Status struct {
	// Clamped has bit r set when role r's angles were clamped this frame.
	Clamped uint16
}

// roleData is one sampled role's share of the database, laid out for
// interpolation: its influenced vertices and their sample positions.
type roleData struct {
	role  Role
	js    JointSpec
	grid  [3]int
	verts []int32   // garment vertices with a weight for this role
	w     []float32 // that weight, per listed vertex
	rest  []geom.Vec3
	// alpha[i*nc+k] is vertex i's skin weight on the joints that chain
	// element k moves last (its exclusive subtree); nc = len(chain).
	alpha []float64
	nc    int
	// pos holds the samples' positions of the listed vertices, sample-major
	// in the spec's grid order: pos[(s·len(verts)+i)·3 + c].
	pos []float32
	// per-frame scratch
	chainD []geom.Quat
	chainT []geom.Rigid
}

// Synthesizer makes the fine garment for any pose from a database
// (wang2010 §3.3): per role, interpolation between the neighbouring
// samples with Eqs. 1–3, then blending of the roles' results with the
// influence maps (Eq. 4). See doc.go for how samples are carried to the
// pose. A Synthesizer owns its scratch buffers: use one per goroutine.
type Synthesizer struct {
	rig     *Rig
	opt     SynthOptions
	rest    []geom.Vec3
	weights skel.Weights
	roles   []roleData
	// acc is the blended local offset per vertex; restAcc its value before
	// any role is added (base − rest for vertices without influences).
	acc, restAcc []geom.Vec3
	skin         []geom.Rigid
	warned       [NumRoles][3]bool
	angles       [NumRoles]DoFs
}

// NewSynthesizer decodes db's samples for rig. db must be a whole
// database (not a shard) built for rig; otherwise the error names what
// does not match.
func NewSynthesizer(db *DB, rig *Rig, opt SynthOptions) (*Synthesizer, error) {
	if db.Header.Shards != 1 {
		return nil, fmt.Errorf("wrinkle: database is shard %d of %d: merge the shards first", db.Header.Shard, db.Header.Shards)
	}
	if err := db.CheckRig(rig); err != nil {
		return nil, err
	}
	n := len(db.Rest)
	s := &Synthesizer{rig: rig, opt: opt, rest: db.Rest, weights: db.Weights,
		acc: make([]geom.Vec3, n), restAcc: make([]geom.Vec3, n),
		skin: make([]geom.Rigid, rig.Skeleton.NumJoints())}
	local := make(map[Role]map[int32]int) // role → vertex → index in its list
	for i := 0; i < db.Spec.NumJoints(); i++ {
		js := db.Spec.JointSpec(i)
		rd := roleData{role: js.Role, js: js, grid: js.Grid(), nc: len(rig.Roles[js.Role].Chain)}
		rd.chainD = make([]geom.Quat, rd.nc)
		rd.chainT = make([]geom.Rigid, rd.nc)
		s.roles = append(s.roles, rd)
		local[js.Role] = map[int32]int{}
	}
	byRole := make(map[Role]*roleData, len(s.roles))
	for i := range s.roles {
		byRole[s.roles[i].role] = &s.roles[i]
	}
	for v := 0; v < n; v++ {
		rs, ws := db.Regions.Influences(v)
		if len(rs) == 0 {
			s.restAcc[v] = db.Base[v].Sub(db.Rest[v])
		}
		for i, r := range rs {
			rd := byRole[r]
			if rd == nil {
				return nil, fmt.Errorf("wrinkle: vertex %d is influenced by %s, which the spec does not sample", v, r)
			}
			local[r][int32(v)] = len(rd.verts)
			rd.verts = append(rd.verts, int32(v))
			rd.w = append(rd.w, ws[i])
			rd.rest = append(rd.rest, db.Rest[v])
		}
	}
	for i := range s.roles {
		s.roles[i].alpha = s.chainWeights(&s.roles[i])
		s.roles[i].pos = make([]float32, s.roles[i].js.NumSamples()*len(s.roles[i].verts)*3)
	}
	var buf []geom.Vec3
	for si, ss := range db.Samples {
		var err error
		if buf, err = db.Positions(si, buf); err != nil {
			return nil, err
		}
		rd := byRole[ss.Role]
		ls := ss.Index - db.Spec.FirstSample(ss.Joint)
		off := ls * len(rd.verts) * 3
		for i, v := range rd.verts {
			p := buf[v]
			rd.pos[off+3*i], rd.pos[off+3*i+1], rd.pos[off+3*i+2] = float32(p.X), float32(p.Y), float32(p.Z)
		}
	}
	return s, nil
}

// chainWeights returns, per listed vertex and chain element k, the sum of
// the vertex's skin weights on joints whose nearest chain ancestor (or
// self) is chain element k.
func (s *Synthesizer) chainWeights(rd *roleData) []float64 {
	sk := s.rig.Skeleton
	chain := s.rig.Roles[rd.role].Chain
	elem := make([]int, sk.NumJoints())
	for j := range elem {
		elem[j] = -1
		for k, c := range chain {
			if c == j {
				elem[j] = k
			}
		}
		if elem[j] < 0 && sk.Parent(j) >= 0 {
			elem[j] = elem[sk.Parent(j)]
		}
	}
	alpha := make([]float64, len(rd.verts)*rd.nc)
	for i, v := range rd.verts {
		js, ws := s.weights.Influences(int(v))
		for a, j := range js {
			if k := elem[j]; k >= 0 {
				alpha[i*rd.nc+k] += float64(ws[a])
			}
		}
	}
	return alpha
}

// NumVerts returns the number of garment vertices Synthesize writes.
func (s *Synthesizer) NumVerts() int { return len(s.rest) }

// MemoryBytes returns the size of the decoded samples and buffers held.
func (s *Synthesizer) MemoryBytes() int {
	n := (len(s.rest) + len(s.acc) + len(s.restAcc)) * 24
	for _, rd := range s.roles {
		n += len(rd.pos)*4 + len(rd.alpha)*8 + len(rd.rest)*24 + len(rd.verts)*8
	}
	return n
}

// Angles returns role r's angles of the last frame, after clamping.
func (s *Synthesizer) Angles(r Role) DoFs { return s.angles[r] }

// Synthesize writes the fine garment for pose p into dst[:NumVerts()]
// (metres, world coordinates of the posed body). Angles outside a role's
// sampled range are clamped (Status.Clamped; SynthOptions.OnClamp is told
// once). It allocates nothing. It returns an error, writing nothing, if p
// does not fit the rig's skeleton or holds non-finite values, or if dst is
// too short.
func (s *Synthesizer) Synthesize(p skel.Pose, dst []geom.Vec3) (Status, error) {
	var st Status
	if err := checkPose(s.rig.Skeleton, p); err != nil {
		return st, err
	}
	if len(dst) < len(s.rest) {
		return st, fmt.Errorf("wrinkle: dst has %d entries, the garment %d vertices", len(dst), len(s.rest))
	}
	s.skin = skel.SkinMatrices(s.rig.Skeleton, p, s.skin)
	copy(s.acc, s.restAcc)
	for i := range s.roles {
		if s.interpolateRole(&s.roles[i]) {
			st.Clamped |= 1 << s.roles[i].role
		}
	}
	s.pose(dst)
	return st, nil
}

// interpolateRole adds the role's interpolated sample offsets, in each
// vertex's skinning frame and weighted by its influence, to s.acc. It
// reports whether the role's angles were clamped.
func (s *Synthesizer) interpolateRole(rd *roleData) bool {
	rig := s.rig
	rj := &rig.Roles[rd.role]
	a := rig.AnglesOf(rd.role, rig.RoleRotation(rd.role, s.skin))
	var cell [3]int
	var t [3]float64
	clamped := false
	for d := 0; d < 3; d++ {
		var c bool
		cell[d], t[d], c = rd.js.DoF[d].locate(a[d])
		if d >= rd.role.NumDoF() {
			continue
		}
		lo, hi := rd.js.DoF[d].Angle(0), rd.js.DoF[d].Angle(rd.grid[d]-1)
		if c {
			clamped = true
			if !s.warned[rd.role][d] && s.opt.OnClamp != nil {
				s.warned[rd.role][d] = true
				s.opt.OnClamp(Clamp{Role: rd.role, DoF: d, Angle: a[d], Lo: lo, Hi: hi})
			}
		}
		a[d] = min(max(a[d], lo), hi)
	}
	s.angles[rd.role] = a
	// The role's chain transforms at the clamped angles (rest frame): the
	// skinning of the garment in the pose where only this role moved.
	rig.chainRotations(rd.role, a, rd.chainD)
	for k := range rd.chainT {
		c := rj.Centers[k]
		r := geom.Rigid{R: rd.chainD[k], T: c.Sub(rd.chainD[k].Rotate(c))}
		if k > 0 {
			r = rd.chainT[k-1].Mul(r)
		}
		if r.R.W < 0 {
			r.R = r.R.Scale(-1) // the hemisphere of the identity, for blending
		}
		rd.chainT[k] = r
	}
	// Corner samples (local indices) and, for ball joints, the twist
	// axis at each swing corner (Eq. 3 turns about the posed bone).
	var idx [2][2][2]int
	var axis [2][2]geom.Vec3
	for i0 := 0; i0 < 2; i0++ {
		for i1 := 0; i1 < 2; i1++ {
			for i2 := 0; i2 < 2; i2++ {
				c := [3]int{cell[0] + i0, cell[1] + i1, cell[2] + i2}
				for d := range c {
					c[d] = min(c[d], rd.grid[d]-1)
				}
				idx[i0][i1][i2] = (c[0]*rd.grid[1]+c[1])*rd.grid[2] + c[2]
			}
			if !rd.role.Hinge() {
				s0 := rd.js.DoF[0].Angle(min(cell[0]+i0, rd.grid[0]-1))
				s1 := rd.js.DoF[1].Angle(min(cell[1]+i1, rd.grid[1]-1))
				rv := rj.Axis[0].Scale(s0).Add(rj.Axis[1].Scale(s1))
				axis[i0][i1] = geom.QuatAxisAngle(rv, rv.Len()).Rotate(rj.Bone)
			}
		}
	}
	nv := len(rd.verts)
	c0 := rj.Center
	for i, v := range rd.verts {
		at := func(ls int) geom.Vec3 {
			o := (ls*nv + i) * 3
			return geom.Vec3{X: float64(rd.pos[o]), Y: float64(rd.pos[o+1]), Z: float64(rd.pos[o+2])}
		}
		var y geom.Vec3
		if rd.role.Hinge() {
			y = rotInterp(c0, at(idx[0][0][0]), at(idx[1][0][0]), t[0])
		} else {
			// Twist first (Eqs. 2–3), then the second and first swing
			// angles (Eq. 1): a fixed order, so results are reproducible.
			var q [2]geom.Vec3
			for i0 := 0; i0 < 2; i0++ {
				p0 := screwInterp(c0, axis[i0][0], at(idx[i0][0][0]), at(idx[i0][0][1]), t[2])
				p1 := screwInterp(c0, axis[i0][1], at(idx[i0][1][0]), at(idx[i0][1][1]), t[2])
				q[i0] = rotInterp(c0, p0, p1, t[1])
			}
			y = rotInterp(c0, q[0], q[1], t[0])
		}
		// The skinned rest shape in the role's pose and its rotation.
		// rot = (1 − Σα)·identity + Σ αₖ·qₖ, normalised.
		r := rd.rest[i]
		sk := r
		var rot geom.Quat
		sum := 0.0
		for k := 0; k < rd.nc; k++ {
			al := rd.alpha[i*rd.nc+k]
			if al == 0 {
				continue
			}
			sk = sk.Add(rd.chainT[k].Apply(r).Sub(r).Scale(al))
			rot = rot.Add(rd.chainT[k].R.Scale(al))
			sum += al
		}
		rot.W += 1 - sum
		off := rot.Normalize().Conj().Rotate(y.Sub(sk))
		s.acc[v] = s.acc[v].Add(off.Scale(float64(rd.w[i])))
	}
	return clamped
}

// pose writes dst[v] = LBS(rest_v) + R_v·acc[v]: the blended local
// offsets carried into the pose by each vertex's skinning (R_v the
// normalised blend of its joints' rotations, sign-aligned).
func (s *Synthesizer) pose(dst []geom.Vec3) {
	w := s.weights
	for v, r := range s.rest {
		var p geom.Vec3
		var q geom.Quat
		a, e := w.Offsets[v], w.Offsets[v+1]
		for i := a; i < e; i++ {
			m := s.skin[w.Joints[i]]
			wi := float64(w.W[i])
			p = p.Add(m.Apply(r).Scale(wi))
			mq := m.R
			if i > a && mq.Dot(s.skin[w.Joints[a]].R) < 0 {
				mq = mq.Scale(-1)
			}
			q = q.Add(mq.Scale(wi))
		}
		dst[v] = p.Add(q.Normalize().Rotate(s.acc[v]))
	}
}
