package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// SettleOptions say how Simulator.SettleTo moves into a pose and when the
// garments are at rest. Zero fields take the defaults given.
type SettleOptions struct {
	// Transition is the time (s) over which the body moves from its
	// current pose to the target (smoothstep in time, joints slerped);
	// 0 means 0.5 s.
	Transition float64
	// MaxTime is the longest simulated time (s), transition included;
	// 0 means 4 s.
	MaxTime float64
	// KineticEnergy is the rest threshold of the garments' kinetic energy
	// per kilogram, J/kg (half their mean square speed); 0 means 3e-4 (an
	// r.m.s. speed of 2.4 cm/s). Cloth held at the safety distance above
	// the skin buzzes: gravity pulls it in and the contacts push it out by
	// a fraction of a millimetre every substep, which reads as speeds of a
	// few cm/s that never die out (the MakeHuman suit refined to 25k
	// vertices, settled into a pose: r.m.s. 2–3 cm/s, a hundredth of its
	// vertices at 6–30 cm/s, while it moved less than a millimetre).
	KineticEnergy float64
	// Drift is the rest threshold of the garments' motion over the last
	// Hold frames: the 99th percentile of the vertices' displacements over
	// them divided by their duration, m/s (a buzzing vertex comes back, a
	// sliding one does not); 0 means 0.02 (2 mm over 3 frames at 30 fps).
	Drift float64
	// Damping is the fraction of the garments' velocity taken away after
	// each frame that follows the transition (dynamic relaxation: a settle
	// looks for the garments' static shape in the pose, not for how they
	// swing into it, and loose cloth, barely damped, swings for seconds);
	// 0 means 0.5, negative none.
	Damping float64
	// Hold is the number of frames after the transition over which Drift
	// is measured, and that must all meet the KineticEnergy threshold;
	// 0 means 3.
	Hold int
	// Stall is the time, s, after which a settle gives up when the
	// garments hold their shape but do not come to rest: every frame of the
	// last Stall seconds met the Drift threshold, and their lowest kinetic
	// energy per kilogram is above 0.8 of the lowest over the
	// Stall seconds before. Cloth stretched over the body to its strain
	// limit buzzes in place there (the contacts push a band of vertices out,
	// the strain limiting pulls it back in, every substep: on the
	// procedural suit's hip raised 105°, a kinetic energy of
	// 5·10⁻⁴–10⁻² J/kg and vertices at 0.4–2 m/s for three seconds while
	// the 99th percentile of the moves fell under 2 cm/s), and the frames to
	// MaxTime only repeat it. The velocity damping takes three quarters of
	// any free motion's energy a frame, so energy that does not fall over
	// half a second is driven. 0 means 0.5 s; negative never gives up.
	Stall float64
}

// SettleResult says how a settle ended.
type SettleResult struct {
	// Converged is true when the garments came to rest before MaxTime.
	Converged bool
	// Stalled is true when the settle gave up before MaxTime with the
	// garments held in shape but not at rest (SettleOptions.Stall).
	Stalled bool
	// Time is the simulated time, s, and Frames the frames stepped.
	Time   float64
	Frames int
	// KineticEnergy (J/kg) and MaxSpeed (m/s, the fastest vertex) are
	// those of the last frame, Drift (m/s) that of the last Hold frames
	// (see SettleOptions).
	KineticEnergy, MaxSpeed, Drift float64
	// Stats are the last frame's statistics, with the stepping counts
	// (CG iterations, substeps, ...) summed over the settle and Wall its
	// whole time.
	Stats FrameStats
}

func (o *SettleOptions) defaults() error {
	if o.Transition == 0 {
		o.Transition = 0.5
	}
	if o.MaxTime == 0 {
		o.MaxTime = 4
	}
	if o.KineticEnergy == 0 {
		o.KineticEnergy = 3e-4
	}
	if o.Drift == 0 {
		o.Drift = 0.02
	}
	if o.Hold == 0 {
		o.Hold = 3
	}
	if o.Damping == 0 {
		o.Damping = 0.5
	}
	if o.Stall == 0 {
		o.Stall = 0.5
	}
	switch {
	case !(o.Transition >= 0 && o.Transition <= 60):
		return fmt.Errorf("sim: settle transition %g s out of range [0, 60]", o.Transition)
	case !(o.MaxTime > 0 && o.MaxTime <= 600):
		return fmt.Errorf("sim: settle time limit %g s out of range (0, 600]", o.MaxTime)
	case !(o.KineticEnergy > 0) || math.IsInf(o.KineticEnergy, 0):
		return fmt.Errorf("sim: settle kinetic energy threshold %g J/kg must be positive", o.KineticEnergy)
	case !(o.Drift > 0) || math.IsInf(o.Drift, 0):
		return fmt.Errorf("sim: settle drift threshold %g m/s must be positive", o.Drift)
	case !(o.Damping < 1):
		return fmt.Errorf("sim: settle damping %g must be below 1", o.Damping)
	case o.Hold < 0 || o.Hold > 1000:
		return fmt.Errorf("sim: settle hold %d frames out of range [1, 1000]", o.Hold)
	case math.IsNaN(o.Stall) || o.Stall > 600:
		return fmt.Errorf("sim: settle stall window %g s out of range: at most 600 (negative: never)", o.Stall)
	}
	return nil
}

// SettleTo moves the body from its current pose (the rest pose after New)
// into pose over opt.Transition and holds it until the garments are at
// rest (their kinetic energy per kilogram below its threshold for
// opt.Hold frames, over which they drift less than opt.Drift), they hold
// their shape without coming to rest (opt.Stall), or opt.MaxTime has
// passed, and fills out (may be nil) with the final positions and
// statistics. A settle that does not converge is not an error: the result
// says so. When ctx ends, SettleTo returns its error after the current
// frame.
func (s *Simulator) SettleTo(ctx context.Context, pose skel.Pose, opt SettleOptions, out *Frame) (SettleResult, error) {
	var res SettleResult
	if err := opt.defaults(); err != nil {
		return res, err
	}
	if err := s.checkPose(pose); err != nil {
		return res, err
	}
	start := time.Now()
	s.bind()
	from := skel.Pose{Root: s.pose.Root, Rot: slices.Clone(s.pose.Rot)}
	move := int(math.Ceil(opt.Transition/s.dt - 1e-9))
	limit := max(move+1, int(math.Ceil(opt.MaxTime/s.dt-1e-9)))
	mass := s.totalMass()
	var cur skel.Pose
	st := &res.Stats
	calm := 0
	win := newDriftWindow(s.cloths, opt.Hold)
	stall := newStallWatch(opt.Stall, s.dt, limit-move+1)
	for k := 1; k <= limit; k++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		a := 1.0
		if k < move {
			a = float64(k) / float64(move)
			a = a * a * (3 - 2*a)
		}
		skel.InterpPose(&cur, from, pose, a)
		if a == 1 {
			copyPose(&cur, pose)
		}
		s.skin = skel.SkinMatrices(s.sk, cur, s.skin)
		t0 := s.cloths[0].Time
		if err := s.advance(cur, s.skin, t0, t0+s.dt, s.dt, 0, st); err != nil {
			return res, err
		}
		res.Frames = k
		ke, vmax := s.motion()
		res.KineticEnergy, res.MaxSpeed = ke/mass, vmax
		if k < move {
			continue
		}
		if opt.Damping > 0 {
			s.damp(1 - opt.Damping)
		}
		drift, full := win.add(s.cloths)
		if full {
			res.Drift = drift / (float64(opt.Hold) * s.dt)
		}
		still := full && res.Drift <= opt.Drift
		if res.KineticEnergy > opt.KineticEnergy {
			calm = 0
		} else if calm++; calm >= opt.Hold && still {
			res.Converged = true
			break
		}
		if stall.add(res.KineticEnergy, still) {
			res.Stalled = true
			break
		}
	}
	res.Time = float64(res.Frames) * s.dt
	s.moves.reset(s.skin)
	s.frame++
	st.Frame = s.frame
	st.Wall = time.Since(start)
	err := s.measure(s.skin, st, out)
	return res, err
}

// stallRatio is the factor by which the garments' lowest kinetic energy
// must fall from one stall window to the next for a settle to go on
// (SettleOptions.Stall).
const stallRatio = 0.8

// stallWatch tells when a settle's garments hold their shape without
// coming to rest (SettleOptions.Stall).
type stallWatch struct {
	w     int       // frames per window; 0 never gives up
	ke    []float64 // kinetic energy per kilogram of the frames after the transition, J/kg
	still int       // consecutive frames that met the drift threshold
}

func newStallWatch(stall, dt float64, frames int) stallWatch {
	if stall < 0 {
		return stallWatch{}
	}
	w := max(1, int(math.Ceil(stall/dt-1e-9)))
	return stallWatch{w: w, ke: make([]float64, 0, frames)}
}

// add records a frame's kinetic energy per kilogram and whether it met the
// drift threshold, and reports whether the settle has stalled.
func (sw *stallWatch) add(ke float64, still bool) bool {
	if sw.w == 0 {
		return false
	}
	sw.ke = append(sw.ke, ke)
	if still {
		sw.still++
	} else {
		sw.still = 0
	}
	n := len(sw.ke)
	if sw.still < sw.w || n < 2*sw.w {
		return false
	}
	return slices.Min(sw.ke[n-sw.w:]) > stallRatio*slices.Min(sw.ke[n-2*sw.w:n-sw.w])
}

// damp scales the garments' velocities by f.
func (s *Simulator) damp(f float64) {
	for _, c := range s.cloths {
		for i := range c.V {
			c.V[i] = c.V[i].Scale(f)
		}
	}
}

// totalMass returns the garments' mass, kg.
func (s *Simulator) totalMass() float64 {
	m := 0.0
	for _, c := range s.cloths {
		for _, w := range c.Mass {
			m += w
		}
	}
	return m
}

// motion returns the garments' kinetic energy (J) and their fastest
// vertex's speed (m/s).
func (s *Simulator) motion() (ke, vmax float64) {
	v2 := 0.0
	for _, c := range s.cloths {
		ke += c.KineticEnergy()
		for _, v := range c.V {
			v2 = max(v2, v.Len2())
		}
	}
	return ke, math.Sqrt(v2)
}

// driftWindow keeps the garments' positions over the last frames of a
// settle, to measure how far they moved over them.
type driftWindow struct {
	snaps [][]geom.Vec3 // ring of flat position snapshots, oldest at next
	next  int
	n     int
	d     []float64
}

func newDriftWindow(cloths []*cloth.Cloth, hold int) *driftWindow {
	n := 0
	for _, c := range cloths {
		n += len(c.X)
	}
	w := &driftWindow{snaps: make([][]geom.Vec3, hold+1), d: make([]float64, n)}
	for k := range w.snaps {
		w.snaps[k] = make([]geom.Vec3, n)
	}
	return w
}

// add records the cloths' positions and returns the 99th percentile of
// the vertices' displacements (m) since len(snaps)−1 frames ago, and
// whether that many frames have been recorded.
func (w *driftWindow) add(cloths []*cloth.Cloth) (float64, bool) {
	cur := w.snaps[w.next]
	cur = cur[:0]
	for _, c := range cloths {
		cur = append(cur, c.X...)
	}
	w.next = (w.next + 1) % len(w.snaps)
	w.n++
	if w.n < len(w.snaps) {
		return 0, false
	}
	old := w.snaps[w.next]
	for i, p := range cur {
		w.d[i] = p.Dist(old[i])
	}
	slices.Sort(w.d)
	return w.d[len(w.d)*99/100], true
}

// StartFrom places the garments at x, one slice per piece in the piece's
// own vertex order (as Positions gives them), at rest (zero velocities):
// the shape another simulator of the same Prepared settled into in the
// pose this one starts in (the rest pose after New). It must come before
// the first Step or SettleTo; the error names the piece or vertex at fault.
func (s *Simulator) StartFrom(x [][]geom.Vec3) error {
	if s.frame != 0 || s.loops.bound {
		return fmt.Errorf("sim: StartFrom after the simulation started (frame %d)", s.frame)
	}
	if err := s.checkStart("StartFrom", x); err != nil {
		return err
	}
	for i := range s.cloths {
		s.placePiece(i, x[i])
	}
	return nil
}

// StartPosed places the body in pose and the garments at x, one slice per
// piece in the piece's own vertex order, at rest (zero velocities): the
// shape the garments take in pose, found elsewhere (a coarser refinement
// of the same garments settled into pose and carried over to these
// pieces). A following SettleTo into the same pose starts from there with
// no body motion. The attached loops and pins are bound to the body where
// it is now (the rest pose after New, with the garments where StartFrom
// put them), as a settle from that state binds them, and their vertices
// are placed on their targets in pose, and x is strain limited.
//
// x is not pushed out of the body: the settle's colliders take the
// vertices a coarser shape leaves a chord's sag inside out within its
// first substeps, with their safeguards where the skinned body folds
// onto itself. A whole-garment push-out (collide.ResolveInitial, as
// Prepare pushes the fitted garment) would move cloth caught in a fold
// along the normal of whichever surface is nearest, often that of the
// limb pressed into the other one, deeper into the body, and its passes
// over the whole garment cost about a fifth of a wrinkle sample's fine
// stage. Nor is x pushed out of the inner pieces: in a posed body their
// open surfaces fold, and the side a vertex is on is not known (pushed
// out of the trousers of a hip flexed 75°, a third of the MakeHuman
// shirt ended up inside the body); x is taken to keep the layers apart as
// it came.
//
// It must come before the first Step or SettleTo; x is not modified; the
// error names the piece or vertex at fault.
func (s *Simulator) StartPosed(pose skel.Pose, x [][]geom.Vec3) error {
	if s.frame != 0 || s.loops.bound {
		return fmt.Errorf("sim: StartPosed after the simulation started (frame %d)", s.frame)
	}
	if err := s.checkPose(pose); err != nil {
		return err
	}
	if err := s.checkStart("StartPosed", x); err != nil {
		return err
	}
	s.bind()
	b := s.body
	s.skin = skel.SkinMatrices(s.sk, pose, s.skin)
	b.cur = b.skin(s.skin, b.cur)
	b.setup.SetFrame(b.cur)
	s.loops.targets(b.cur, s.loops.prev)
	for i, c := range s.cloths {
		s.placePiece(i, x[i])
		pc := s.pieces[i]
		for j, v := range slices.Concat(pc.Attach, pc.Pins) {
			c.X[v] = s.loops.prev[i][j]
		}
		c.LimitStrain()
	}
	s.moves.reset(s.skin)
	copyPose(&s.pose, pose)
	return nil
}

// checkStart checks that x, given to the start function fn, has one slice
// per piece of the piece's vertex count, all finite.
func (s *Simulator) checkStart(fn string, x [][]geom.Vec3) error {
	if len(x) != len(s.cloths) {
		return fmt.Errorf("sim: %s has %d pieces, the simulator %d", fn, len(x), len(s.cloths))
	}
	for i, c := range s.cloths {
		if len(x[i]) != len(c.X) {
			return fmt.Errorf("sim: %s piece %d (%s) has %d vertices, the simulator %d", fn, i, s.pieces[i].Name, len(x[i]), len(c.X))
		}
		for v, p := range x[i] {
			if !p.IsFinite() {
				return fmt.Errorf("sim: %s piece %d (%s) vertex %d is not finite", fn, i, s.pieces[i].Name, v)
			}
		}
	}
	return nil
}

// placePiece puts piece i's cloth at x (the piece's own vertex order) with
// zero velocities.
func (s *Simulator) placePiece(i int, x []geom.Vec3) {
	c, o := s.cloths[i], s.pieces[i].order
	for k := range c.X {
		v := k
		if o != nil {
			v = int(o.perm[k])
		}
		c.X[k] = x[v]
		c.V[k] = geom.Vec3{}
	}
}
