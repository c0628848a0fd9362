package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// Options configure a garment simulation. The zero value simulates the
// garments as given with denim, the mass-spring model, implicit Euler, two
// substeps per 30 fps frame, a 3 mm body safety distance, layered
// collisions, the top boundary loop of each piece attached to the body, and
// half a second of settling on the first pose.
type Options struct {
	// Fabric names a preset (cloth.Presets: "denim", "jersey", ...) for every
	// piece; Fabrics overrides it per piece by name prefix ("shirt": ...).
	Fabric  string
	Fabrics map[string]string
	// Model is the cloth model (cloth.MassSpring by default, as wang2010;
	// cloth.WeftWarp is volino-cordier's accurate model).
	Model cloth.Model
	// ModelSet must be true for Model to be used (cloth.WeftWarp is Model's
	// zero value).
	ModelSet bool
	// Integrator is cloth.ImplicitEuler (default) or cloth.BDF2.
	Integrator cloth.Integrator
	// TargetVerts refines the garments (RefinePieces: triangles longer than
	// an edge length are split, red–green) until they hold at least this
	// many vertices in total; 0 keeps them as given.
	TargetVerts int
	// MaxDt is the largest cloth substep, s; 0 means 1/60, and more
	// substeps in frames where the garments' skinned shapes move more than
	// 10 cm (maxSubstepMove).
	MaxDt float64
	// FastSubsteps adds those substeps of fast frames (maxSubstepMove) to
	// a set MaxDt too; without it a set MaxDt alone gives the substeps.
	FastSubsteps bool
	// Thickness is the body safety distance, m; 0 means 3 mm.
	Thickness float64
	// Frictionless turns body friction off.
	Frictionless bool
	// SqueezeFolds makes the body colliders move cloth caught in a closing
	// crease of the body toward its opening (collide.Params.SqueezeFolds).
	SqueezeFolds bool
	// Creases are the joints where the body is flattened where two
	// segments of a bent limb pass into each other (skel.Creaser), in the
	// body the cloth collides with and the one penetration is measured on.
	Creases []skel.Crease `json:",omitempty"`
	// NoLayers turns cloth–cloth collision between pieces off.
	NoLayers bool
	// NoAttach leaves the top boundary loops free. By default each loop
	// (waistband, collar) follows the rigid motion that best fits the body
	// surface points it was bound to at the start.
	NoAttach bool
	// PinStiffness is the stiffness (N/m) of the springs that hold the
	// attached loops to their targets, critically damped per vertex; 0
	// means 3000 N/m (see defaultPinStiffness), negative hard pins.
	PinStiffness float64
	// NoBody turns body collision off (for diagnosis: the garments fall
	// through the body).
	NoBody bool
	// SelfCollide turns on vertex–triangle self-collision repulsion within
	// each piece (collide.SelfCollider, Bridson et al. 2002); off by default.
	SelfCollide bool
	// Settle is the time (s) Run simulates on the first pose before the
	// clip plays; 0 means 0.5 s, negative none (the garments are skinned
	// into the first pose, pushed out of the body and strain-limited).
	Settle float64
	// Workers for the solver and collisions; 0 means GOMAXPROCS. With more
	// than one, the pieces are also stepped concurrently (one goroutine
	// each per substep). Results do not depend on it.
	Workers int
	// CGTol is the relative residual of the implicit solves
	// (cloth.Options.CGTol); 0 means 1e-2. Garments on a body do not need
	// the cloth package's default 1e-3: contacts and the strain limit
	// correct every substep, and on the MakeHuman suit at 25k vertices
	// 1e-2 halves the time per frame.
	CGTol float64
	// SpeedClamp caps cloth vertex speeds (cloth.Options.SpeedClamp), m/s;
	// 0 means, for Run, twice the fastest body vertex over the clip plus
	// 2 m/s, at least 5 m/s, and for a Simulator, whose motion is not
	// known in advance, defaultSpeedClamp; negative none.
	SpeedClamp float64
	// StrainLimit bounds edge elongation (l/L − 1) after every substep;
	// the cloth enforces 0.95 of it (cloth.Options.StrainLimit), leaving
	// room for the collision pushes that follow. 0 means 0.1 for the
	// mass-spring model and weftWarpStrainLimit (0.25) for cloth.WeftWarp;
	// negative none.
	StrainLimit float64
	// StrainLimitRelax over-relaxes the strain limiting sweeps
	// (cloth.Options.StrainLimitRelax, ω in [1, 1.95]); 0 means 1, plain
	// Gauss–Seidel.
	StrainLimitRelax float64
	// BodyProxy is the tolerance (m, mesh.SimplifyOptions.MaxError) of the
	// collision proxy: the cloth collides with the body simplified by
	// quadric edge collapse (its vertices a subset of the body's, skinned
	// with the same weights), which makes skinning, BVH refits and
	// closest-point queries cheaper. Its vertices are then moved out along
	// their normals until the body lies inside it (to 0.1 mm), so the
	// safety distance is kept from the body itself. 0 means a twentieth of
	// the garments' mean edge length, within [1 mm, 5 mm] (a coarse garment
	// cannot follow finer body detail; a tenth gave 0.11 % deep vertex-
	// frames on the unrefined MakeHuman suit, over the 0.1 % target);
	// negative collides with the full body. Penetration statistics are
	// always measured on the full body.
	BodyProxy float64
	// BodyOverlapMinEdge (m) is the shortest median rest edge of a piece
	// that gets a collide.BodyOverlap (body vertices coming through the
	// cloth between its vertices), the longest being bodyOverlapMaxEdge;
	// 0 means no lower bound. Over a body of curvature radius R, the
	// interior of a triangle of edge L whose corners the collider holds at
	// the safety distance h comes closer to the body than its corners by
	// about L²/(8R), so that the body stays out of it while L²/(8R) < h:
	// finer pieces need the hook only where the body is sharper (L < 22 mm
	// for R = 2 cm and h = 3 mm), and where the body overlaps itself (calf
	// and thigh at a deep knee flexion) its pushes can drive the cloth
	// from one limb into the other.
	BodyOverlapMinEdge float64
	// NoBodyOverlap gives no piece a collide.BodyOverlap, whatever its
	// edges.
	NoBodyOverlap bool `json:",omitempty"`
	// PatternRest takes each piece's rest shape from its UVs as metric
	// pattern coordinates (when they are) instead of from the 3D garment in
	// the rest pose. Fitted garments rarely match their pattern exactly
	// (ease, fitting), and a mismatch starts the cloth strained, so by
	// default the rest shape is the 3D garment with the weft along U.
	PatternRest bool
	// FPS is the frame rate of Simulator.Step; 0 means 30. Run takes the
	// clip's.
	FPS float64
	// Root moves the rest pose in which a Simulator's garments start (a
	// skel.Pose.Root displacement, m). Run places it where the clip
	// starts.
	Root geom.Vec3
	// NoPenetration skips measuring penetration on the full body each
	// frame (FrameStats Inside, Deep, MaxDepth, Covered, Through and
	// MaxThrough stay zero): an online loop that does not report it saves
	// the full body's skinning and queries.
	NoPenetration bool
	// KeepTargets records the attached loops' targets of every frame in
	// Result.Targets (for a comparison that drives another simulator's
	// pinned vertices the same way).
	KeepTargets bool
}

// FrameStats describes one simulated frame.
type FrameStats struct {
	Frame int
	// Wall is the wall-clock time to simulate the frame.
	Wall time.Duration
	// CGIterations, Substeps and Retries are summed over the pieces.
	CGIterations, Substeps, Retries int
	// Clamped counts vertex speeds clamped by the solver's safety net
	// (cloth.Options.SpeedClamp), summed over pieces and substeps.
	Clamped int
	// Released and Undone sum, over the pieces' colliders and substeps,
	// the contacts released because they would tear the cloth and the
	// push-outs undone because they would stretch it beyond its limit
	// (collide.Stats Crossed and Undone, and cloth.StepStats.Restored):
	// where they are many, the body's surface is inconsistent (skinning
	// artefacts) and the cloth was let through it.
	Released, Undone int
	// MaxStretch is the largest edge elongation strain (l/L − 1) over the
	// pieces, for both cloth models.
	MaxStretch float64
	// Edges is the number of cloth edges over the pieces, Overstretched
	// those longer than 1.1 times their rest length (strain above 10 %):
	// how widespread the stretch that MaxStretch reports the worst of is.
	Edges, Overstretched int
	// WorstEdge locates the most stretched edge of the frame: its piece
	// and its two vertices in that piece (Piece −1 when none).
	WorstEdge struct {
		Piece int
		A, B  int32
	}
	// KineticEnergy is the garments' kinetic energy, J.
	KineticEnergy float64
	// Inside counts vertices inside the body, Deep those more than 2 mm
	// inside (collide.DeepPenetration); MaxDepth is the deepest, m.
	Inside, Deep int
	MaxDepth     float64
	// Covered counts the full body's vertices that a garment covers,
	// Through those of them more than 2 mm through a garment (between its
	// vertices or not; see collide.Through), and MaxThrough is the largest
	// depth through, m.
	Covered, Through int
	MaxThrough       float64
}

// Result is a simulated garment animation.
type Result struct {
	Pieces []*Piece
	// FPS is the frame rate of Frames.
	FPS float64
	// Frames[p][f] are piece p's vertex positions at frame f.
	Frames [][][]geom.Vec3
	// Stats has one entry per frame (frame 0 is the settled first pose).
	Stats []FrameStats
	// Notes say what the run adjusted (materials, subdivision, initial
	// penetration resolved, interruptions).
	Notes []string
	// Interrupted is true when the context ended the run early; Frames
	// holds the frames done.
	Interrupted bool
	// Targets[p][f] are the targets of piece p's attached loop and pins
	// (in the order of Pieces[p].Attach, then Pins) at the end of frame f,
	// with Options.KeepTargets.
	Targets [][][]geom.Vec3
}

// Progress is called after each frame with the number done and the total.
type Progress func(done, total int)

// weftWarpStrainLimit is the default edge strain limit of the weft/warp
// model. Its triangles resist elongation along the threads with the
// fabric's (stiff) weft and warp curves but shear easily, as fabric does,
// and shear lengthens the edges that are not along a thread: at shear
// strain γ a 45° edge by about γ/2. A 10 % edge limit capped shear at about
// 0.2 and fought the model's own forces: the procedural mannequin's
// garments at their default 3637 vertices came out of the settle with
// edges undone by the hundreds, 5 % of vertex-frames more than 2 mm inside
// the body and 0.5 s per frame, and the MakeHuman suit diverged after
// 1.5 s of the CMU walk. 0.25 allows shear up to about 0.5 (27°, near
// where woven fabric jams): both then run through (0.07 % and 0.06 % deep).
const weftWarpStrainLimit = 0.25

// ErrNoGarments is returned for a scene without garments.
var ErrNoGarments = errors.New("sim: the scene has no garments")

// Run simulates the scene's garments through its clip: a Simulator
// settled into the clip's first pose, then stepped through its frames.
// When ctx ends, Run stops after the current frame and returns the frames
// done with Interrupted set (and no error).
//
// Result's pieces, frames and WorstEdge are in the pieces' own vertex
// order.
func Run(ctx context.Context, s *scene.Scene, opt Options, progress Progress) (*Result, error) {
	var frame FrameFunc
	if progress != nil {
		frame = func(f int, res *Result) error {
			progress(f+1, len(s.Clip.Poses))
			return nil
		}
	}
	return Stream(ctx, s, opt, frame)
}

// FrameFunc is called by Stream after each frame f with the result so far:
// res.Pieces and res.Frames[p][0..f] (and Stats, Targets) are filled. It
// runs on Stream's goroutine before frame f+1 is stepped; it may keep and
// pass on frame f's position slices, which Stream never writes again, but
// must not change them. A non-nil error stops the run and is returned.
type FrameFunc func(f int, res *Result) error

// Stream is Run handing each frame to frame as soon as it is simulated,
// for a consumer that works on the frames while the rest of the clip is
// simulated (refine: the regions of the first frames are refined while the
// coarse run goes on). The frames are those Run gives.
func Stream(ctx context.Context, s *scene.Scene, opt Options, frame FrameFunc) (*Result, error) {
	if len(s.Garments) == 0 {
		return nil, ErrNoGarments
	}
	poses := s.Clip.Poses
	if len(poses) == 0 {
		return nil, errors.New("sim: the clip has no frames")
	}
	fps := s.Clip.FPS
	if !(fps > 0) || fps > 1000 {
		return nil, fmt.Errorf("sim: clip frame rate %g out of range", fps)
	}
	sk := s.Character.Skeleton
	opt.FPS = fps
	if opt.SpeedClamp == 0 {
		opt.SpeedClamp = max(2*maxBodySpeed(s)+2, 5)
	}
	settle := opt.Settle
	if settle == 0 {
		settle = 0.5
	}
	st := settler{time: settle, fps: fps, first: poses[0]}
	if len(poses) > 1 {
		st.v0 = poses[1].Root.Sub(poses[0].Root).Scale(fps)
	}
	opt.Root = poses[0].Root
	if settle > 0 {
		opt.Root = opt.Root.Add(st.offset(0))
	}
	sim, err := New(s.Character, s.Garments, opt)
	if err != nil {
		return nil, err
	}
	defer sim.Close()
	res := &Result{FPS: fps, Pieces: sim.Pieces()}
	frames := len(poses)
	res.Frames = make([][][]geom.Vec3, len(res.Pieces))
	var out Frame
	if opt.KeepTargets {
		res.Targets = make([][][]geom.Vec3, len(res.Pieces))
	}
	record := func(f int) error {
		for i := range res.Frames {
			res.Frames[i] = append(res.Frames[i], out.X[i])
			out.X[i] = nil // the next frame gets its own
			if opt.KeepTargets {
				res.Targets[i] = append(res.Targets[i], slices.Clone(sim.loops.next[i]))
			}
		}
		res.Stats = append(res.Stats, out.Stats)
		if frame != nil {
			return frame(f, res)
		}
		return nil
	}
	start := time.Now()
	if settle > 0 {
		if err := st.run(sim); err != nil {
			return nil, err
		}
	} else if err := sim.placeIn(poses[0]); err != nil {
		return nil, err
	}
	sim.frame = 0
	skin0 := skel.SkinMatrices(sk, poses[0], nil)
	sim.moves.reset(skin0)
	st0 := st.stats
	st0.Wall = time.Since(start)
	if err := sim.measure(skin0, &st0, &out); err != nil {
		return nil, err
	}
	if err := record(0); err != nil {
		res.Notes = sim.runNotes(settle)
		return res, err
	}
	for f := 1; f < frames; f++ {
		if err := ctx.Err(); err != nil {
			res.Interrupted = true
			sim.note("interrupted after %d of %d frames", f, frames)
			break
		}
		if f+1 < frames {
			sim.Ahead(poses[f+1])
		}
		err := sim.Step(ctx, poses[f], &out)
		if err == nil {
			err = record(f)
		}
		if err != nil {
			res.Notes = sim.runNotes(settle)
			return res, err
		}
	}
	res.Notes = sim.runNotes(settle)
	return res, nil
}

// runNotes returns the simulator's notes with what Run adds.
func (s *Simulator) runNotes(settle float64) []string {
	notes := s.Notes()
	if settle > 0 {
		notes = append(notes, fmt.Sprintf("settled %.2f s from the rest pose into the first pose", settle))
	}
	if w := s.wary; w.frames > 0 {
		notes = append(notes, fmt.Sprintf("%d frames stepped in twice the substeps after frames in which the solver clamped vertex speeds", w.frames))
	}
	if f := s.fast; f.frames > 0 {
		notes = append(notes, fmt.Sprintf("fast motion: %d frames stepped in up to %d substeps (the garments, skinned, move up to %.0f cm in a frame; a substep moves them at most %.0f cm)", f.frames, f.most, f.far*100, maxSubstepMove*100))
	}
	return notes
}

// settler is Run's settle phase: the body moves from the rest pose into
// the clip's first pose (smoothstep in time, slerped joints), then holds
// it, while its root accelerates smoothly to the clip's initial velocity
// v0, arriving at the first pose's root at the end (a body that starts
// walking at full speed from rest would hit the cloth with an infinite
// acceleration). The garments start in the rest pose, where they were
// fitted: skinning them straight into a pose crushes them into the body
// where limbs fold (armpits, crotch).
type settler struct {
	time, fps float64
	first     skel.Pose
	v0        geom.Vec3
	stats     FrameStats // summed over the settle's frames
}

// offset is the root's offset from the first pose at settle fraction u:
// v0·T·(u³ − u⁴/2 − 1/2) (velocity v0·smoothstep(u)).
func (st *settler) offset(u float64) geom.Vec3 {
	return st.v0.Scale(st.time * (u*u*u - u*u*u*u/2 - 0.5))
}

// run steps s through the settle.
func (st *settler) run(s *Simulator) error {
	s.bind()
	n := int(math.Ceil(st.time * st.fps))
	move := (n + 1) / 2 // frames of motion; the rest hold the pose
	rest := skel.Pose{Root: s.pose.Root, Rot: slices.Clone(s.pose.Rot)}
	var pose skel.Pose
	t := s.cloths[0].Time
	for k := 1; k <= n; k++ {
		a := math.Min(1, float64(k)/float64(move))
		a = a * a * (3 - 2*a)
		skel.InterpPose(&pose, rest, st.first, a)
		pose.Root = st.first.Root.Add(st.offset(float64(k) / float64(n)))
		s.skin = skel.SkinMatrices(s.sk, pose, s.skin)
		if err := s.advance(pose, s.skin, t, t+1/st.fps, 1/st.fps, 0, &st.stats); err != nil {
			return err
		}
		t += 1 / st.fps
	}
	// The clip starts from its first pose exactly.
	s.body.cur = s.body.skin(skel.SkinMatrices(s.sk, st.first, nil), s.body.cur)
	copyPose(&s.pose, st.first)
	return nil
}

// placeIn skins the garments straight into pose (no settling), pushes
// them out of the body and limits their strain, and binds the attached
// loops there.
func (s *Simulator) placeIn(pose skel.Pose) error {
	skin := skel.SkinMatrices(s.sk, pose, nil)
	b := s.body
	b.cur = b.skin(skin, b.cur)
	b.setup.SetFrame(b.cur)
	for i, p := range s.pieces {
		// Skinned, the garment tears where its weights change fast (the
		// MakeHuman shirt's armpit: a 4 mm edge became 63 mm in the CMU
		// walk's first pose, 1383 % in the first frame), and pushing it
		// out of the body tears it too: push it out, then limit its
		// strain (the first substep's contacts take back what that pulls
		// in).
		x := s.cloths[i].X
		skel.LBS(p.Mesh.Verts, p.Weights, skin, x)
		if _, err := collide.ResolveInitial(x, p.Mesh.Tris, b.setup, s.thick, 20); err != nil {
			return err
		}
		s.cloths[i].LimitStrain()
	}
	s.loops.bind(s.pieces, s.cloths, b.setup, b.cur)
	s.loops.targets(b.cur, s.loops.next)
	copyPose(&s.pose, pose)
	return nil
}

// maxBodySpeed returns the largest speed (m/s) of a body vertex between
// consecutive frames of the clip.
func maxBodySpeed(s *scene.Scene) float64 {
	var prev, cur []geom.Vec3
	vmax := 0.0
	for f, p := range s.Clip.Poses {
		cur = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skel.SkinMatrices(s.Character.Skeleton, p, nil), cur)
		if f > 0 {
			for i := range cur {
				vmax = max(vmax, cur[i].Dist(prev[i])*s.Clip.FPS)
			}
		}
		prev, cur = cur, prev
	}
	return vmax
}

// maxSubstepMove (m) bounds how far the garments' skinned shapes move in a
// default substep: a frame in which they move farther gets more substeps.
// The default (one substep per 1/60 s) was validated on the CMU walk and
// kick, where they move up to 12.5 cm per 30 fps frame (the trouser hems;
// 37 cm in the few frames of the kick's swing); the kick played twice as
// fast (69 cm) left 0.44 % of vertex-frames more than 2 mm inside the body
// at two substeps per frame and 0.10 % at four.
const maxSubstepMove = 0.1

// substepsFor is the number of substeps of at most maxDt that make up dt.
func substepsFor(dt, maxDt float64) int {
	return max(1, int(math.Ceil(dt/maxDt-1e-9)))
}

// maxFastSubsteps caps the substeps of a frame of fast motion: a clip
// whose skeleton jumps (a glitch in the capture) would otherwise ask for
// thousands.
const maxFastSubsteps = 32

// moveSampler measures how far the garments' skinned shapes move between
// consecutive poses, over at most about 4000 of their vertices.
type moveSampler struct {
	samples []moveSample
}

type moveSample struct {
	verts     []geom.Vec3
	w         skel.Weights
	prev, cur []geom.Vec3
	primed    bool
}

func newMoveSampler(pieces []*Piece) *moveSampler {
	n := 0
	for _, p := range pieces {
		n += len(p.Mesh.Verts)
	}
	stride := max(1, n/4000)
	m := &moveSampler{samples: make([]moveSample, len(pieces))}
	for i, p := range pieces {
		var ids []int32
		sp := &m.samples[i]
		for v := 0; v < len(p.Mesh.Verts); v += stride {
			ids = append(ids, int32(v))
			sp.verts = append(sp.verts, p.Mesh.Verts[v])
		}
		sp.w = p.Weights.Subset(ids)
	}
	return m
}

// reset makes the pose skinned by skin the one the next move starts from.
func (m *moveSampler) reset(skin []geom.Rigid) {
	for i := range m.samples {
		sp := &m.samples[i]
		sp.prev = skel.LBS(sp.verts, sp.w, skin, sp.prev)
		sp.primed = true
	}
}

// move returns the largest distance (m) that a sampled vertex moves from
// the last pose to the one skinned by skin (0 for the first), which
// becomes the last.
func (m *moveSampler) move(skin []geom.Rigid) float64 {
	d := 0.0
	for i := range m.samples {
		sp := &m.samples[i]
		sp.cur = skel.LBS(sp.verts, sp.w, skin, sp.cur)
		if sp.primed {
			dd := 0.0
			for k, q := range sp.cur {
				dd = max(dd, q.Dist2(sp.prev[k]))
			}
			d = max(d, math.Sqrt(dd))
		}
		sp.prev, sp.cur, sp.primed = sp.cur, sp.prev, true
	}
	return d
}

// fastMotion counts the frames of fast motion: those whose garments move
// more than maxSubstepMove per default substep.
type fastMotion struct {
	frames, most int
	far          float64
}

// substeps returns the least number of substeps for a frame of length dt
// in which the garments move by d (m), noting fast frames.
func (f *fastMotion) substeps(d, dt, maxDt float64) int {
	n := int(math.Ceil(min(d/maxSubstepMove, maxFastSubsteps) - 1e-9))
	if n > substepsFor(dt, maxDt) {
		f.frames++
		f.most, f.far = max(f.most, n), max(f.far, d)
	}
	return n
}

// waryFrames doubles the substeps of the frames that follow one in which
// the solver clamped vertex speeds (cloth's safety net for contacts it
// could not satisfy: Options.SpeedClamp), for waryTime. Such a frame is a
// sign that the substep is too long for the garment there (fine cloth
// held tight over a curved body, a fold moving fast), and cloth left
// inside the body follows it; a shorter substep resolves those contacts.
// A garment whose solver never clamps is stepped as before.
type waryFrames struct {
	left   int // frames left to double
	frames int // frames doubled so far
}

// waryTime (s) is how long the substeps stay doubled after a clamp.
const waryTime = 0.5

// substeps returns the least number of substeps of the coming frame of
// length dt: twice the default while wary, else 0.
func (w *waryFrames) substeps(dt, maxDt float64) int {
	if w.left == 0 {
		return 0
	}
	w.left--
	w.frames++
	return 2 * substepsFor(dt, maxDt)
}

// after notes the frame just stepped (of length dt), whose solver clamped
// clamped vertex speeds.
func (w *waryFrames) after(clamped int, dt float64) {
	if clamped > 0 {
		w.left = int(math.Ceil(waryTime/dt - 1e-9))
	}
}

// defaultPinStiffness (N/m) holds a waistband or collar vertex to its
// target through a stiff spring instead of a hard pin, so that the strain
// limit can move it: hard pins held a row of 3 mm jeans edges at the small
// of the back at 12–19 % in a quarter of the 25k walk's frames. A 0.5 kg
// garment on 100 such springs sags 17 µm under gravity. Over the whole walk:
// edge-frames above 10 % 913 → 212, the largest strain 78 % → 44 %,
// penetration and layering unchanged. (Session 2 tried 300 and 3000
// N/m with hard layer contacts and a tight limiter budget: no better then.)
const defaultPinStiffness = 3000

// strainMargin scales Options.StrainLimit to the limit the cloth enforces
// (cloth.Options.StrainLimit): collision pushes after the limiter may
// stretch an edge up to the cloth's limit, and the limiter itself stops
// within it, so edges ended at 10.1–10.2 % in a third of the 25k walk's
// frames with the cloth limit at exactly 10 %.
const strainMargin = 0.95

// layerPenalty is the gain of the soft contacts between layers of cloth
// (collide.Params.Penalty). Hard layer contacts held the shirt's vertices
// against the moving jeans where the strain limit needed to move them;
// soft ones let it. With the Overlap pushes limited to the strain limit,
// the per-frame maximum strain of the 25k MakeHuman suit fell from 30 % to
// 12 % (median over 30 walk frames). Over the whole walk (with the strain
// limiter's larger budget for free vertices), gains 10, 30 and 100 give the
// same strain (per-frame maximum: median 9.7 %, p90 17 %) and 0.24 %,
// 0.12 % and 0.09 % of jeans vertex-frames outside the shirt (0.12 % with
// hard contacts; visible as jeans patches through the shirt's hem at 10),
// with 330, 330 and 410 vertex-frames more than 2 mm inside the body.
const layerPenalty = 30

// layerThickness is the safety distance between layers of cloth for a body
// safety distance thick.
func layerThickness(thick float64) float64 { return math.Min(thick, 0.002) }
