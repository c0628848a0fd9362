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
	"github.com/pleat-dev/pleat/collide"
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
	// BlenderQuality is the cloth quality (steps per frame) given to
	// Blender; 0 means pleat's substeps per frame.
	BlenderQuality int
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
}

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
	// BodyVerts and BodyTris the collision body.
	Verts, Tris, Pins   int
	BodyVerts, BodyTris int
	// Frames is the number of frames asked (including frame 0); FPS their
	// rate; Substeps pleat's cloth substeps per frame.
	Frames   int
	FPS      float64
	Substeps int
	Pleat    Side
	Blender  Side
	// Ratio is Blender's median time per frame over pleat's, both measured
	// in this run; NetRatio uses Blender's time less its frame-update
	// overhead (Side.Overhead). 0 when a side is missing.
	Ratio, NetRatio float64
	Notes           []string
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

// runCase loads the scene and runs both sides.
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

	simOpt := sim.Options{TargetVerts: target, Fabric: opt.Fabric}
	maxDt := 1.0 / 60 // sim's default MaxDt
	if opt.Substeps > 0 {
		maxDt = 1 / (c.FPS * float64(opt.Substeps))
		simOpt.MaxDt = maxDt
	}
	c.Substeps = int(math.Ceil(1/(c.FPS*maxDt) - 1e-9))

	// pleat.
	fmt.Fprintf(opt.Log, "%s: pleat, %d frames\n", c.Name, nf)
	res, serr := sim.Run(ctx, s, simOpt, func(done, total int) {
		fmt.Fprintf(opt.Log, "\r%s: pleat frame %d/%d", c.Name, done, total)
	})
	fmt.Fprintln(opt.Log)
	var rest *mesh.Mesh
	var start []geom.Vec3
	var pieces []*sim.Piece
	if res != nil && res.NumFrames() > 0 {
		// Both sides start from pleat's rest shape (the garment after
		// pleat's gentle initial push-out from the body) and are scored
		// against it.
		m, frames := res.Merged()
		rm := *m
		rm.Verts = res.MergedRest()
		rest, start, pieces = &rm, frames[0], res.Pieces
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
		c.Pleat.Quality, err = Score(rest, frames, s.Character.Body.Tris, bodies)
		if err != nil {
			c.Notes = append(c.Notes, "pleat score: "+err.Error())
		}
		c.Notes = append(c.Notes, res.Notes...)
	}
	if serr != nil {
		c.Pleat.Err = serr.Error()
	}
	fab := cloth.Presets()[opt.Fabric]
	c.Pleat.Settings = map[string]float64{
		"substeps":     float64(c.Substeps),
		"thickness_m":  0.003,
		"density_kgm2": fab.Density,
		"stretch_Nm":   fab.Springs().Stretch,
		"bend_Nm":      fab.Springs().Bend,
	}

	// The garment for Blender: pleat's pieces and settled frame 0. When
	// pleat failed before frame 0, Blender settles the garment itself the
	// way sim.Run does: from the rest pose (garment skinned there, initial
	// penetration resolved) the body and the pins move to the first pose
	// over 0.5 s (smoothstep, then held); those settle frames precede the
	// clip and are not scored or timed.
	bodyIn, skinIn, settle := bodies, skins, 0
	if pieces == nil {
		var sb [][]geom.Vec3
		var ss [][]geom.Rigid
		pieces, rest, start, sb, ss, err = settleInput(s, target)
		if err != nil {
			c.Blender.Err = "preparing the garment: " + err.Error()
			return nil
		}
		settle = len(sb) - 1
		bodyIn = append(sb, bodies[1:]...)
		skinIn = append(ss, skins[1:]...)
		c.Notes = append(c.Notes, fmt.Sprintf("pleat produced no frame 0: Blender settles the garment itself (%d frames from the rest pose to the first pose, untimed)", settle))
	}
	pins, targets := pinTargets(pieces, skinIn)
	c.Verts, c.Tris, c.Pins = len(rest.Verts), len(rest.Tris), len(pins)

	if opt.NoBlender {
		c.Blender.Err = "skipped (--no-blender)"
		return nil
	}
	if ctx.Err() != nil {
		c.Blender.Err = "skipped: " + ctx.Err().Error()
		return nil
	}
	fmt.Fprintf(opt.Log, "%s: Blender, %d frames, %d vertices\n", c.Name, nf, len(rest.Verts))
	in := BlenderInput{
		Rest: rest, Start: start, Pins: pins, PinTargets: targets,
		BodyTris: s.Character.Body.Tris, BodyFrames: bodyIn, FPS: c.FPS,
		Cloth: MatchCloth(fab, rest, c.FPS, c.Substeps, 0.003),
	}
	if opt.BlenderQuality > 0 {
		in.Cloth.Quality = opt.BlenderQuality
	}
	out, berr := RunBlender(ctx, opt.Blender, opt.WorkDir, c.Name, in, opt.Log)
	c.Blender.Settings = in.Cloth.Map()
	if berr != nil {
		c.Blender.Err = berr.Error()
	}
	if out == nil {
		return nil
	}
	out.Frames, out.FrameSeconds = out.Frames[settle:], out.FrameSeconds[settle:]
	if len(out.OverheadSeconds) > settle {
		out.OverheadSeconds = out.OverheadSeconds[settle:]
	}
	c.Blender.Ran = true
	c.Blender.Version = "Blender " + out.Version
	c.Blender.Time = timesMs(secondsToMs(out.FrameSeconds[1:]))
	if len(out.OverheadSeconds) > 1 {
		c.Blender.Overhead = timesMs(secondsToMs(out.OverheadSeconds[1:]))
	}
	c.Blender.Quality, err = Score(rest, out.Frames, s.Character.Body.Tris, bodies)
	if err != nil {
		c.Notes = append(c.Notes, "Blender score: "+err.Error())
	}
	if c.Pleat.Ran && c.Pleat.Time.Median > 0 {
		c.Ratio = c.Blender.Time.Median / c.Pleat.Time.Median
		c.NetRatio = math.Max(0, c.Blender.Time.Median-c.Blender.Overhead.Median) / c.Pleat.Time.Median
	}
	return nil
}

func secondsToMs(s []float64) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = 1000 * x
	}
	return out
}

// settleInput splits and subdivides the scene's garments as sim.Run does,
// attaches their top loops and poses them in the rest pose (moved to the
// clip's first root position; initial penetration resolved), and returns
// the settle sequence of sim.Run: body positions and skinning matrices from
// that rest pose (index 0) to the clip's first pose (last index), 0.5 s at
// the clip's rate.
func settleInput(s *scene.Scene, target int) (pieces []*sim.Piece, rest *mesh.Mesh, start []geom.Vec3, bodies [][]geom.Vec3, skins [][]geom.Rigid, err error) {
	total := 0
	for gi, g := range s.Garments {
		ps, err := sim.SplitPieces(g.Name, g.Mesh, g.Weights)
		if err != nil {
			return nil, nil, nil, nil, nil, err
		}
		for _, p := range ps {
			p.Garment = gi
			total += len(p.Mesh.Verts)
		}
		pieces = append(pieces, ps...)
	}
	if target > 0 && total < target {
		sim.RefinePieces(pieces, target)
	}
	sk := s.Character.Skeleton
	restPose := skel.RestPose(sk)
	restPose.Root = s.Clip.Poses[0].Root
	n := int(math.Ceil(0.5 * s.Clip.FPS))
	move := (n + 1) / 2
	var pose skel.Pose
	for k := 0; k <= n; k++ {
		a := math.Min(1, float64(k)/float64(move))
		a = a * a * (3 - 2*a)
		skel.InterpPose(&pose, restPose, s.Clip.Poses[0], a)
		skin := skel.SkinMatrices(sk, pose, nil)
		skins = append(skins, skin)
		bodies = append(bodies, skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, nil))
	}
	body, err := collide.NewBody(&mesh.Mesh{Verts: bodies[0], Tris: s.Character.Body.Tris})
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	rest = &mesh.Mesh{}
	for _, p := range pieces {
		if p.Attach, err = sim.TopLoop(p.Mesh); err != nil {
			return nil, nil, nil, nil, nil, err
		}
		x := skel.LBS(p.Mesh.Verts, p.Weights, skins[0], nil)
		if _, err := collide.ResolveInitial(x, p.Mesh.Tris, body, 0.003, 20); err != nil {
			return nil, nil, nil, nil, nil, err
		}
		off := int32(len(rest.Verts))
		rest.Verts = append(rest.Verts, p.Mesh.Verts...)
		for _, t := range p.Mesh.Tris {
			rest.Tris = append(rest.Tris, [3]int32{t[0] + off, t[1] + off, t[2] + off})
		}
		start = append(start, x...)
	}
	return pieces, rest, start, bodies, skins, nil
}

// pinTargets returns the attached vertices of the pieces (ids in the merged
// vertex order, piece after piece) and their skinned positions per frame,
// as sim.Run sets its attachment targets.
func pinTargets(pieces []*sim.Piece, skins [][]geom.Rigid) ([]int32, [][]geom.Vec3) {
	var pins []int32
	off := int32(0)
	for _, p := range pieces {
		for _, v := range p.Attach {
			pins = append(pins, off+v)
		}
		off += int32(len(p.Mesh.Verts))
	}
	targets := make([][]geom.Vec3, len(skins))
	var buf []geom.Vec3
	for f, skin := range skins {
		for _, p := range pieces {
			if len(p.Attach) == 0 {
				continue
			}
			buf = skel.LBS(p.Mesh.Verts, p.Weights, skin, buf)
			for _, v := range p.Attach {
				targets[f] = append(targets[f], buf[v])
			}
		}
	}
	return pins, targets
}

// ErrNoBlender is returned by RunBlender when no blender executable is
// found.
var ErrNoBlender = errors.New("bench: blender not found (Debian: apt-get install blender python3-numpy; or pass its path)")
