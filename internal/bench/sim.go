package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"time"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// Case names for SimOptions.Cases.
const (
	// CaseWalk is the MakeHuman character walking (CMU 02_01) in
	// male_casualsuit02, refined to SimOptions.Verts.
	CaseWalk = "walk"
	// CaseCoarse is the procedural mannequin walking in its procedural shirt
	// and trousers at SimOptions.CoarseVerts (no subdivision).
	CaseCoarse = "coarse"
)

// SimOptions configure SimBench. The zero value runs both cases for 60
// frames at 30 fps with denim, pleat's default substeps (1/60 s) and 3 mm
// body distance, and Blender when it is on the PATH.
type SimOptions struct {
	// Assets is the shared assets folder (with makehuman/ and mocap/), as
	// $PLEAT_ASSETS; the walk case fails without it.
	Assets string
	// Cases to run (CaseWalk, CaseCoarse); nil means both.
	Cases []string
	// Frames is the number of 30 fps clip frames simulated, including frame
	// 0 (the settled first pose, not timed); 0 means 60.
	Frames int
	// Verts is the garment vertex count asked of the walk case (adaptive
	// refinement, sim.RefinePieces: at or a few per cent above it); 0 means
	// 25000.
	Verts int
	// CoarseVerts is the procedural garments' resolution; 0 means 700.
	CoarseVerts int
	// Fabric is the preset of every garment; "" means denim.
	Fabric string
	// Blender is the blender executable; "" means "blender" on the PATH.
	Blender string
	// NoBlender skips the Blender side.
	NoBlender bool
	// BlenderQuality is the cloth quality (steps per frame) of Blender's
	// first run, the one reported as Blender's default; 0 means Blender's
	// own default, BlenderDefaultQuality.
	BlenderQuality int
	// MaxQuality caps the quality search (see SimCase.Search); 0 means
	// 20 steps per frame.
	MaxQuality int
	// NoSearch runs Blender at BlenderQuality only.
	NoSearch bool
	// Substeps is pleat's cloth substeps per frame; 0 means sim's default
	// (one per 1/60 s: 2 at 30 fps).
	Substeps int
	// WorkDir keeps the files exchanged with Blender there; "" uses a
	// temporary folder, removed afterwards.
	WorkDir string
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

func (o *SimOptions) defaults() {
	if o.Cases == nil {
		o.Cases = []string{CaseWalk, CaseCoarse}
	}
	if o.Frames == 0 {
		o.Frames = 60
	}
	if o.Verts == 0 {
		o.Verts = 25000
	}
	if o.CoarseVerts == 0 {
		o.CoarseVerts = 700
	}
	if o.Fabric == "" {
		o.Fabric = "denim"
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.BlenderQuality == 0 {
		o.BlenderQuality = BlenderDefaultQuality
	}
	if o.MaxQuality == 0 {
		o.MaxQuality = 20
	}
}

// BlenderDefaultQuality is the cloth modifier's default steps per frame
// (ClothSettings.quality in Blender 2.8 to 4.x).
const BlenderDefaultQuality = 5

// thickness is the body safety distance of both sides, m (sim's default).
const thickness = 0.003

// FPS is the frame rate of every case.
const FPS = 30

// SimReport is the result of SimBench.
type SimReport struct {
	GOMAXPROCS, NumCPU int
	GoVersion          string
	Cases              []*SimCase
}

// SimCase is one benchmark scene run by pleat and, when available, by
// Blender.
type SimCase struct {
	Name  string
	Scene string
	// Verts, Tris and Pins describe the simulated garment (all pieces);
	// BodyVerts and BodyTris the character's body, on which penetration is
	// scored; ProxyVerts and ProxyTris pleat's collision proxy, which both
	// sides collide with.
	Verts, Tris, Pins     int
	BodyVerts, BodyTris   int
	ProxyVerts, ProxyTris int
	// Frames is the number of frames asked (including frame 0); FPS their
	// rate; Substeps pleat's cloth substeps per frame.
	Frames   int
	FPS      float64
	Substeps int
	Pleat    Side
	// Blender is Blender at SimOptions.BlenderQuality steps per frame (its
	// default, 5, unless asked otherwise).
	Blender Side
	// Ratio is Blender's median time per frame over pleat's, both measured
	// in this run; NetRatio uses Blender's time less its frame-update
	// overhead (Side.Overhead). 0 when a side is missing.
	Ratio, NetRatio float64
	// Search lists Blender's runs in the order the quality search made
	// them (the first is Blender above). Matched is the fewest steps per
	// frame found at which Blender's max strain and deep penetrations are
	// at most pleat's, 0 when none up to SimOptions.MaxQuality is;
	// BlenderMatched is that run and MatchedRatio, MatchedNetRatio its
	// ratios as above.
	Search                        []QualityTry
	Matched                       int
	BlenderMatched                Side
	MatchedRatio, MatchedNetRatio float64
	Notes                         []string
}

// QualityTry is one Blender run of the quality search.
type QualityTry struct {
	// Steps is Blender's cloth quality, steps per frame.
	Steps int
	// Reached is true when the run's max strain and deep penetrations are
	// at most pleat's and it had no error.
	Reached bool
	Side    Side
}

// Side is one simulator's result on a case.
type Side struct {
	// Ran is true when the simulator produced frames (possibly fewer than
	// asked: see Err).
	Ran bool
	// Err is the failure, if any.
	Err string
	// Version names the simulator.
	Version string
	// Time is the wall time per frame for frames 1.. (frame 0 is the common
	// settled start and is not timed).
	Time Timing
	// Overhead (Blender) is the time per frame of the same frame updates
	// with the cloth modifier disabled: shape-key animation and the
	// collision modifier's BVH.
	Overhead Timing
	// Quality is scored by Score, the same code for both sides.
	Quality Quality
	// CGIterations is pleat's median CG iterations per frame (all pieces);
	// Retries its total step retries.
	CGIterations float64
	Retries      int
	// Settings lists the simulator's settings that matter for comparison.
	Settings map[string]float64
}

// SimBench runs the simulation benchmark. Failures of one side or case are
// recorded in the report (Side.Err, SimCase.Notes) and do not stop the
// others; the error is for bad options only.
func SimBench(ctx context.Context, opt SimOptions) (*SimReport, error) {
	opt.defaults()
	if opt.Frames < 2 || opt.Frames > 10000 {
		return nil, fmt.Errorf("bench: %d frames out of range [2, 10000]", opt.Frames)
	}
	if opt.Substeps < 0 || opt.Substeps > 1000 {
		return nil, fmt.Errorf("bench: %d substeps out of range [0, 1000]", opt.Substeps)
	}
	if opt.BlenderQuality < 1 || opt.BlenderQuality > 1000 || opt.MaxQuality < 1 || opt.MaxQuality > 1000 {
		return nil, fmt.Errorf("bench: Blender quality %d or its cap %d out of range [1, 1000]", opt.BlenderQuality, opt.MaxQuality)
	}
	rep := &SimReport{GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), GoVersion: runtime.Version()}
	for _, name := range opt.Cases {
		var spec scene.Spec
		var target int
		var desc string
		switch name {
		case CaseWalk:
			if opt.Assets == "" {
				rep.Cases = append(rep.Cases, &SimCase{Name: name, Notes: []string{"skipped: no assets folder (set PLEAT_ASSETS or --assets)"}})
				continue
			}
			spec = scene.Spec{
				Character: filepath.Join(opt.Assets, "makehuman"),
				Garments:  []string{"male_casualsuit02"},
				Motion:    filepath.Join(opt.Assets, "mocap", "cmu", "02_01_walk.bvh"),
				FPS:       FPS,
				End:       opt.Frames,
			}
			target = opt.Verts
			desc = "MakeHuman walking (CMU 02_01), male_casualsuit02"
		case CaseCoarse:
			spec = scene.Spec{Resolution: opt.CoarseVerts, FPS: FPS, End: opt.Frames}
			desc = fmt.Sprintf("procedural mannequin walking, procedural shirt+trousers at resolution %d", opt.CoarseVerts)
		default:
			return nil, fmt.Errorf("bench: unknown case %q (have %s, %s)", name, CaseWalk, CaseCoarse)
		}
		c := &SimCase{Name: name, Scene: desc, Frames: opt.Frames, FPS: FPS}
		rep.Cases = append(rep.Cases, c)
		if err := runCase(ctx, c, spec, target, opt); err != nil {
			c.Notes = append(c.Notes, "failed: "+err.Error())
		}
		if ctx.Err() != nil {
			break
		}
	}
	return rep, nil
}

// runCase loads the scene, runs pleat, then Blender on pleat's garment,
// collision proxy and attachment targets (blenderInput), with the quality
// search.
func runCase(ctx context.Context, c *SimCase, spec scene.Spec, target int, opt SimOptions) error {
	fmt.Fprintf(opt.Log, "%s: loading scene\n", c.Name)
	s, err := scene.Load(spec)
	if err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	nf := min(opt.Frames, len(s.Clip.Poses))
	if nf < opt.Frames {
		c.Notes = append(c.Notes, fmt.Sprintf("clip has %d frames; %d asked", len(s.Clip.Poses), opt.Frames))
	}
	s.Clip.Poses = s.Clip.Poses[:nf]
	c.Frames = nf
	c.FPS = s.Clip.FPS
	sk := s.Character.Skeleton
	skins := make([][]geom.Rigid, nf)
	bodies := make([][]geom.Vec3, nf)
	for f := range nf {
		skins[f] = skel.SkinMatrices(sk, s.Clip.Poses[f], nil)
		bodies[f] = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skins[f], nil)
	}
	c.BodyVerts, c.BodyTris = len(s.Character.Body.Verts), len(s.Character.Body.Tris)

	simOpt := sim.Options{TargetVerts: target, Fabric: opt.Fabric, Thickness: thickness, KeepTargets: true}
	maxDt := 1.0 / 60 // sim's default MaxDt
	if opt.Substeps > 0 {
		maxDt = 1 / (c.FPS * float64(opt.Substeps))
		simOpt.MaxDt = maxDt
	}
	c.Substeps = int(math.Ceil(1/(c.FPS*maxDt) - 1e-9))
	fab := cloth.Presets()[opt.Fabric]
	c.Pleat.Settings = map[string]float64{
		"substeps":     float64(c.Substeps),
		"thickness_m":  thickness,
		"density_kgm2": fab.Density,
		"stretch_Nm":   fab.Springs().Stretch,
		"bend_Nm":      fab.Springs().Bend,
	}
	res := runPleat(ctx, c, s, simOpt, bodies, opt.Log)
	if res == nil || res.NumFrames() == 0 {
		// Blender starts from pleat's settled frame 0 and follows pleat's
		// attachment targets: without them there is nothing to compare.
		c.Blender.Err = "skipped: pleat produced no frame 0"
		return nil
	}
	in, rest, err := blenderInput(s, res, simOpt, skins)
	if err != nil {
		c.Blender.Err = "preparing Blender's input: " + err.Error()
		return nil
	}
	in.Cloth = MatchCloth(fab, rest, c.FPS, opt.BlenderQuality, thickness)
	c.Verts, c.Tris, c.Pins = len(rest.Verts), len(rest.Tris), len(in.Pins)
	c.ProxyVerts, c.ProxyTris = len(in.BodyFrames[0]), len(in.BodyTris)
	if n := len(in.BodyFrames); n < nf {
		c.Notes = append(c.Notes, fmt.Sprintf("pleat stopped after %d of %d frames: Blender runs those %d", n, nf, n))
	}
	var v0 geom.Vec3
	if nf > 1 {
		v0 = s.Clip.Poses[1].Root.Sub(s.Clip.Poses[0].Root).Scale(c.FPS)
	}
	lead := runUp(&in, v0, runUpTime)
	if lead > 0 && !opt.NoBlender {
		c.Notes = append(c.Notes, fmt.Sprintf("Blender starts %d frames before frame 0, from pleat's frame 0 at rest, moved back along the clip's initial velocity (%.2f m/s) and brought up to it (untimed, unscored)", lead, v0.Len()))
	}
	switch {
	case opt.NoBlender:
		c.Blender.Err = "skipped (--no-blender)"
	case ctx.Err() != nil:
		c.Blender.Err = "skipped: " + ctx.Err().Error()
	default:
		r := &blenderRunner{ctx: ctx, c: c, in: in, lead: lead, rest: rest, bodyTris: s.Character.Body.Tris, bodies: bodies, opt: opt}
		r.compare()
	}
	return nil
}

// runPleat runs sim.Run on the scene and fills c.Pleat; the result is nil
// when pleat produced nothing.
func runPleat(ctx context.Context, c *SimCase, s *scene.Scene, simOpt sim.Options, bodies [][]geom.Vec3, log io.Writer) *sim.Result {
	fmt.Fprintf(log, "%s: pleat, %d frames\n", c.Name, c.Frames)
	res, err := sim.Run(ctx, s, simOpt, func(done, total int) {
		fmt.Fprintf(log, "\r%s: pleat frame %d/%d", c.Name, done, total)
	})
	fmt.Fprintln(log)
	if err != nil {
		c.Pleat.Err = err.Error()
	}
	if res == nil || res.NumFrames() == 0 {
		return nil
	}
	m, frames := res.Merged()
	rest := *m
	rest.Verts = res.MergedRest()
	c.Pleat.Ran = true
	c.Pleat.Version = "pleat (" + runtime.Version() + ")"
	var walls []time.Duration
	var cg []float64
	for _, st := range res.Stats[1:] {
		walls = append(walls, st.Wall)
		cg = append(cg, float64(st.CGIterations))
		c.Pleat.Retries += st.Retries
	}
	c.Pleat.Time = Times(walls)
	c.Pleat.CGIterations = median(cg)
	if c.Pleat.Quality, err = Score(&rest, frames, s.Character.Body.Tris, bodies); err != nil {
		c.Notes = append(c.Notes, "pleat score: "+err.Error())
	}
	c.Notes = append(c.Notes, res.Notes...)
	return res
}

// blenderInput builds Blender's side of the case from pleat's run, for
// the frames pleat made: pleat's pieces merged (Result.Merged) with
// pleat's rest shape, which both sides are scored against; pleat's frame
// 0 (the garment settled into the first pose) as the start; the attached
// vertices following pleat's own attachment targets (Result.Targets,
// which simOpt must keep); and pleat's collision proxy
// (Prepared.CollisionProxy for the same character, garments and options)
// skinned into each frame's pose, as sim skins it. The cloth settings are
// left to the caller.
func blenderInput(s *scene.Scene, res *sim.Result, simOpt sim.Options, skins [][]geom.Rigid) (BlenderInput, *mesh.Mesh, error) {
	nf := min(res.NumFrames(), len(skins))
	if nf == 0 {
		return BlenderInput{}, nil, errors.New("bench: pleat made no frames")
	}
	prep, err := sim.Prepare(s.Character, s.Garments, simOpt)
	if err != nil {
		return BlenderInput{}, nil, fmt.Errorf("bench: collision proxy: %w", err)
	}
	col, colW := prep.CollisionProxy()
	m, frames := res.Merged()
	rest := *m
	rest.Verts = res.MergedRest()
	in := BlenderInput{Rest: &rest, Start: frames[0], BodyTris: col.Tris, FPS: res.FPS, PinTargets: make([][]geom.Vec3, nf)}
	for f := range nf {
		in.BodyFrames = append(in.BodyFrames, skel.LBS(col.Verts, colW, skins[f], nil))
	}
	if len(res.Targets) != len(res.Pieces) {
		return BlenderInput{}, nil, fmt.Errorf("bench: attachment targets of %d pieces for %d (sim.Options.KeepTargets unset?)", len(res.Targets), len(res.Pieces))
	}
	off := int32(0)
	for p, pc := range res.Pieces {
		if len(res.Targets[p]) < nf {
			return BlenderInput{}, nil, fmt.Errorf("bench: piece %s: attachment targets of %d frames for %d", pc.Name, len(res.Targets[p]), nf)
		}
		for _, v := range pc.Attach {
			in.Pins = append(in.Pins, off+v)
		}
		for f := range nf {
			if len(res.Targets[p][f]) != len(pc.Attach) {
				return BlenderInput{}, nil, fmt.Errorf("bench: piece %s frame %d: %d attachment targets for %d attached vertices", pc.Name, f, len(res.Targets[p][f]), len(pc.Attach))
			}
			in.PinTargets[f] = append(in.PinTargets[f], res.Targets[p][f]...)
		}
		off += int32(len(pc.Mesh.Verts))
	}
	return in, &rest, nil
}

// runUpTime is the time (s) over which Blender's garment is brought up to
// the clip's initial velocity before frame 0.
const runUpTime = 0.25

// runUp prepends to in a run-up of t seconds, rounded up to whole frames,
// that brings Blender's garment from rest up to v0, the velocity at which
// pleat's settle (sim.Run) leaves the body moving at frame 0: Blender's
// cloth starts with zero velocity, and started at frame 0 the walking body
// would shove it (on the 25k walk, 2.2 strain and 361 edges over 20 % in
// the first frame). The start, the collision body and the pin targets of
// frame 0 are moved rigidly by the root offset of sim's settle,
// v0·T·(u³ − u⁴/2 − 1/2) for u from 0 to 1 over the run-up's T seconds
// (velocity v0·(3u² − 2u³): from rest to v0, arriving at frame 0). It
// returns the number of frames prepended.
func runUp(in *BlenderInput, v0 geom.Vec3, t float64) int {
	n := int(math.Ceil(t*in.FPS - 1e-9))
	if n == 0 || v0 == (geom.Vec3{}) {
		return 0
	}
	t = float64(n) / in.FPS // whole frames
	off := func(k int) geom.Vec3 {
		u := float64(k) / float64(n)
		return v0.Scale(t * (u*u*u - u*u*u*u/2 - 0.5))
	}
	shift := func(x []geom.Vec3, d geom.Vec3) []geom.Vec3 {
		y := make([]geom.Vec3, len(x))
		for i, p := range x {
			y[i] = p.Add(d)
		}
		return y
	}
	body := make([][]geom.Vec3, 0, n+len(in.BodyFrames))
	pins := make([][]geom.Vec3, 0, n+len(in.PinTargets))
	for k := range n {
		body = append(body, shift(in.BodyFrames[0], off(k)))
		pins = append(pins, shift(in.PinTargets[0], off(k)))
	}
	in.BodyFrames = append(body, in.BodyFrames...)
	in.PinTargets = append(pins, in.PinTargets...)
	in.Start = shift(in.Start, off(0))
	return n
}

func secondsToMs(s []float64) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = 1000 * x
	}
	return out
}
