package sim

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// Simulator steps garments on a character, one frame at a time, to poses
// given as they come (a clip, a game loop, a live mocap stream). It is
// built once (New) with the garments in the character's rest pose, where
// they were fitted; Step advances one frame to a pose and SettleTo moves
// into a pose and holds it until the garments are at rest.
//
// A Simulator is used by one goroutine at a time; it steps its pieces on
// Options.Workers goroutines of its own, parked between substeps. Close
// ends them.
type Simulator struct {
	opt Options
	ch  *character.Character
	sk  *skel.Skeleton
	resolved

	pieces []*Piece // in the solver's vertex order
	public []*Piece // the same in their own vertex order (Pieces)
	cloths []*cloth.Cloth
	meshes []*mesh.Mesh // the cloths' meshes, sharing their positions

	body      *bodies
	loops     *loops
	colliders [][]*collide.Collider // per piece, for their statistics
	snaps     []*collide.Snapshot   // of the pieces that others follow
	penHints  [][]int32             // per piece vertex: its closest body triangle when last measured
	through   *collide.Through      // body vertices through the garments, built at the first measure

	pose  skel.Pose    // the body's pose now
	skin  []geom.Rigid // scratch skinning transforms
	moves *moveSampler
	frame int // frames stepped
	fast  fastMotion
	wary  waryFrames

	// Stepping: the team of goroutines and the coming frame's preparation.
	team       *team
	pace       pacer
	concurrent bool // pieces stepped on several goroutines
	adaptive   bool // the pacer picks serial or parallel frames
	mode       int  // the mode the cloths and colliders are set to
	stepStats  []cloth.StepStats
	stepErrs   []error
	h          float64 // the current substep, s
	stepPiece  func(i int)
	pre        ahead
	preSkin    []geom.Rigid
	prePose    skel.Pose // the pose pre prepares
	nextPose   skel.Pose // given by Ahead for the next Step
	nextSet    bool

	notes []string
}

// Frame receives a stepped frame: each piece's vertex positions in its own
// vertex order (see Simulator.Pieces) and the frame's statistics. X and its
// slices are reused when they have the right lengths and allocated
// otherwise.
type Frame struct {
	X     [][]geom.Vec3
	Stats FrameStats
}

// New builds a simulator of the garments on ch. The garments start in the
// skeleton's rest pose, moved by opt.Root, where they were fitted: they are
// pushed out of the body and of each other and their attached loops bound
// to the body at the first Step or SettleTo. New is Prepare then
// Prepared.New.
func New(ch *character.Character, garments []*character.Garment, opt Options) (*Simulator, error) {
	p, err := Prepare(ch, garments, opt)
	if err != nil {
		return nil, err
	}
	return p.New()
}

// New builds a fresh simulator from the prepared garments.
func (p *Prepared) New() (*Simulator, error) {
	s := &Simulator{opt: p.opt, ch: p.ch, sk: p.ch.Skeleton, resolved: p.res, pieces: p.pieces, public: p.public}
	s.notes = append(s.notes, p.notes...)
	copyPose(&s.pose, p.pose)
	var err error
	if s.body, err = newBodies(p, s.workers); err != nil {
		return nil, err
	}
	if p.proxy != "" {
		s.note("%s", p.proxy)
	}
	n := len(p.pieces)
	s.cloths = make([]*cloth.Cloth, n)
	s.meshes = make([]*mesh.Mesh, n)
	for i, pc := range p.pieces {
		c, err := s.pieceCloth(p, i)
		if err != nil {
			return nil, err
		}
		s.cloths[i], s.meshes[i] = c, &mesh.Mesh{Verts: c.X, Tris: pc.Mesh.Tris}
	}
	if err := s.hookCollisions(); err != nil {
		return nil, err
	}
	pinK := s.opt.PinStiffness
	if pinK == 0 {
		pinK = defaultPinStiffness
	}
	var loopBody []geom.Vec3
	if !s.opt.NoBody && !s.opt.NoAttach {
		loopBody = s.body.cur
	}
	if s.loops, err = newLoops(s.pieces, s.cloths, loopBody, s.body.col.Tris, pinK, s.thick, strainMargin*s.strainLimit, len(s.opt.Creases) > 0); err != nil {
		return nil, fmt.Errorf("sim: body: %w", err)
	}
	s.penHints = make([][]int32, n)
	for i, c := range s.cloths {
		s.penHints[i] = slices.Repeat([]int32{-1}, len(c.X))
	}
	s.moves = newMoveSampler(s.pieces)
	s.initStepping()
	return s, nil
}

// resolveOptions validates the options and fills in their defaults.
func resolveOptions(opt Options) (resolved, error) {
	var r resolved
	r.thick = opt.Thickness
	if r.thick == 0 {
		r.thick = 0.003
	}
	if !(r.thick > 0 && r.thick <= 0.05) {
		return r, fmt.Errorf("sim: thickness %g m out of range (0, 0.05]", r.thick)
	}
	fps := opt.FPS
	if fps == 0 {
		fps = 30
	}
	if !(fps > 0) || fps > 1000 {
		return r, fmt.Errorf("sim: frame rate %g out of range (0, 1000]", fps)
	}
	r.dt = 1 / fps
	r.strainLimit = opt.StrainLimit
	if r.strainLimit == 0 {
		r.strainLimit = 0.1
		if opt.ModelSet && opt.Model == cloth.WeftWarp {
			r.strainLimit = weftWarpStrainLimit
		}
	}
	r.cgTol = opt.CGTol
	if r.cgTol == 0 {
		r.cgTol = 1e-2
	}
	r.speedClamp = opt.SpeedClamp
	if r.speedClamp == 0 {
		r.speedClamp = defaultSpeedClamp
	}
	r.maxDt = opt.MaxDt
	if r.maxDt == 0 {
		r.maxDt = 1.0 / 60
	}
	if !(r.maxDt > 0) || math.IsInf(r.maxDt, 0) {
		return r, fmt.Errorf("sim: largest substep %g s out of range", r.maxDt)
	}
	if m := opt.BodyOverlapMinEdge; !(m >= 0) || math.IsInf(m, 0) {
		return r, fmt.Errorf("sim: shortest body-overlap edge %g m must be finite and not negative", m)
	}
	r.workers = opt.Workers
	if r.workers <= 0 {
		r.workers = runtime.GOMAXPROCS(0)
	}
	return r, nil
}

// defaultSpeedClamp (m/s) caps cloth vertex speeds when the motion is not
// known in advance (Run derives the cap from its clip): a running human's
// hands and feet reach about 10 m/s.
const defaultSpeedClamp = 10

func (s *Simulator) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// Notes says what the simulator adjusted (materials, subdivision, initial
// penetration resolved).
func (s *Simulator) Notes() []string { return slices.Clone(s.notes) }

// Pieces returns the simulated pieces, in the order of Frame.X, each in
// its own vertex order.
func (s *Simulator) Pieces() []*Piece { return s.public }

// Time returns the simulated time, s.
func (s *Simulator) Time() float64 { return s.cloths[0].Time }

// Close ends the simulator's goroutines. The simulator must not be used
// after.
func (s *Simulator) Close() {
	if s.team != nil {
		s.team.stop()
	}
}

// Ahead tells the simulator the pose of the frame after the coming Step
// (a clip's next frame): that frame's collision body and attachment
// targets are then prepared while the coming one steps, by goroutines that
// would otherwise wait. A Step given another pose drops the preparation.
func (s *Simulator) Ahead(next skel.Pose) {
	copyPose(&s.nextPose, next)
	s.nextSet = true
}

// Step advances the garments by one frame (1/Options.FPS) while the body
// moves from its current pose to pose, and fills out (may be nil) with the
// garments' positions and the frame's statistics.
func (s *Simulator) Step(ctx context.Context, pose skel.Pose, out *Frame) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.checkPose(pose); err != nil {
		return err
	}
	start := time.Now()
	s.bind()
	s.frame++
	st := FrameStats{Frame: s.frame}
	t0 := s.cloths[0].Time
	t1 := t0 + s.dt
	skin := skel.SkinMatrices(s.sk, pose, s.skin)
	s.skin = skin
	minSub := 0
	if s.opt.MaxDt == 0 || s.opt.FastSubsteps {
		minSub = s.fast.substeps(s.moves.move(skin), s.dt, s.maxDt)
	}
	minSub = max(minSub, s.wary.substeps(s.dt, s.maxDt))
	if err := s.advance(pose, skin, t0, t1, t1-t0, minSub, &st); err != nil {
		return err
	}
	s.wary.after(st.Clamped, s.dt)
	st.Wall = time.Since(start)
	return s.measure(skin, &st, out)
}

// checkPose checks that pose fits the skeleton and is finite.
func (s *Simulator) checkPose(pose skel.Pose) error {
	if len(pose.Rot) != s.sk.NumJoints() {
		return fmt.Errorf("sim: pose has %d joint rotations, the skeleton %d joints", len(pose.Rot), s.sk.NumJoints())
	}
	if !pose.Root.IsFinite() {
		return fmt.Errorf("sim: pose root %v is not finite", pose.Root)
	}
	for j, q := range pose.Rot {
		if !(math.Abs(q.W) <= 1.5 && math.Abs(q.X) <= 1.5 && math.Abs(q.Y) <= 1.5 && math.Abs(q.Z) <= 1.5) {
			return fmt.Errorf("sim: pose rotation of joint %q is not a unit quaternion: %v", s.sk.Joint(j).Name, q)
		}
	}
	return nil
}

// bind binds the attached loops to the body where it is now, once.
func (s *Simulator) bind() {
	if s.loops.bound {
		return
	}
	s.loops.bind(s.pieces, s.cloths, s.body.setup, s.body.cur)
}

// advance moves the body from its current pose to pose (skinned by skin)
// between times t0 and t1 while the garments step by dt in at least minSub
// substeps, adding the stepping statistics to st.
func (s *Simulator) advance(pose skel.Pose, skin []geom.Rigid, t0, t1, dt float64, minSub int, st *FrameStats) error {
	b := s.body
	if s.pre.armed && samePose(pose, s.prePose) {
		s.pre.finish()
		b.next, b.pre = b.pre, b.next
		s.loops.next, s.loops.ahead = s.loops.ahead, s.loops.next
		b.move(t0, t1, s.workers, nil)
	} else {
		s.pre.disarm()
		b.next = b.skin(skin, b.next)
		b.move(t0, t1, s.workers, func() { s.loops.targets(b.next, s.loops.next) })
	}
	if s.nextSet && s.concurrent {
		copyPose(&s.prePose, s.nextPose)
		s.pre.arm()
	}
	s.nextSet = false
	if err := s.substeps(dt, minSub, st); err != nil {
		return err
	}
	b.cur, b.next = b.next, b.cur
	copyPose(&s.pose, pose)
	return nil
}

// initStepping sets up the team that steps the pieces and the preparation
// of the coming frame (see ahead): the skinning transforms of its pose,
// the collision body skinned in chunks, then the attachment targets.
func (s *Simulator) initStepping() {
	n := len(s.cloths)
	s.stepStats = make([]cloth.StepStats, n)
	s.stepErrs = make([]error, n)
	s.stepPiece = func(i int) { s.stepStats[i], s.stepErrs[i] = s.cloths[i].Step(s.h) }
	s.concurrent = n > 1 && s.workers > 1
	s.adaptive, s.mode = s.workers > 1, modeParallel
	if s.concurrent {
		s.team = newTeam(min(s.workers, n) - 1)
	} else {
		s.team = newTeam(0)
	}
	b := s.body
	const preChunk = 512
	s.pre.add(0, func() { s.preSkin = skel.SkinMatrices(s.sk, s.prePose, s.preSkin) })
	for lo := 0; lo < len(b.pre); lo += preChunk {
		s.pre.add(1, func() { skel.LBSPart(b.col.Verts, b.colW, s.preSkin, b.pre, lo, min(lo+preChunk, len(b.pre))) })
	}
	if b.colCrease != nil {
		s.pre.add(len(s.pre.tasks), func() { b.colCrease.Apply(s.preSkin, b.pre) })
	}
	s.pre.add(len(s.pre.tasks), func() { s.loops.targets(b.pre, s.loops.ahead) })
}

// substeps advances every piece by dt in lockstep substeps of at most
// maxDt (at least minSub), moving the attachment targets linearly over the
// frame. The pieces are stepped concurrently within a substep (each
// collides with the others' states at its start, snaps), so the result
// does not depend on the number of goroutines.
func (s *Simulator) substeps(dt float64, minSub int, st *FrameStats) error {
	nsub := max(substepsFor(dt, s.maxDt), minSub)
	s.h = dt / float64(nsub)
	var pre *ahead
	if s.pre.armed {
		pre = &s.pre
	}
	mode := modeSerial
	if s.adaptive {
		mode = s.pace.mode()
		s.setMode(mode)
	}
	start := time.Now()
	for k := 1; k <= nsub; k++ {
		s.loops.set(s.cloths, float64(k)/float64(nsub))
		for i, c := range s.cloths {
			if s.snaps[i] != nil {
				s.snaps[i].Take(c)
			}
		}
		s.team.run(len(s.cloths), s.stepPiece, pre, mode == modeSerial)
		for i, c := range s.cloths {
			if err := s.stepErrs[i]; err != nil {
				return fmt.Errorf("sim: %s at t=%.3f s: %w", s.pieces[i].Name, c.Time, err)
			}
			ss := s.stepStats[i]
			st.CGIterations += ss.CGIterations
			st.Substeps += ss.Substeps
			st.Retries += ss.Retries
			st.Clamped += ss.Clamped
			st.Undone += ss.Restored
			for _, col := range s.colliders[i] {
				cs := col.Stats()
				st.Released += cs.Crossed
				st.Undone += cs.Undone
			}
		}
	}
	if s.adaptive {
		s.pace.record(mode, time.Since(start).Seconds()/float64(nsub))
	}
	s.loops.advance()
	return nil
}

// setMode sets the pieces' own parallel loops (the cloths' solver loops,
// the body and layer collisions' detection) to run on the calling
// goroutine alone (modeSerial) or on Options.Workers goroutines
// (modeParallel). Results do not depend on it.
func (s *Simulator) setMode(mode int) {
	if mode == s.mode {
		return
	}
	s.mode = mode
	workers := s.opt.Workers
	if mode == modeSerial {
		workers = 1
	}
	for _, c := range s.cloths {
		c.SetSingleThreaded(mode == modeSerial)
		for _, h := range c.Hooks {
			switch h := h.(type) {
			case *collide.Collider:
				h.Params.Workers = workers
			case *collide.Overlap:
				h.Params.Workers = workers
			case *collide.BodyOverlap:
				h.Params.Workers = workers
			}
		}
	}
}

// measure fills the frame's statistics (stretch, penetration of the full
// body skinned by skin, kinetic energy) and out.
func (s *Simulator) measure(skin []geom.Rigid, st *FrameStats, out *Frame) error {
	st.WorstEdge.Piece = -1
	var pb *collide.Body
	if !s.opt.NoPenetration {
		var err error
		if pb, err = s.body.penetration(skin); err != nil {
			return err
		}
	}
	worst := 0.0
	for i, c := range s.cloths {
		for _, p := range c.X {
			if !p.IsFinite() {
				return fmt.Errorf("sim: %s: non-finite position at frame %d", s.pieces[i].Name, st.Frame)
			}
		}
		if pb != nil {
			pen := collide.Penetrations(c.X, pb, s.thick, s.penHints[i])
			st.Inside += pen.Inside
			st.Deep += pen.Deep
			st.MaxDepth = math.Max(st.MaxDepth, pen.MaxDepth)
		}
		st.KineticEnergy += c.KineticEnergy()
		// One pass over the edges: the count above 10 % and the most
		// stretched one.
		rest := c.EdgeRest()
		for k, e := range c.Edges() {
			strain := c.X[e[0]].Dist(c.X[e[1]])/rest[k] - 1
			if strain > 0.1 {
				st.Overstretched++
			}
			if st.WorstEdge.Piece < 0 || strain > worst {
				worst = strain
				st.WorstEdge.Piece = i
				st.WorstEdge.A, st.WorstEdge.B = e[0], e[1]
			}
		}
		// Edges for both models: cloth.MaxStretch measures the weft/warp
		// model along its threads, which is not what this field reports.
		st.MaxStretch = math.Max(st.MaxStretch, worst)
		st.Edges += len(rest)
	}
	if pb != nil {
		if err := s.measureThrough(pb, st); err != nil {
			return err
		}
	}
	if we := &st.WorstEdge; we.Piece >= 0 {
		if o := s.pieces[we.Piece].order; o != nil {
			we.A, we.B = o.perm[we.A], o.perm[we.B]
		}
	}
	if out != nil {
		out.Stats = *st
		s.Positions(&out.X)
	}
	return nil
}

// Positions sets (*dst)[p] to piece p's vertex positions now, in its own
// vertex order, reusing the slices where their lengths fit.
func (s *Simulator) Positions(dst *[][]geom.Vec3) {
	x := *dst
	if len(x) != len(s.cloths) {
		x = make([][]geom.Vec3, len(s.cloths))
	}
	for i, c := range s.cloths {
		if len(x[i]) != len(c.X) {
			x[i] = make([]geom.Vec3, len(c.X))
		}
		if o := s.pieces[i].order; o != nil {
			for k, v := range o.perm {
				x[i][v] = c.X[k]
			}
		} else {
			copy(x[i], c.X)
		}
	}
	*dst = x
}

// samePose reports whether a and b are the same pose, bit for bit.
func samePose(a, b skel.Pose) bool {
	return a.Root == b.Root && slices.Equal(a.Rot, b.Rot)
}

// copyPose copies src into dst, reusing dst's rotations.
func copyPose(dst *skel.Pose, src skel.Pose) {
	dst.Root = src.Root
	dst.Rot = append(dst.Rot[:0], src.Rot...)
}
