package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/online"
)

// Options say how a database is built. The zero value builds the whole
// spec with the simulator's defaults, one sample per CPU at a time.
type Options struct {
	// Sim are the simulator options of every sample (TargetVerts refines
	// the garments). Workers 0 means 1: samples run in parallel instead,
	// which scales better than parallel solves on a shared machine.
	// Workers does not change results and is not recorded.
	// Sim.BodyOverlapMinEdge 0 means DefaultBodyOverlapMinEdge here
	// (negative: no lower bound, every piece keeps the hook).
	// Sim.StrainLimitRelax 0 means DefaultStrainRelax here (negative:
	// plain sweeps); it is recorded beside the simulator settings, not in
	// them, so that what replays those settings (pleat eval's reference,
	// the online coarse simulation) runs plain sweeps.
	Sim sim.Options
	// Settle says how each sample moves from the rest pose into its pose
	// and when it is at rest (sim.SettleOptions; zero fields are its
	// defaults, except Hold, which is DefaultHold).
	Settle sim.SettleOptions
	// Coarse is the vertex count of the coarse refinement of the garments
	// each sample settles on first (coarse-to-fine settle): the sample's
	// pose is reached and settled there, carried over to the samples'
	// vertices, and settled again in the pose. 0 means the default: a
	// quarter of Sim.TargetVerts (DefaultCoarseRatio) when Sim.TargetVerts
	// is at least DefaultCoarseMinVerts, and none below; CoarseAuto means
	// a quarter whenever Sim.TargetVerts refines the garments to at least
	// twice that many vertices. It is recorded beside the simulator
	// settings.
	Coarse int
	// NoCoarse turns the coarse stage off (each sample settles on the
	// fine garment alone), whatever Coarse says.
	NoCoarse bool
	// FullFineStage settles the whole garment in the fine stage. By
	// default the fine stage settles only the part of the garment the
	// sample's role stores, with FineStageMargin around it, its cut held
	// at the coarse stage's shape (see subStage): on the MakeHuman suit at
	// 25k vertices, a fine stage of 8-39 % of the vertices.
	FullFineStage bool
	// NoCoarseSamples leaves out the coarse samples: by default every
	// sample also settles the coarse garment the online pipeline
	// simulates (wrinkle/online.CoarseSettler: about 700 vertices, from
	// its own rest settle) into the sample's pose, and the database
	// stores it (wrinkle.CoarseInfo), so that the pipeline can correct its
	// coarse simulation pose by pose. Without them it corrects only the
	// rest pose's bias.
	NoCoarseSamples bool
	// CoarseSamples is the coarse garment of the coarse samples, which
	// must be the one the online pipeline is given (its Options.Coarse);
	// Verts 0 means wrinkle.DefaultCoarseVerts, the pipeline's default.
	CoarseSamples wrinkle.CoarseOptions
	// NoSqueeze leaves cloth caught in a closing crease of the body (the
	// inner elbow, the back of the knee, the armpit) where the colliders
	// hold it. By default the samples settle with Sim.SqueezeFolds, which
	// moves it toward the crease's opening; it is recorded beside the
	// simulator settings, not in them, as StrainLimitRelax is.
	NoSqueeze bool
	// NoCreases skins the body as it is where a bent elbow or knee, or a
	// thigh raised against the belly, lets two segments pass into each
	// other. By default the samples settle on a body flattened there
	// (sim.Options.Creases at the rig's elbows, knees and hips,
	// RigCreases, skel.Creaser); it is recorded beside the simulator
	// settings, as NoSqueeze is.
	NoCreases bool
	// Jobs is the number of samples simulated at once; 0 means
	// runtime.GOMAXPROCS(0).
	Jobs int
	// Quantum is the database's quantisation step, m; 0 means
	// wrinkle.DefaultQuantum.
	Quantum float64
	// Shard and Shards select the interleaved subset built (samples
	// k ≡ Shard mod Shards); Shards 0 means 1.
	Shard, Shards int
	// Names maps the rig's joints to roles; nil tries wrinkle.Presets.
	Names *wrinkle.NameMap
	// PoseTolerance is the depth (m) the moving limb may reach into the
	// rest of the body before a sample is invalid; 0 means
	// DefaultPoseTolerance, negative turns the pose check off.
	PoseTolerance float64
	// KeepInvalid simulates samples whose limb passes through the body
	// (they are reported); by default Run refuses to start when a sample
	// of the shard is invalid.
	KeepInvalid bool
	// SkipInvalid records samples whose limb passes through the body as
	// missing (wrinkle.Journal.AddMissing, with the pose check as the
	// reason) without simulating them; synthesis fills them in from their
	// valid neighbours. It takes precedence over KeepInvalid.
	SkipInvalid bool
	// SkipUnsettled records samples that do not come to rest within
	// Settle.MaxTime as missing instead of keeping their last frame.
	SkipUnsettled bool
	// Progress, when not nil, is called after each finished sample (from
	// Run's goroutine, never concurrently).
	Progress func(Progress)
}

// OverstretchFactor is the multiple of the strain limit past which a
// sample's largest edge strain is reported (Summary.Overstretched). The
// cloth holds edges to 0.95 of the limit and the collision pushes after it
// may take them to the limit; a fifth more is not the limiter's margin but
// cloth held between the body's contacts (the procedural trousers with a
// hip raised 105° and spread 55°: edges at 14–26 %, with a limit of 10 %).
const OverstretchFactor = 1.2

// DefaultHold is the build's settle hold (sim.SettleOptions.Hold): the
// frames after the transition over which a sample's drift is measured and
// its kinetic energy must stay below the threshold. 9 frames (0.3 s at
// 30 fps) rather than SettleTo's 3 separates the two motions of a garment
// held in a pose. Contact buzz (cloth pulled in by gravity and pushed out
// to the safety distance every substep, ±1–2 mm at the 99th percentile
// on the MakeHuman suit) does not add up, so over H frames it reads as a
// drift of about 2 mm / (H·Δt): 2 cm/s over 3 frames, as large as the
// 2 cm/s threshold itself, which made the test a draw and kept samples
// whose cloth crept slower than the threshold running to the time limit.
// Creep (a sleeve sliding down a raised arm, trousers on a bent hip) does
// add up and reads the same over any window. Over 9 frames the buzz reads
// about 0.7 cm/s and the threshold measures the creep.
const DefaultHold = 9

// DefaultBodyOverlapMinEdge is the build's sim.Options.BodyOverlapMinEdge
// (m): pieces whose median rest edge is shorter collide with the body at
// their vertices alone. Below 21 mm a triangle held at the 3 mm safety
// distance at its corners keeps a body feature of radius R = 2 cm out of
// its interior (its sag L²/(8R) < 3 mm), and where the body overlaps
// itself (the back of a deeply flexed knee) the hook pushes cloth from
// one limb into the other instead of releasing it (issue 18, item 6).
const DefaultBodyOverlapMinEdge = 0.021

// DefaultStrainRelax is the strain limiting over-relaxation of the
// samples' settle (sim.Options.StrainLimitRelax). Raising a limb pulls a
// long band of cloth over the limit (a sleeve and the shirt's side under a
// raised arm), which plain Gauss–Seidel sweeps shorten one edge per sweep:
// on male_casualsuit02 at 25k vertices, the shoulder sample flexed 30°,
// abducted 140° and twisted 30° ran 78 of its 392 strain limiting calls
// to the 5000-sweep cap, 77 % of its CPU time. With ω = 1.85 (after 50
// plain sweeps per call) none reached the cap and the sample took 2.4
// times less CPU, at rest in the same number of frames with the same
// worst strain, while light samples (knee 45°, elbow 75°) came to rest
// as before. Replaying the settings in
// a clip (the online coarse simulation, eval's reference) keeps plain
// sweeps: over-relaxation is not measured there.
const DefaultStrainRelax = 1.85

// Progress reports a build under way.
type Progress struct {
	// Done and Total count the shard's samples, those finished before a
	// resumed run included.
	Done, Total int
	// Elapsed is this run's wall time; ETA the estimated time left from
	// this run's rate (0 until a sample has finished).
	Elapsed, ETA time.Duration
	// Last is the sample just finished.
	Last SampleResult
}

// SampleResult is one simulated sample.
type SampleResult struct {
	Sample wrinkle.Sample
	Stats  wrinkle.SampleStats
	// Setup is the wall time of sim.Prepared.New (the sample's cloths,
	// collision bodies and hooks), Settle that of SettleTo.
	Setup, Settle time.Duration
	// CPU is the CPU time of setup and settle together (the thread that
	// ran them; one-worker simulators run on it), 0 where it is not
	// measured: unlike the wall times, it does not grow when other work
	// loads the machine.
	CPU time.Duration
	// CoarseSteps is the number of frames of the coarse stage (0 without
	// one) and CoarseCPU its CPU time (its simulator's setup included);
	// Stats are the fine settle's, and Settle and CPU include the coarse
	// stage.
	CoarseSteps int
	CoarseCPU   time.Duration
	// CoarseSampleSteps is the number of frames of the coarse sample's
	// settle (0 without coarse samples: Options.NoCoarseSamples) and
	// CoarseSampleCPU its CPU time; Settle and CPU include it.
	CoarseSampleSteps int
	CoarseSampleCPU   time.Duration
	// CoarseSampleAtRest reports whether the coarse sample's settle came
	// to rest (it is stored either way).
	CoarseSampleAtRest bool
	// Pose is the sample's pose check (Depth 0 and Valid when off).
	Pose PoseReport
	// Missing is the reason the sample was recorded as missing (skipped
	// as invalid or unsettled); empty when its positions were stored.
	Missing string
	// Stalled is true when the settle gave up with the garment held in
	// shape but not at rest (sim.SettleResult.Stalled); such a sample is
	// not converged. It is not stored in the journal or the database.
	Stalled bool
}

// Summary describes a finished (or interrupted) run.
type Summary struct {
	// Samples are this run's results in index order; Resumed counts the
	// shard's samples already in the journal.
	Samples []SampleResult
	Resumed int
	Wall    time.Duration
	// NotConverged and Invalid list the indices of this run's samples that
	// did not come to rest, and whose pose is invalid (simulated with
	// KeepInvalid, or skipped with SkipInvalid); Missing those recorded as
	// missing. Stalled lists those of NotConverged whose settle gave up
	// before the time limit with the garment held in shape
	// (SampleResult.Stalled). Overstretched lists the samples that ended
	// with an edge stretched past OverstretchFactor times StrainLimit: the
	// garment is too tight for the pose, and the strain limiting could not
	// hold the cloth against the body.
	NotConverged, Stalled, Invalid, Missing, Overstretched []int
	// StrainLimit is the simulators' edge strain limit
	// (sim.Prepared.StrainLimit; 0 when off).
	StrainLimit float64
	// Worst are this run's largest figures over its samples.
	WorstStrain, WorstPenetration             float64
	WorstStrainSample, WorstPenetrationSample int
}

// Builder builds a wrinkle database (or one shard) by simulation: each
// sample is the garment settled from the rest pose into the sample's pose
// with a fresh simulator. Create it with New; Run is safe to call again
// on a journal after an interruption.
type Builder struct {
	ch       *character.Character
	garments []*character.Garment
	opt      Options
	prep     *sim.Prepared // every sample's simulator is built from it
	start    [][]geom.Vec3 // the garments settled in the rest pose, per piece: every sample starts from it
	rest     SampleResult  // that settle (Setup and Settle times, Stats)
	build    *wrinkle.Build
	pieces   []int                 // vertex offset of each simulator piece in the garment
	coarse   *coarseStage          // nil: samples settle on the fine garment alone
	samples  *online.CoarseSettler // nil: Options.NoCoarseSamples
	verts    int
	check    *poseChecker
	subs     [wrinkle.NumRoles]subStage
}

// New is NewContext without a context.
func New(ch *character.Character, garments []*character.Garment, spec *wrinkle.Spec, opt Options) (*Builder, error) {
	return NewContext(context.Background(), ch, garments, spec, opt)
}

// NewContext prepares a build of spec for garments on ch: it binds the
// rig, prepares the (refined) garment the samples are simulated on,
// settles it once in the rest pose (the start of every sample, and the
// base shape the database predicts samples from), and prepares the
// database header (wrinkle.NewBuild) with the simulator and settle
// settings recorded. When ctx ends during the rest settle, it returns
// ctx's error.
func NewContext(ctx context.Context, ch *character.Character, garments []*character.Garment, spec *wrinkle.Spec, opt Options) (*Builder, error) {
	if ch == nil || ch.Skeleton == nil || ch.Body == nil {
		return nil, errors.New("build: no character")
	}
	if spec == nil {
		spec = wrinkle.DefaultSpec()
	}
	if opt.Jobs < 0 {
		return nil, fmt.Errorf("build: Options.Jobs %d is negative", opt.Jobs)
	}
	if math.IsNaN(opt.PoseTolerance) {
		return nil, errors.New("build: Options.PoseTolerance is NaN")
	}
	if opt.Sim.Workers == 0 {
		opt.Sim.Workers = 1
	}
	if opt.Settle.Hold == 0 {
		opt.Settle.Hold = DefaultHold
	}
	opt.Sim.SqueezeFolds = !opt.NoSqueeze
	switch m := opt.Sim.BodyOverlapMinEdge; {
	case m == 0:
		opt.Sim.BodyOverlapMinEdge = DefaultBodyOverlapMinEdge
	case m < 0:
		opt.Sim.BodyOverlapMinEdge = 0
	}
	switch r := opt.Sim.StrainLimitRelax; {
	case r == 0:
		opt.Sim.StrainLimitRelax = DefaultStrainRelax
	case r < 0:
		opt.Sim.StrainLimitRelax = 1
	case !(r >= 1 && r <= 1.95):
		return nil, fmt.Errorf("build: strain limit relaxation %g: want 1 to 1.95 (0: %g)", r, DefaultStrainRelax)
	}
	rig, err := wrinkle.Bind(ch.Skeleton, opt.Names)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	if !opt.NoCreases {
		opt.Sim.Creases = RigCreases(rig)
	}
	prep, err := sim.Prepare(ch, garments, opt.Sim)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	pieces := prep.Pieces()
	b := &Builder{ch: ch, garments: garments, opt: opt, prep: prep}
	g, w, offs, names := sim.JoinPieces(pieces)
	b.pieces = offs
	b.verts = len(g.Verts)
	if opt.Coarse < 0 && opt.Coarse != CoarseAuto {
		return nil, fmt.Errorf("build: coarse refinement to %d vertices: want 0 (the default), CoarseAuto or a vertex count", opt.Coarse)
	}
	if n := coarseVerts(opt); n > 0 {
		if b.coarse, err = newCoarseStage(ctx, b, n); err != nil {
			return nil, err
		}
		if b.coarse == nil && opt.Coarse > 0 {
			return nil, fmt.Errorf("build: coarse refinement to %d vertices is not at most half as fine as the %d simulated", opt.Coarse, b.verts)
		}
		if b.coarse != nil {
			b.opt.Coarse = n
		}
	}
	if b.coarse == nil {
		b.opt.Coarse = 0
	}
	settings, err := b.settings()
	if err != nil {
		return nil, err
	}
	base, err := b.settleRest(ctx)
	if err != nil {
		return nil, err
	}
	var coarse *wrinkle.CoarseInput
	if !opt.NoCoarseSamples {
		if b.samples, err = online.NewCoarseSettler(ctx, ch, names, g, w, settings, opt.CoarseSamples); err != nil {
			return nil, fmt.Errorf("build: coarse samples: %w", err)
		}
		coarse = b.samples.Input()
	}
	b.build, err = wrinkle.NewBuild(wrinkle.BuildInput{
		Rig: rig, Spec: spec, Name: names, Garment: g, Weights: w, Base: base,
		Settings: settings, Quantum: opt.Quantum, Shard: opt.Shard, Shards: opt.Shards,
		Coarse: coarse,
	})
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	if opt.PoseTolerance >= 0 {
		tol := opt.PoseTolerance
		if tol == 0 {
			tol = DefaultPoseTolerance
		}
		if b.check, err = newPoseChecker(ch, rig, spec, tol); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// buildSettings is what a database records of how it was simulated.
type buildSettings struct {
	Sim    sim.Options       `json:"sim"`
	Settle sim.SettleOptions `json:"settle"`
	Start  string            `json:"start"`
	// StrainRelax is sim.Options.StrainLimitRelax of the samples' settle.
	StrainRelax float64 `json:"strain_relax"`
	// CoarseVerts is Options.Coarse as used: the target vertex count of
	// the coarse stage, 0 when there is none.
	CoarseVerts int `json:"coarse_verts,omitempty"`
	// SqueezeFolds is sim.Options.SqueezeFolds of the samples' settle
	// (Options.NoSqueeze off).
	SqueezeFolds bool `json:"squeeze_folds"`
	// Creases names the joints of sim.Options.Creases of the samples'
	// settle (Options.NoCreases off), each as proximal/joint/distal.
	Creases []string `json:"creases,omitempty"`
}

func (b *Builder) settings() (json.RawMessage, error) {
	s := buildSettings{Sim: recorded(b.opt.Sim), Settle: b.opt.Settle, Start: "fresh simulator per sample, started from the garment settled once in the rest pose"}
	s.StrainRelax = b.opt.Sim.StrainLimitRelax
	s.SqueezeFolds = b.opt.Sim.SqueezeFolds
	for _, c := range b.opt.Sim.Creases {
		sk := b.ch.Skeleton
		s.Creases = append(s.Creases, sk.Joint(c.Proximal).Name+"/"+sk.Joint(c.Joint).Name+"/"+sk.Joint(c.Distal).Name)
	}
	if b.coarse != nil {
		s.CoarseVerts = b.opt.Coarse
		s.Start = fmt.Sprintf("fresh simulators per sample: the garment refined to %d vertices (coarse_verts) settled into the pose from its rest settle, "+
			"carried over barycentrically to these vertices and settled again in the pose (no transition, zero velocity)", b.coarse.verts)
		if !b.opt.FullFineStage {
			s.Start += fmt.Sprintf("; the second settle only on the vertices the sample's role stores and %d rings of triangles around them, "+
				"the cut held where the first put it, the rest of the garment left there", b.fineRings())
		}
	}
	out, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("build: simulator settings: %w", err)
	}
	return out, nil
}

// recorded returns the samples' simulator options as the database records
// them (buildSettings.Sim), which is what the reference and the online
// coarse simulation replay: without Workers (which does not change
// results) and without the settle's own aids, StrainLimitRelax,
// SqueezeFolds and Creases (recorded beside them).
func recorded(o sim.Options) sim.Options {
	o.Workers = 0
	o.StrainLimitRelax = 0
	o.SqueezeFolds = false
	o.Creases = nil
	return o
}

// settleRest settles the garments in the rest pose with a fresh
// simulator, keeps the result as every sample's start and returns it
// joined (the database's base shape). Every shard computes the same start
// bit for bit (same inputs; Workers does not change results).
func (b *Builder) settleRest(ctx context.Context) ([]geom.Vec3, error) {
	start, res, err := settleRest(ctx, b.prep, b.ch.Skeleton, b.opt)
	b.rest = res
	if err != nil {
		return nil, fmt.Errorf("build: rest pose: %w", err)
	}
	b.start = start
	var base []geom.Vec3
	for _, x := range start {
		base = append(base, x...)
	}
	if len(base) != b.verts {
		return nil, fmt.Errorf("build: rest pose: the simulator has %d vertices, the garment %d", len(base), b.verts)
	}
	return base, nil
}

// settleRest settles a fresh simulator of prep in the rest pose and
// returns the garments' positions per piece and the settle's times and
// statistics.
func settleRest(ctx context.Context, prep *sim.Prepared, sk *skel.Skeleton, o Options) ([][]geom.Vec3, SampleResult, error) {
	var res SampleResult
	t0 := time.Now()
	cpu := threadCPU()
	defer func() { res.CPU, _ = cpu() }()
	sm, err := prep.New()
	if err != nil {
		return nil, res, err
	}
	defer sm.Close()
	res.Setup = time.Since(t0)
	rest := skel.RestPose(sk)
	rest.Root = o.Sim.Root // where the simulator starts (sim.Prepare)
	opt := o.Settle
	opt.Transition = 1e-9 // the pose does not change
	var fr sim.Frame
	sr, err := sm.SettleTo(ctx, rest, opt, &fr)
	res.Settle = time.Since(t0) - res.Setup
	if err != nil {
		return nil, res, err
	}
	res.Stats = wrinkle.SampleStats{Converged: sr.Converged, Steps: sr.Frames, Residual: sr.KineticEnergy,
		MaxStrain: sr.Stats.MaxStretch, MaxPenetration: sr.Stats.MaxDepth, Penetrating: sr.Stats.Deep}
	res.Stalled = sr.Stalled
	return fr.X, res, nil
}

// RestSettle returns the rest-pose settle every sample starts from: its
// simulator setup and settle times and its statistics.
func (b *Builder) RestSettle() SampleResult { return b.rest }

// Build returns the database build (header, shard samples).
func (b *Builder) Build() *wrinkle.Build { return b.build }

// NumVerts returns the number of garment vertices simulated and stored.
func (b *Builder) NumVerts() int { return b.verts }

// CheckPoses runs the pose check on the shard's samples, in index order
// (all valid when the check is off).
func (b *Builder) CheckPoses() ([]PoseReport, error) {
	var out []PoseReport
	for _, k := range b.build.ShardSamples() {
		r, err := b.checkSample(k)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (b *Builder) checkSample(k int) (PoseReport, error) {
	s, err := b.build.Spec().Sample(k)
	if err != nil {
		return PoseReport{}, fmt.Errorf("build: %w", err)
	}
	if b.check == nil {
		return PoseReport{Sample: s, Valid: true}, nil
	}
	return b.check.check(s)
}

// InvalidPoseError lists the samples whose moving limb passes through the
// body.
type InvalidPoseError struct {
	Reports []PoseReport
}

func (e *InvalidPoseError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "build: %d samples are poses the body cannot take (narrow the spec's ranges, or keep them deliberately):", len(e.Reports))
	for i, r := range e.Reports {
		if i == 8 {
			fmt.Fprintf(&sb, "\n  ... and %d more", len(e.Reports)-i)
			break
		}
		sb.WriteString("\n  " + r.String())
	}
	return sb.String()
}

// SampleError reports a sample that could not be simulated or stored
// (the simulator failed or the cloth exploded).
type SampleError struct {
	Sample wrinkle.Sample
	Err    error
}

func (e *SampleError) Error() string {
	return fmt.Sprintf("build: sample %d (%s): %v", e.Sample.Index, describe(e.Sample), e.Err)
}

func (e *SampleError) Unwrap() error { return e.Err }

// simulate settles sample k with a fresh simulator and returns its
// positions in the database's vertex order.
func (b *Builder) simulate(ctx context.Context, k int) (settled, SampleResult, error) {
	cpu := threadCPU()
	pos, res, err := b.settleSample(ctx, k)
	out := settled{pos: pos}
	if err == nil && b.samples != nil {
		out.coarse, err = b.settleCoarseSample(ctx, k, &res)
	}
	res.CPU, _ = cpu()
	return out, res, err
}

// settled is a sample's settled garment, and the coarse garment's
// positions in its pose (nil without coarse samples).
type settled struct {
	pos, coarse []geom.Vec3
}

// settleCoarseSample settles the coarse garment of the coarse samples
// into sample k's pose and returns its positions.
func (b *Builder) settleCoarseSample(ctx context.Context, k int, res *SampleResult) ([]geom.Vec3, error) {
	pose, err := b.build.SamplePose(k)
	if err != nil {
		return nil, &SampleError{res.Sample, err}
	}
	t0, cpu := time.Now(), threadCPU()
	x, sr, err := b.samples.Settle(ctx, pose)
	res.CoarseSampleCPU, _ = cpu()
	res.CoarseSampleSteps, res.CoarseSampleAtRest = sr.Frames, sr.Converged
	res.Settle += time.Since(t0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &SampleError{res.Sample, fmt.Errorf("coarse sample: %w", err)}
	}
	for v, p := range x {
		if !p.IsFinite() {
			return nil, &SampleError{res.Sample, fmt.Errorf("coarse sample: vertex %d is not finite: the cloth exploded", v)}
		}
	}
	return x, nil
}

// settleSample is simulate without the CPU time.
func (b *Builder) settleSample(ctx context.Context, k int) ([]geom.Vec3, SampleResult, error) {
	var res SampleResult
	s, err := b.build.Spec().Sample(k)
	if err != nil {
		return nil, res, err
	}
	res.Sample = s
	pose, err := b.build.SamplePose(k)
	if err != nil {
		return nil, res, &SampleError{s, err}
	}
	t0 := time.Now()
	var from [][]geom.Vec3 // the coarse stage's result carried over, or nil
	settle := b.opt.Settle
	if c := b.coarse; c != nil {
		cpu := threadCPU()
		x, sr, err := c.settle(ctx, pose, settle)
		res.CoarseCPU, _ = cpu()
		if err != nil {
			if ctx.Err() != nil {
				return nil, res, ctx.Err()
			}
			return nil, res, &SampleError{s, fmt.Errorf("coarse stage: %w", err)}
		}
		res.CoarseSteps = sr.Frames
		from = c.carry(x, skel.SkinMatrices(b.ch.Skeleton, pose, nil), b.start)
		settle.Transition = 1e-9 // the body is in the pose already
	}
	if from != nil && !b.opt.FullFineStage {
		if st := b.subFor(s.Role); st.prep != nil || st.err != nil {
			return b.settlePart(ctx, s, st, pose, settle, from, res, t0)
		}
	}
	t1 := time.Now()
	sm, err := b.prep.New()
	if err != nil {
		return nil, res, &SampleError{s, err}
	}
	defer sm.Close()
	if err := sm.StartFrom(b.start); err != nil {
		return nil, res, &SampleError{s, err}
	}
	if from != nil {
		if err := sm.StartPosed(pose, from); err != nil {
			return nil, res, &SampleError{s, err}
		}
	}
	res.Setup = time.Since(t1)
	var fr sim.Frame
	sr, err := sm.SettleTo(ctx, pose, settle, &fr)
	res.Settle = time.Since(t0) - res.Setup
	if err != nil {
		if ctx.Err() != nil {
			return nil, res, ctx.Err()
		}
		return nil, res, &SampleError{s, err}
	}
	return b.finishSample(s, fr.X, sr, res)
}

// finishSample joins a sample's settled pieces into the garment and
// checks and records them.
func (b *Builder) finishSample(s wrinkle.Sample, xs [][]geom.Vec3, sr sim.SettleResult, res SampleResult) ([]geom.Vec3, SampleResult, error) {
	if len(xs) != len(b.pieces) {
		return nil, res, &SampleError{s, fmt.Errorf("the simulator has %d pieces, the first had %d", len(xs), len(b.pieces))}
	}
	pos := make([]geom.Vec3, 0, b.verts)
	for _, x := range xs {
		pos = append(pos, x...)
	}
	if len(pos) != b.verts {
		return nil, res, &SampleError{s, fmt.Errorf("the simulator has %d vertices, the first had %d", len(pos), b.verts)}
	}
	for v, p := range pos {
		if !p.IsFinite() {
			return nil, res, &SampleError{s, fmt.Errorf("vertex %d is not finite: the cloth exploded", v)}
		}
	}
	st := sr.Stats
	res.Stats = wrinkle.SampleStats{
		Converged: sr.Converged, Steps: sr.Frames, Residual: sr.KineticEnergy,
		MaxStrain: st.MaxStretch, MaxPenetration: st.MaxDepth, Penetrating: st.Deep,
	}
	res.Stalled = sr.Stalled
	return pos, res, nil
}

// RigCreases returns the creases of rig's elbows, knees and hips: each
// hinge's joint between the proximal role's joint (shoulder, hip) and the
// end of its own bone (wrist, ankle), and each hip between the trunk (the
// end of the spine's bone, the neck) and the end of the thigh (the knee),
// where a thigh raised past 75° passes into the belly.
func RigCreases(rig *wrinkle.Rig) []skel.Crease {
	var out []skel.Crease
	for _, h := range [...][2]wrinkle.Role{
		{wrinkle.LeftShoulder, wrinkle.LeftElbow}, {wrinkle.RightShoulder, wrinkle.RightElbow},
		{wrinkle.LeftHip, wrinkle.LeftKnee}, {wrinkle.RightHip, wrinkle.RightKnee},
	} {
		p, j := rig.Roles[h[0]], rig.Roles[h[1]]
		out = append(out, skel.Crease{Proximal: p.Chain[0], Joint: j.Chain[0], Distal: j.End})
	}
	for _, h := range [...]wrinkle.Role{wrinkle.LeftHip, wrinkle.RightHip} {
		out = append(out, skel.Crease{Proximal: rig.Roles[wrinkle.Spine].End, Joint: rig.Roles[h].Chain[0], Distal: rig.Roles[h].End})
	}
	return out
}

// SettingsCreases returns the creases db's samples settled with (its build
// settings' "creases", by joint name), as joints of sk; none for a
// database built without them.
func SettingsCreases(db *wrinkle.DB, sk *skel.Skeleton) ([]skel.Crease, error) {
	var s struct {
		Creases []string `json:"creases"`
	}
	if len(db.Header.Settings) > 0 {
		if err := json.Unmarshal(db.Header.Settings, &s); err != nil {
			return nil, fmt.Errorf("build: database settings: %w", err)
		}
	}
	var out []skel.Crease
	for _, c := range s.Creases {
		names := strings.Split(c, "/")
		var j [3]int
		ok := len(names) == 3
		for k := 0; ok && k < 3; k++ {
			j[k], ok = sk.Index(names[k])
		}
		if !ok {
			return nil, fmt.Errorf("build: database settings: crease %q: want three joints of the skeleton as proximal/joint/distal", c)
		}
		out = append(out, skel.Crease{Proximal: j[0], Joint: j[1], Distal: j[2]})
	}
	return out, nil
}
