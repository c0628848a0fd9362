package resynth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/workpool"
)

// Options set up resynthesis. The zero value means the defaults given.
type Options struct {
	// VelWeight λ weighs the velocity term of the matching cost, seconds
	// (default 0.1 s: a joint moving 1 m/s faster counts as 0.1 m).
	VelWeight float64
	// Jump is the penalty of a transition to a frame other than the next
	// one of the same clip, in cost units (metres; default 0.5), on top of
	// the matching cost between the two frames.
	Jump float64
	// Skip is the penalty for repeating or dropping one frame (default
	// 0.05); negative means 0.
	Skip float64
	// Neighbours is the number of nearest database frames a transition may
	// jump to (default 32).
	Neighbours int
	// ClothWeight weighs the cloth's change of state across a transition
	// (the root-mean-square distance, in metres, between the two frames'
	// garments carried back to the rest pose) in the transition cost;
	// default 10, negative means 0 (the paper's skeleton-only cost).
	ClothWeight float64
	// ConstraintWeight is the weight of the joint-nearest vertices' targets
	// in Eq. P1 relative to the Laplacian's mean diagonal (default 10).
	ConstraintWeight float64
	// Window is the number of frames (odd) over which the blends are
	// averaged around a transition between blocks (default DefaultWindow,
	// the paper's 5); 1 means no smoothing.
	Window int
	// AnchorWeight is the weight, relative to the Laplacian's mean
	// diagonal, of a soft target for every other vertex: its database
	// position carried rigidly by its heaviest joint, as the constrained
	// vertices are (default 0: none, the paper's joint-nearest
	// constraints alone). Meant to keep errors in transferred gradients
	// from adding up along a sleeve or a trouser leg; on the MakeHuman
	// suit's leave-one-out it changed nothing at 0.05 and cost 1 mm at 1.
	AnchorWeight float64
	// Fallback σ (metres of matching cost; default 0: off) blends each
	// frame towards the garment's rest shape skinned to the pose, with
	// weight 1 − exp(−(c/σ)²) for the frame's matching cost c (smoothed
	// over ±5 frames): where no database frame is near the motion, the
	// transferred deformation is an extrapolation (paper: "Matching Cost")
	// and the skinned rest shape may be the better guess. Off by default:
	// the matching cost does not single out the motions that skinning
	// serves better (a clip's mean cost is as high where the database
	// wins by a third as where it loses), so any σ that helps those
	// costs the others more.
	Fallback float64
	// Smooth σ (frames; default DefaultSmooth, negative: off) is the
	// width of the Gaussian with which the reconstructed garment's
	// dynamics (its offset from the skinned rest garment) are averaged in
	// time (smooth.go), so that the cloth moves no faster than the source
	// clips' cloth did.
	Smooth float64
	// Post, when set, is called on each reconstructed frame in order (on
	// the goroutine that called Run) with the motion's joint transforms,
	// and may change the positions: for instance to push the garment out
	// of the skinned body, which the reconstruction does not see.
	Post func(frame int, joints []geom.Rigid, x []geom.Vec3) error
	// Workers is the number of goroutines (default runtime.NumCPU()).
	// Results do not depend on it.
	Workers int
}

func (o *Options) defaults() {
	if o.VelWeight == 0 {
		o.VelWeight = 0.1
	}
	if o.Jump == 0 {
		o.Jump = 0.5
	}
	if o.Skip == 0 {
		o.Skip = 0.05
	}
	if o.Skip < 0 {
		o.Skip = 0
	}
	if o.Neighbours == 0 {
		o.Neighbours = 32
	}
	if o.ClothWeight == 0 {
		o.ClothWeight = 10
	}
	if o.ClothWeight < 0 {
		o.ClothWeight = 0
	}
	if o.ConstraintWeight == 0 {
		o.ConstraintWeight = 10
	}
	if o.AnchorWeight < 0 {
		o.AnchorWeight = 0
	}
	if o.Smooth == 0 {
		o.Smooth = DefaultSmooth
	}
	if o.Smooth < 0 {
		o.Smooth = 0
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
}

func (o *Options) check() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"VelWeight", o.VelWeight}, {"Jump", o.Jump}, {"Skip", o.Skip}, {"ClothWeight", o.ClothWeight}, {"ConstraintWeight", o.ConstraintWeight}, {"AnchorWeight", o.AnchorWeight}, {"Fallback", o.Fallback}, {"Smooth", o.Smooth}} {
		if !(v.x >= 0 && v.x < 1e6) {
			return fmt.Errorf("resynth: option %s %g out of range [0, 1e6)", v.name, v.x)
		}
	}
	if o.Smooth > 30 {
		return fmt.Errorf("resynth: option Smooth %g frames over 30", o.Smooth)
	}
	if o.Window < 1 || o.Window > 121 || o.Window%2 == 0 {
		return fmt.Errorf("resynth: option Window %d: want an odd number of frames from 1 to 121", o.Window)
	}
	if o.Neighbours < 1 || o.Neighbours > 4096 {
		return fmt.Errorf("resynth: option Neighbours %d out of range [1, 4096]", o.Neighbours)
	}
	return nil
}

// Synth resynthesises garment animation from a database. It is built once
// per database (New: features, nearest neighbours, the factored Poisson
// system) and run on any number of motions; Run is not safe for
// concurrent use.
type Synth struct {
	db     *DB
	opt    Options
	fs     *features
	ix     *index
	ts     []triSkin
	vinv   []geom.Mat3 // rest edge matrices inverted
	cons   []int32     // constrained vertices: joint-nearest, then anchors
	cjnt   []int32     // the joint each follows
	njc    int         // the number of joint-nearest ones
	rest   *local      // the rest shape as a database frame (offsets only)
	fc     *frameCache // database frames' polar factors, on first use
	restQ  []float32   // the rest frame's: identity rotations
	restS  []float32   // and unit stretches
	sys    *poisson
	pool   *workpool.Pool
	fps    float64
	nverts int
}

// ErrEmpty is returned for a database without frames.
var ErrEmpty = errors.New("resynth: the database has no frames")

// New prepares db for resynthesis. db must not change afterwards.
func New(db *DB, opt Options) (*Synth, error) {
	opt.defaults()
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := db.Validate(); err != nil {
		return nil, err
	}
	if db.NumFrames() == 0 {
		return nil, ErrEmpty
	}
	fps := db.Clips[0].FPS
	for _, c := range db.Clips {
		if math.Abs(c.FPS-fps) > 1e-6*fps {
			return nil, fmt.Errorf("resynth: clip %s is at %g frames/s, clip %s at %g: resample them to one rate", c.Name, c.FPS, db.Clips[0].Name, fps)
		}
	}
	g := &db.Garment
	s := &Synth{db: db, opt: opt, fps: fps, nverts: len(g.Rest), pool: workpool.New(opt.Workers)}
	s.fs = newFeatures(&db.Rig, g)
	if len(s.fs.joints) == 0 {
		return nil, fmt.Errorf("resynth: no joint of the rig moves the garment (skin weights)")
	}
	s.ix = newIndex(db, s.fs, opt.VelWeight, opt.Neighbours, s.pool)
	if opt.ClothWeight > 0 {
		desc, dim := clothDescriptors(db, s.ix, s.pool)
		s.ix.addClothCost(desc, dim, opt.ClothWeight, s.pool)
	}
	s.ts = triSkins(g.Tris, g.Weights)
	s.vinv = make([]geom.Mat3, len(g.Tris))
	for t, tri := range g.Tris {
		m := edgeMatrix(g.Rest[tri[0]], g.Rest[tri[1]], g.Rest[tri[2]])
		inv, ok := m.Inverse()
		if !ok || !(math.Abs(m.Det()) > 1e-18) {
			return nil, fmt.Errorf("resynth: garment triangle %d %v is degenerate in the rest shape", t, tri)
		}
		s.vinv[t] = inv
	}
	s.cons, s.cjnt = constraints(&db.Rig, g)
	s.njc = len(s.cons)
	cw := make([]float64, len(s.cons))
	for k := range cw {
		cw[k] = opt.ConstraintWeight
	}
	if opt.AnchorWeight > 0 {
		held := make([]bool, len(g.Rest))
		for _, v := range s.cons {
			held[v] = true
		}
		for v := range g.Rest {
			if !held[v] {
				s.cons = append(s.cons, int32(v))
				s.cjnt = append(s.cjnt, heaviest(g, v))
				cw = append(cw, opt.AnchorWeight)
			}
		}
	}
	s.rest = &local{}
	for _, v := range s.cons {
		s.rest.o = append(s.rest.o, g.Rest[v])
	}
	var err error
	s.sys, err = newPoisson(g.Rest, g.Tris, s.cons, cw)
	if err != nil {
		return nil, err
	}
	nt := len(g.Tris)
	s.fc = newFrameCache(s.ix.n(), nt, len(s.cons))
	s.restQ, s.restS = make([]float32, 4*nt), make([]float32, 6*nt)
	for t := 0; t < nt; t++ {
		s.restQ[4*t] = 1
		s.restS[6*t], s.restS[6*t+1], s.restS[6*t+2] = 1, 1, 1
	}
	return s, nil
}

// Close stops the worker goroutines.
func (s *Synth) Close() { s.pool.Stop() }

// Constraints returns the constrained vertices and the joint each follows.
func (s *Synth) Constraints() (verts, joints []int32) { return s.cons[:s.njc], s.cjnt[:s.njc] }

// heaviest returns the joint with the largest skin weight on vertex v
// (the first of equals; 0 for none).
func heaviest(g *Garment, v int) int32 {
	js, ws := g.Weights.Influences(v)
	best, j := float32(-1), int32(0)
	for i := range js {
		if ws[i] > best {
			best, j = ws[i], js[i]
		}
	}
	return j
}

// FPS returns the database's frame rate.
func (s *Synth) FPS() float64 { return s.fps }

// Step is one output frame's place in the database.
type Step struct {
	// Clip and Frame name the database frame the path chose.
	Clip  string
	Frame int
	// Index is the smoothed, fractional frame index within Clip.
	Index float64
	// Cost is the matching cost of the chosen frame (metres).
	Cost float64
}

// Timing says where Run spent its time. Reconstruct includes the polar
// decomposition of the database frames that this Run uses first (the
// Synth keeps them for later runs).
type Timing struct {
	Match, Viterbi, Reconstruct, Smooth, Post time.Duration
}

// Result is a resynthesised garment animation.
type Result struct {
	// Frames[f] are the garment's vertex positions at frame f, metres.
	Frames [][]geom.Vec3
	Steps  []Step
	// Blocks are the lengths of the path's blocks (runs within one clip
	// stepping 0, 1 or 2 frames), in order.
	Blocks []int
	Timing Timing
}

// Progress is called as frames are reconstructed, with the number done.
type Progress func(done, total int)

// Run resynthesises the garment for a motion given as world joint
// transforms per frame (on the database's rig) at frame rate fps, which
// must be the database's.
func (s *Synth) Run(ctx context.Context, joints [][]geom.Rigid, fps float64, progress Progress) (*Result, error) {
	nt := len(joints)
	if nt == 0 {
		return nil, errors.New("resynth: the motion has no frames")
	}
	if math.Abs(fps-s.fps) > 1e-6*s.fps {
		return nil, fmt.Errorf("resynth: the motion is at %g frames/s, the database at %g: resample it", fps, s.fps)
	}
	nj := s.db.Rig.NumJoints()
	for f, js := range joints {
		if len(js) != nj {
			return nil, fmt.Errorf("resynth: motion frame %d has %d joints, the rig %d", f, len(js), nj)
		}
		for j := range js {
			if !rigidOK(js[j]) {
				return nil, fmt.Errorf("resynth: motion frame %d joint %d (%s): transform not finite", f, j, s.db.Rig.Names[j])
			}
		}
	}
	res := &Result{}
	t0 := time.Now()
	tpos, tvel := s.fs.compute(joints, fps)
	u := s.ix.unary(tpos, tvel, nt, s.pool)
	t1 := time.Now()
	path, err := s.ix.viterbi(ctx, u, nt, s.opt.Jump, s.opt.Skip)
	if err != nil {
		return nil, err
	}
	t2 := time.Now()
	blends, frac := s.ix.resample(path, s.opt.Window)
	_, res.Blocks = s.ix.blocks(path)
	n := s.ix.n()
	for t, i := range path {
		c := s.ix.clipOf[i]
		res.Steps = append(res.Steps, Step{Clip: s.db.Clips[c].Name, Frame: int(s.ix.local[i]), Index: frac[t] - float64(s.ix.start[c]), Cost: u[t*n+int(i)]})
	}
	if s.opt.Fallback > 0 {
		s.fallback(blends, res.Steps)
	}
	res.Frames, err = s.reconstruct(ctx, blends, joints, progress)
	if err != nil {
		return nil, err
	}
	t3 := time.Now()
	s.smoothResidual(res.Frames, joints, s.opt.Smooth)
	t4 := time.Now()
	if s.opt.Post != nil {
		for f, x := range res.Frames {
			if err := s.opt.Post(f, joints[f], x); err != nil {
				return nil, fmt.Errorf("resynth: frame %d: %w", f, err)
			}
		}
	}
	res.Timing = Timing{Match: t1.Sub(t0), Viterbi: t2.Sub(t1), Reconstruct: t3.Sub(t2), Smooth: t4.Sub(t3), Post: time.Since(t4)}
	return res, nil
}

// fallback blends every frame towards the rest frame (index restFrame)
// by 1 − exp(−(c/σ)²) of its matching cost c averaged over ±indexRadius
// frames.
func (s *Synth) fallback(blends [][]blend, steps []Step) {
	nt := len(blends)
	for t := range blends {
		lo, hi := max(t-indexRadius, 0), min(t+indexRadius, nt-1)
		c := 0.0
		for u := lo; u <= hi; u++ {
			c += steps[u].Cost
		}
		c /= float64(hi - lo + 1)
		a := math.Exp(-(c / s.opt.Fallback) * (c / s.opt.Fallback))
		if a > 0.999 {
			continue
		}
		b := make([]blend, 0, len(blends[t])+1)
		for _, x := range blends[t] {
			b = append(b, blend{x.frame, x.w * a})
		}
		blends[t] = append(b, blend{restFrame, 1 - a})
	}
}

// restFrame is the blend index of the garment's rest shape.
const restFrame = -1

// local is a database frame in the triangles' skinned frames: L = Q⁻¹·F
// per triangle, and each constrained vertex in its joint's rest frame.
type local struct {
	l []geom.Mat3
	o []geom.Vec3
}

// computeLocal fills dst with database frame i.
func (s *Synth) computeLocal(i int32, dst *local, x []geom.Vec3, skin []geom.Rigid) ([]geom.Vec3, []geom.Rigid) {
	c := &s.db.Clips[s.ix.clipOf[i]]
	f := int(s.ix.local[i])
	x = c.Frame(f, s.nverts, x)
	skin = s.db.Rig.SkinTransforms(c.Joints[f], skin)
	nt := len(s.vinv)
	if len(dst.l) != nt {
		dst.l, dst.o = make([]geom.Mat3, nt), make([]geom.Vec3, len(s.cons))
	}
	for t, tri := range s.db.Garment.Tris {
		fm := edgeMatrix(x[tri[0]], x[tri[1]], x[tri[2]]).Mul(s.vinv[t]) // Eq. G1
		dst.l[t] = s.ts[t].rotation(skin).Conj().Mat3().Mul(fm)
	}
	for k, v := range s.cons {
		dst.o[k] = skin[s.cjnt[k]].Inverse().Apply(x[v])
	}
	return x, skin
}

// reconstruct builds every output frame from its blend of database
// frames, in parallel over chunks of frames.
func (s *Synth) reconstruct(ctx context.Context, blends [][]blend, joints [][]geom.Rigid, progress Progress) ([][]geom.Vec3, error) {
	nt := len(blends)
	out := make([][]geom.Vec3, nt)
	var done atomic.Int64
	var failed atomic.Bool
	const chunk = 16
	s.prepare(blends)
	s.pool.Run(nt, chunk, func(lo, hi int) {
		w := newWorker(s)
		for t := lo; t < hi; t++ {
			if failed.Load() || ctx.Err() != nil {
				failed.Store(true)
				return
			}
			out[t] = w.frame(blends[t], joints[t])
			if progress != nil {
				progress(int(done.Add(1)), nt)
			}
		}
	})
	if failed.Load() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("resynth: reconstruction stopped")
	}
	return out, nil
}

// worker holds one goroutine's scratch space.
type worker struct {
	s    *Synth
	skin []geom.Rigid
	f    []geom.Mat3
	y    []geom.Vec3
	b    []float64
	o    [][]geom.Vec3
	fq   [][]float32 // each blended frame's rotations
	fs   [][]float32 // and stretches
}

func newWorker(s *Synth) *worker {
	return &worker{s: s, f: make([]geom.Mat3, len(s.vinv)), y: make([]geom.Vec3, len(s.cons)), b: make([]float64, 3*s.nverts)}
}

// frame reconstructs one output frame: each triangle's gradient is the
// blend of the database frames' polar factors (rotations by the log map
// about the heaviest frame's, which for two frames is slerp; stretch
// linearly), carried by the new pose's skinned frame (F' = Q'·R·S).
func (w *worker) frame(bl []blend, joints []geom.Rigid) []geom.Vec3 {
	s := w.s
	ref := 0
	w.o, w.fq, w.fs = w.o[:0], w.fq[:0], w.fs[:0]
	for k, b := range bl {
		if b.w > bl[ref].w {
			ref = k
		}
		if b.frame == restFrame {
			w.o, w.fq, w.fs = append(w.o, s.rest.o), append(w.fq, s.restQ), append(w.fs, s.restS)
		} else {
			s.ensure(b.frame)
			w.o = append(w.o, s.fc.offsets(b.frame))
			w.fq, w.fs = append(w.fq, s.fc.frameQuats(b.frame)), append(w.fs, s.fc.frameStretch(b.frame))
		}
	}
	w.skin = s.db.Rig.SkinTransforms(joints, w.skin)
	rq, rs, wr := w.fq[ref], w.fs[ref], bl[ref].w
	for t := range w.f {
		qr, st := quat32(rq[4*t:4*t+4:4*t+4]), sym32(rs[6*t:6*t+6:6*t+6])
		if len(bl) > 1 {
			var v geom.Vec3
			for c := range st {
				st[c] *= wr
			}
			qc := qr.Conj()
			for k, b := range bl {
				if k == ref {
					continue
				}
				// Not renormalised: quatLog does not depend on |q|.
				fq := w.fq[k][4*t : 4*t+4 : 4*t+4]
				q := geom.Quat{W: float64(fq[0]), X: float64(fq[1]), Y: float64(fq[2]), Z: float64(fq[3])}
				sk := w.fs[k][6*t : 6*t+6 : 6*t+6]
				v = v.Add(quatLog(qc.Mul(q)).Scale(b.w))
				for c := range st {
					st[c] += b.w * float64(sk[c])
				}
			}
			qr = qr.Mul(quatExp(v))
		}
		w.f[t] = s.ts[t].rotation(w.skin).Mul(qr).Mat3().Mul(st.mat())
	}
	for k := range s.cons {
		var o geom.Vec3
		for i, b := range bl {
			o = o.Add(w.o[i][k].Scale(b.w))
		}
		w.y[k] = w.skin[s.cjnt[k]].Apply(o)
	}
	s.sys.rhs(w.b, w.f, w.y)
	x := make([]geom.Vec3, s.nverts)
	s.sys.solve(w.b, x)
	return x
}
