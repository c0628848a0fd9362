package wrinkle

import (
	"fmt"
	"runtime"
	"slices"

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
	// Workers is the number of goroutines that share a frame's vertices
	// (the caller's and Workers−1 helpers); 0 means runtime.GOMAXPROCS(0).
	// Results do not depend on it.
	Workers int
	// Verts, if not nil, are the only vertices Synthesize writes (indices
	// into the garment, each once); the other entries of its dst are left
	// as they are. Only these vertices' samples are stored.
	Verts []int32
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
// interpolation: its influenced vertices' sample positions and skin
// weights on its chain, and the frame's plan.
type roleData struct {
	role Role
	js   JointSpec
	grid [3]int
	nv   int // garment vertices with a weight for this role ("listed")
	// alpha[i*nc+k] is listed vertex i's skin weight on the joints that
	// chain element k moves last (its exclusive subtree); nc = len(chain).
	alpha []float64
	nc    int
	// pos holds the samples' positions of the listed vertices, sample-major
	// in the spec's grid order, four float32 per vertex: pos[s·nv+i][c],
	// cylindrical about the sample's twist axis for a ball joint, polar
	// about the centre for a hinge (see axisFrame).
	pos [][4]float32
	// frames[g0·grid[1]+g1] is a ball joint's twist axis (Eq. 3 turns
	// about the bone as swung) at swing grid point (g0, g1).
	frames []axisFrame
	center geom.Vec3
	// rest[i] is listed vertex i's rest position.
	rest []geom.Vec3
	plan rolePlan
	// per-frame scratch; chainM[k] is chainT[k].R as a matrix, off[i]
	// listed vertex i's local offset δ_J (doc.go, step 3)
	chainD []geom.Quat
	chainT []geom.Rigid
	chainM []rot3
	off    []geom.Vec3
}

// roleTask is a piece of the first pass of Synthesize: role k's listed
// vertices [lo, hi).
type roleTask struct{ k, lo, hi int32 }

// rolePlan is what a frame's interpolation of one role needs, set before
// the vertex loop. A DoF whose fraction is 0 or 1 (at a grid line, or
// clamped) is not interpolated: its lower or upper sample is used as is,
// which is what Eqs. 1–3 give there.
type rolePlan struct {
	// n[d] is 2 where DoF d is interpolated, else 1; corner[(i0·2+i1)·2+i2]
	// is the entry of pos where the corner sample (i0, i1, i2 < n[d]) starts.
	n      [3]int
	corner [8]int
	frame  [2][2]*axisFrame // twist axis at each swing corner
	coef   [3]slerpCoef
}

// jointSkin is a joint's skinning transform of the frame, laid out for
// the vertex loop: x ↦ M x + T, M the rotation of the quaternion Q.
type jointSkin struct {
	M rot3
	T geom.Vec3
	Q geom.Quat
}

// influence is one role's share of a vertex: the role's index in
// Synthesizer.roles, the index in Synthesizer.off of the role's local
// offset at the vertex (the role's block, then the vertex's index in
// its list) and its weight (Eq. 4).
type influence struct {
	role uint8
	i    int32
	w    float32
}

// Synthesizer makes the fine garment for any pose from a database
// (wang2010 §3.3): per role, interpolation between the neighbouring
// samples with Eqs. 1–3, then blending of the roles' results with the
// influence maps (Eq. 4). See doc.go for how samples are carried to the
// pose. A Synthesizer owns its scratch buffers: use one per goroutine.
// Synthesize splits the vertices over SynthOptions.Workers goroutines
// (helpers parked between frames; Close ends them).
type Synthesizer struct {
	rig     *Rig
	opt     SynthOptions
	rest    []geom.Vec3
	weights skel.Weights
	roles   []roleData
	// Vertex v's influences are infl[inflOff[v]:inflOff[v+1]], in the
	// roles' order; restOff[v] is the settled base's offset base − rest for
	// a vertex without any (zero otherwise).
	inflOff []int32
	infl    []influence
	restOff []geom.Vec3
	// off holds every role's local offsets δ_J, role after role: role
	// k's roleData.off is a block of it.
	off    []geom.Vec3
	skin   []geom.Rigid
	joints []jointSkin
	warned [NumRoles][3]bool
	angles [NumRoles]DoFs

	// verts are the vertices Synthesize writes (SynthOptions.Verts; nil:
	// all), in ascending order.
	verts []int32
	// blendG, if not nil, receives each role's own wrinkle mesh at each
	// vertex with two influences or more (Prealign.Share): vertex v's
	// roles, in the order of its influences, at blendG[blendAt[v]:].
	blendG  []geom.Vec3
	blendAt []int32

	// tasks split the roles' listed vertices into pieces of at most
	// synthChunk for the first pass.
	tasks []roleTask

	pool     *pool
	chunkFn  func(lo, hi int) // s.chunk, stored once: no allocation per frame
	roleFn   func(lo, hi int) // s.roleChunk, likewise
	dst      []geom.Vec3      // Synthesize's dst while the loop runs
	parallel int              // fewest vertices split over the workers
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
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	n := len(db.Rest)
	s := &Synthesizer{rig: rig, opt: opt, rest: db.Rest, weights: db.Weights,
		inflOff: make([]int32, n+1), restOff: make([]geom.Vec3, n),
		skin: make([]geom.Rigid, rig.Skeleton.NumJoints()), joints: make([]jointSkin, rig.Skeleton.NumJoints()),
		parallel: synthParallel}
	var byRole [NumRoles]int
	for r := range byRole {
		byRole[r] = -1
	}
	for i := 0; i < db.Spec.NumJoints(); i++ {
		js := db.Spec.JointSpec(i)
		rd := roleData{role: js.Role, js: js, grid: js.Grid(), nc: len(rig.Roles[js.Role].Chain)}
		rd.chainD = make([]geom.Quat, rd.nc)
		rd.chainT = make([]geom.Rigid, rd.nc)
		rd.chainM = make([]rot3, rd.nc)
		byRole[js.Role] = len(s.roles)
		s.roles = append(s.roles, rd)
	}
	var want []bool // nil: every vertex
	if opt.Verts != nil {
		want = make([]bool, n)
		for i, v := range opt.Verts {
			if v < 0 || int(v) >= n || want[v] {
				return nil, fmt.Errorf("wrinkle: SynthOptions.Verts[%d] = %d: out of range [0, %d) or repeated", i, v, n)
			}
			want[v] = true
		}
		s.verts = make([]int32, 0, len(opt.Verts))
		for v, ok := range want {
			if ok {
				s.verts = append(s.verts, int32(v))
			}
		}
	}
	lists := make([][]int32, len(s.roles)) // listed vertices per role
	for v := 0; v < n; v++ {
		if want != nil && !want[v] {
			s.inflOff[v+1] = int32(len(s.infl))
			continue
		}
		rs, ws := db.Regions.Influences(v)
		if len(rs) == 0 {
			s.restOff[v] = db.Base[v].Sub(db.Rest[v])
		}
		first := len(s.infl)
		for i, r := range rs {
			k := byRole[r]
			if k < 0 {
				return nil, fmt.Errorf("wrinkle: vertex %d is influenced by %s, which the spec does not sample", v, r)
			}
			s.infl = append(s.infl, influence{role: uint8(k), i: int32(len(lists[k])), w: ws[i]})
			lists[k] = append(lists[k], int32(v))
		}
		// Blend in the spec's order of roles, whatever the influences'.
		own := s.infl[first:]
		slices.SortFunc(own, func(a, b influence) int { return int(a.role) - int(b.role) })
		s.inflOff[v+1] = int32(len(s.infl))
	}
	base := make([]int32, len(s.roles))
	for k := range s.roles {
		base[k] = int32(len(s.off))
		s.off = append(s.off, make([]geom.Vec3, len(lists[k]))...)
	}
	for i := range s.infl {
		s.infl[i].i += base[s.infl[i].role]
	}
	for k := range s.roles {
		rd := &s.roles[k]
		rd.nv = len(lists[k])
		rd.alpha = s.chainWeights(rd, lists[k])
		rd.pos = make([][4]float32, rd.js.NumSamples()*rd.nv)
		rd.frames = twistFrames(rig, rd)
		rd.center = rig.Roles[rd.role].Center
		rd.rest = make([]geom.Vec3, rd.nv)
		for i, v := range lists[k] {
			rd.rest[i] = db.Rest[v]
		}
		rd.off = s.off[base[k] : int(base[k])+rd.nv : int(base[k])+rd.nv]
		for lo := 0; lo < rd.nv; lo += synthChunk {
			s.tasks = append(s.tasks, roleTask{int32(k), int32(lo), int32(min(lo+synthChunk, rd.nv))})
		}
	}
	var buf []geom.Vec3
	for si, ss := range db.Samples {
		k := byRole[ss.Role]
		rd := &s.roles[k]
		if rd.nv == 0 {
			continue // no vertex to store: skip the decoding (Prealign's one-role synthesizers)
		}
		var err error
		if buf, err = db.Positions(si, buf); err != nil {
			return nil, err
		}
		ls := ss.Index - db.Spec.FirstSample(ss.Joint)
		rd.store(ls, lists[k], buf)
	}
	s.pool = newPool(opt.Workers)
	s.chunkFn, s.roleFn = s.chunk, s.roleChunk
	if s.verts != nil {
		s.chunkFn = s.chunkVerts
	}
	runtime.AddCleanup(s, stopPool, s.pool.Pool)
	return s, nil
}

// twistFrames returns a ball joint's twist axis at each swing grid point:
// the rest bone turned by the swing of that point's angles, through the
// joint centre (nil for a hinge).
func twistFrames(rig *Rig, rd *roleData) []axisFrame {
	if rd.role.Hinge() {
		return nil
	}
	rj := &rig.Roles[rd.role]
	fr := make([]axisFrame, rd.grid[0]*rd.grid[1])
	for g0 := 0; g0 < rd.grid[0]; g0++ {
		for g1 := 0; g1 < rd.grid[1]; g1++ {
			s0, s1 := rd.js.DoF[0].Angle(g0), rd.js.DoF[1].Angle(g1)
			rv := rj.Axis[0].Scale(s0).Add(rj.Axis[1].Scale(s1))
			fr[g0*rd.grid[1]+g1] = newAxisFrame(rj.Center, geom.QuatAxisAngle(rv, rv.Len()).Rotate(rj.Bone))
		}
	}
	return fr
}

// store sets local sample ls of the listed vertices verts from the
// garment's positions buf.
func (rd *roleData) store(ls int, verts []int32, buf []geom.Vec3) {
	f := (*axisFrame)(nil)
	if !rd.role.Hinge() {
		g := ls / rd.grid[2] // the swing grid point g0·grid[1]+g1
		f = &rd.frames[g]
	}
	dst := rd.pos[ls*rd.nv : (ls+1)*rd.nv]
	for i, v := range verts {
		if f != nil {
			dst[i] = f.cylinder(buf[v])
		} else {
			dst[i] = polar(rd.center, buf[v])
		}
	}
}

// chainWeights returns, per listed vertex and chain element k, the sum of
// the vertex's skin weights on joints whose nearest chain ancestor (or
// self) is chain element k.
func (s *Synthesizer) chainWeights(rd *roleData, verts []int32) []float64 {
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
	alpha := make([]float64, len(verts)*rd.nc)
	for i, v := range verts {
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

// MemoryBytes returns the size of the decoded samples and buffers held
// (the rest shape and skin weights, shared with the DB, not counted).
func (s *Synthesizer) MemoryBytes() int {
	n := len(s.restOff)*24 + len(s.inflOff)*4 + len(s.infl)*12
	for _, rd := range s.roles {
		n += len(rd.pos)*16 + len(rd.alpha)*8 + len(rd.frames)*96 + (len(rd.rest)+len(rd.off))*24
	}
	return n
}

// Angles returns role r's angles of the last frame, after clamping.
func (s *Synthesizer) Angles(r Role) DoFs { return s.angles[r] }

// Close ends the Synthesizer's helper goroutines; it must not be used
// afterwards. A Synthesizer that is dropped without Close ends them when
// it is collected.
func (s *Synthesizer) Close() { s.pool.stop() }

// Synthesize writes the fine garment for pose p into dst[:NumVerts()]
// (metres, world coordinates of the posed body; only the vertices
// SynthOptions.Verts when set). Angles outside a role's
// sampled range are clamped (Status.Clamped; SynthOptions.OnClamp is told
// once). It allocates nothing, and its result does not depend on
// SynthOptions.Workers. It returns an error, writing nothing, if p does
// not fit the rig's skeleton or holds non-finite values, or if dst is too
// short.
func (s *Synthesizer) Synthesize(p skel.Pose, dst []geom.Vec3) (Status, error) {
	var st Status
	if err := checkPose(s.rig.Skeleton, p); err != nil {
		return st, err
	}
	if len(dst) < len(s.rest) {
		return st, fmt.Errorf("wrinkle: dst has %d entries, the garment %d vertices", len(dst), len(s.rest))
	}
	s.skin = skel.SkinMatrices(s.rig.Skeleton, p, s.skin)
	for j, m := range s.skin {
		s.joints[j] = jointSkin{M: quatRot3(m.R), T: m.T, Q: m.R}
	}
	for i := range s.roles {
		if s.planRole(&s.roles[i]) {
			st.Clamped |= 1 << s.roles[i].role
		}
	}
	s.dst = dst
	n := len(s.rest)
	if s.verts != nil {
		n = len(s.verts)
	}
	if n < s.parallel {
		s.roleFn(0, len(s.tasks))
		s.chunkFn(0, n)
	} else {
		s.pool.run(len(s.tasks), 1, s.roleFn)
		s.pool.run(n, synthChunk, s.chunkFn)
	}
	s.dst = nil
	return st, nil
}

// synthParallel is the fewest vertices Synthesize splits over its
// workers (waking a helper costs microseconds), and synthChunk the fixed
// number of vertices per piece of work.
const (
	synthParallel = 4096
	synthChunk    = 512
)

// planRole reads the role's angles from the frame's skinning, clamps them
// and sets rd.plan and the role's chain transforms. It reports whether the
// angles were clamped.
func (s *Synthesizer) planRole(rd *roleData) bool {
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
		rd.chainM[k] = quatRot3(r.R)
	}
	// Interpolated DoFs and their corner samples: a fraction of 0 or 1
	// selects the lower or upper sample alone.
	pl := &rd.plan
	var base [3]int
	for d := 0; d < 3; d++ {
		pl.n[d] = 1
		switch {
		case t[d] == 1:
			base[d] = min(cell[d]+1, rd.grid[d]-1)
		case t[d] > 0:
			pl.n[d] = 2
			pl.coef[d].set(t[d])
			base[d] = cell[d]
		default:
			base[d] = cell[d]
		}
	}
	for i0 := 0; i0 < pl.n[0]; i0++ {
		for i1 := 0; i1 < pl.n[1]; i1++ {
			g0, g1 := base[0]+i0, base[1]+i1
			if !rd.role.Hinge() {
				pl.frame[i0][i1] = &rd.frames[g0*rd.grid[1]+g1]
			}
			for i2 := 0; i2 < pl.n[2]; i2++ {
				ls := (g0*rd.grid[1]+g1)*rd.grid[2] + base[2] + i2
				pl.corner[(i0*2+i1)*2+i2] = ls * rd.nv
			}
		}
	}
	return clamped
}

// roleChunk runs the first pass of a frame for tasks [lo, hi): each
// listed vertex's local offset δ_J for its role (doc.go, steps 2–3).
func (s *Synthesizer) roleChunk(lo, hi int) {
	for _, tk := range s.tasks[lo:hi] {
		s.roles[tk.k].offsets(int(tk.lo), int(tk.hi))
	}
}

// chunk synthesizes vertices [lo, hi) into s.dst: each vertex's roles'
// local offsets blended with its influence weights (Eq. 4), carried into
// the pose by its skinning.
func (s *Synthesizer) chunk(lo, hi int) {
	for v := lo; v < hi; v++ {
		s.vertex(v)
	}
}

// chunkVerts is chunk for the vertices verts[lo:hi] (SynthOptions.Verts).
func (s *Synthesizer) chunkVerts(lo, hi int) {
	for _, v := range s.verts[lo:hi] {
		s.vertex(int(v))
	}
}

// vertex synthesizes vertex v into s.dst[v] and, for a vertex that
// blends roles when s.blendG is set, each role's own mesh (the role's
// offset alone, weight 1: what a Synthesizer of that role alone gives;
// restOff is zero at an influenced vertex) into s.blendG.
func (s *Synthesizer) vertex(v int) {
	ins := s.infl[s.inflOff[v]:s.inflOff[v+1]]
	acc := s.restOff[v]
	for _, in := range ins {
		acc = acc.Add(s.off[in.i].Scale(float64(in.w)))
	}
	// skinning and rot3.setQuat written out (the same operations): p is
	// LBS(rest_v), m0…m8 the rows of R_v.
	w := &s.weights
	r := s.rest[v]
	a, e := w.Offsets[v], w.Offsets[v+1]
	js, ws := w.Joints[a:e], w.W[a:e:e]
	var px, py, pz float64
	var qw, qx, qy, qz float64
	var q0 geom.Quat
	for i, j := range js {
		m := &s.joints[j]
		wi := float64(ws[i])
		px += (m.M[0]*r.X + m.M[1]*r.Y + m.M[2]*r.Z + m.T.X) * wi
		py += (m.M[3]*r.X + m.M[4]*r.Y + m.M[5]*r.Z + m.T.Y) * wi
		pz += (m.M[6]*r.X + m.M[7]*r.Y + m.M[8]*r.Z + m.T.Z) * wi
		mq := m.Q
		if i == 0 {
			q0 = mq
		} else if mq.W*q0.W+mq.X*q0.X+mq.Y*q0.Y+mq.Z*q0.Z < 0 {
			wi = -wi
		}
		qw += mq.W * wi
		qx += mq.X * wi
		qy += mq.Y * wi
		qz += mq.Z * wi
	}
	m0, m1, m2, m3, m4, m5, m6, m7, m8 := 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
	if n := qw*qw + qx*qx + qy*qy + qz*qz; n != 0 {
		sc := 2 / n
		xs, ys, zs := qx*sc, qy*sc, qz*sc
		wx, wy, wz := qw*xs, qw*ys, qw*zs
		xx, xy, xz := qx*xs, qx*ys, qx*zs
		yy, yz, zz := qy*ys, qy*zs, qz*zs
		m0, m1, m2 = 1-(yy+zz), xy-wz, xz+wy
		m3, m4, m5 = xy+wz, 1-(xx+zz), yz-wx
		m6, m7, m8 = xz-wy, yz+wx, 1-(xx+yy)
	}
	s.dst[v] = geom.Vec3{
		X: px + (m0*acc.X + m1*acc.Y + m2*acc.Z),
		Y: py + (m3*acc.X + m4*acc.Y + m5*acc.Z),
		Z: pz + (m6*acc.X + m7*acc.Y + m8*acc.Z),
	}
	if s.blendG != nil && len(ins) >= 2 {
		g := s.blendG[s.blendAt[v]:]
		g = g[:len(ins)]
		for k, in := range ins {
			o := s.off[in.i]
			g[k] = geom.Vec3{
				X: px + (m0*o.X + m1*o.Y + m2*o.Z),
				Y: py + (m3*o.X + m4*o.Y + m5*o.Z),
				Z: pz + (m6*o.X + m7*o.Y + m8*o.Z),
			}
		}
	}
}

// offsets sets off[lo:hi], the listed vertices' local offsets: y_J
// (interpolate) by blocks of offBlock vertices, one step of Eqs. 1–3 at
// a time over the block (interpblock.go), then δ_J (local).
func (rd *roleData) offsets(lo, hi int) {
	var sc offScratch
	for b := lo; b < hi; b += offBlock {
		e := min(b+offBlock, hi)
		if rd.frames == nil {
			rd.hingeBlock(b, e, &sc)
		} else {
			rd.ballBlock(b, e, &sc)
		}
		rd.localBlock(b, sc.y[0][:e-b])
	}
}

// localBlock sets off[lo:lo+len(y)] to local(i, y[i−lo]), with local and
// rotateInv written out (the same operations in the same order).
func (rd *roleData) localBlock(lo int, y []geom.Vec3) {
	nc := rd.nc
	rest, off := rd.rest[lo:lo+len(y)], rd.off[lo:lo+len(y)]
	alpha := rd.alpha[lo*nc : (lo+len(y))*nc]
	chainT, chainM := rd.chainT[:nc], rd.chainM[:nc]
	for j := range y {
		r := rest[j]
		sx, sy, sz := r.X, r.Y, r.Z
		var qw, qx, qy, qz float64
		sum := 0.0
		al := alpha[j*nc : j*nc+nc]
		for k, a := range al {
			if a == 0 {
				continue
			}
			ct, m := &chainT[k], &chainM[k]
			sx += (m[0]*r.X + m[1]*r.Y + m[2]*r.Z + ct.T.X - r.X) * a
			sy += (m[3]*r.X + m[4]*r.Y + m[5]*r.Z + ct.T.Y - r.Y) * a
			sz += (m[6]*r.X + m[7]*r.Y + m[8]*r.Z + ct.T.Z - r.Z) * a
			qw += ct.R.W * a
			qx += ct.R.X * a
			qy += ct.R.Y * a
			qz += ct.R.Z * a
			sum += a
		}
		qw += 1 - sum
		x := geom.Vec3{X: y[j].X - sx, Y: y[j].Y - sy, Z: y[j].Z - sz}
		nq := qw*qw + qx*qx + qy*qy + qz*qz
		if nq == 0 {
			off[j] = x
			continue
		}
		s := 2 / nq
		ux, uy, uz := -qx, -qy, -qz
		cx, cy, cz := uy*x.Z-uz*x.Y, uz*x.X-ux*x.Z, ux*x.Y-uy*x.X
		dx, dy, dz := uy*cz-uz*cy, uz*cx-ux*cz, ux*cy-uy*cx
		off[j] = geom.Vec3{X: x.X + s*(qw*cx+dx), Y: x.Y + s*(qw*cy+dy), Z: x.Z + s*(qw*cz+dz)}
	}
}

// ballBlock sets sc.y[0][:hi-lo] to interpolate's y_J of a ball joint's
// listed vertices [lo, hi): the twist step at each swing corner (screw or,
// where twist is not interpolated, the corner sample itself), then the
// second and first swing steps, relative to the joint centre (screwRel,
// rotRel), and the centre added.
func (rd *roleData) ballBlock(lo, hi int, sc *offScratch) {
	pl := &rd.plan
	n := hi - lo
	for i0 := 0; i0 < pl.n[0]; i0++ {
		for i1 := 0; i1 < pl.n[1]; i1++ {
			k := (i0*2 + i1) * 2
			c := i0*2 + i1
			f := pl.frame[i0][i1]
			s0 := rd.pos[pl.corner[k]+lo : pl.corner[k]+hi]
			if pl.n[2] == 2 {
				screwBlock(f, s0, rd.pos[pl.corner[k+1]+lo:pl.corner[k+1]+hi], &pl.coef[2], sc.y[c][:n], sc.yl[c][:n])
			} else {
				pointBlock(f, s0, sc.y[c][:n], sc.yl[c][:n])
			}
		}
		if pl.n[1] == 2 {
			rotBlock(sc.y[i0*2][:n], sc.yl[i0*2][:n], sc.y[i0*2+1][:n], sc.yl[i0*2+1][:n], &pl.coef[1])
		}
	}
	if pl.n[0] == 2 {
		rotBlock(sc.y[0][:n], sc.yl[0][:n], sc.y[2][:n], sc.yl[2][:n], &pl.coef[0])
	}
	y, c := sc.y[0][:n], rd.center
	for j := range y {
		y[j] = c.Add(y[j])
	}
}

// hingeBlock sets sc.y[0][:hi-lo] to interpolate's y_J of a hinge's
// listed vertices [lo, hi): flexion with the rotational scheme about the
// centre (rotPolar), or the one sample where it is not interpolated.
func (rd *roleData) hingeBlock(lo, hi int, sc *offScratch) {
	pl := &rd.plan
	y := sc.y[0][:hi-lo]
	s0 := rd.pos[pl.corner[0]+lo : pl.corner[0]+hi]
	if pl.n[0] == 2 {
		polarBlock(rd.center, s0, rd.pos[pl.corner[4]+lo:pl.corner[4]+hi], &pl.coef[0], y)
		return
	}
	for j := range y {
		y[j] = polarPoint(rd.center, &s0[j])
	}
}
