package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/build"
)

// builddbFlags are builddb's own flags (the character and simulator flags
// are sceneFlags' and simFlags').
type builddbFlags struct {
	spec, shard, out, journal string
	jobs                      int
	transition, maxTime       float64
	stall                     float64
	poseTol                   float64 // mm
	keepInvalid, skipInvalid  bool
	skipUnsettled, noCoarse   bool
	noCoarseSamples, fullFine bool
	coarseSampleVerts         int
	noSqueeze                 bool
	noCreases                 bool
	strainRelax               float64
	coarse                    int
}

func newBuilddbCmd() *cobra.Command {
	var sf sceneFlags
	var mf simFlags
	var f builddbFlags
	cmd := &cobra.Command{
		Use:   "builddb",
		Short: "Build a wrinkle database: the garment settled in each sampled joint pose",
		Long: `builddb builds the wrinkle database of wang2010 §3.1 for a garment on a
character: for each sample of the sampling spec (a joint turned on its
grid, the rest of the body at rest) a fresh cloth simulation moves the
body from the rest pose into the sample's pose and holds it until the cloth
is at rest; the settled garment is stored (quantised, compressed).

Before simulating, every sample's pose is checked: a moving limb that
passes more than --pose-tolerance into the rest of the body is a pose no
body takes, and builddb lists those samples and stops (narrow the spec,
--keep-invalid to simulate them anyway, or --skip-invalid to record them as
missing: synthesis then fills them in from their valid neighbours).

Samples run --jobs at a time, one solver thread each. Finished samples are
kept in a journal beside the output (--journal), so Ctrl-C, SIGTERM or a
crash loses at most the samples in flight and rerunning the same command
continues. --shard i/n builds samples i, i+n, i+2n, ... into a shard file;
'pleat builddb merge' joins the shards into a file identical to a
one-machine build. A sample whose simulation fails or explodes stops the
build with its name; one that does not come to rest is kept and reported
(or recorded as missing with --skip-unsettled).`,
		Example: `  pleat builddb --out out/suit.pdb                       # procedural suit, default spec
  pleat builddb --spec small --out out/small.pdb          # 53 samples, for a quick look
  pleat builddb --resolution 700 --spec tiny.json --out out/tiny.pdb
  pleat builddb --character $PLEAT_ASSETS/makehuman --garment male_casualsuit02 \
      --verts 25000 --shard 3/16 --jobs 1 --out /data/suit-3.pdb
  pleat builddb merge --out suit.pdb /data/suit-*.pdb
  pleat db inspect suit.pdb`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runBuilddb(ctx, cmd, &sf, &mf, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&sf.spec.Character, "character", "", "MakeHuman folder (with body/base.obj and rigs/), a base.obj, or a skinned .glb/.gltf; empty: the procedural mannequin and its suit")
	fl.StringVar(&sf.spec.Rig, "rig", "", "MakeHuman rig: cmu_mb (default), default, or a .mhskel path")
	fl.StringArrayVar(&sf.spec.Garments, "garment", nil, "a garment: a .mhclo, a garment name in the MakeHuman folder's clothes/, or an .obj/.glb/.gltf mesh in the character's rest pose (repeatable)")
	fl.StringArrayVar(&sf.spec.GarmentsFromCharacter, "garment-from-character", nil, `wear a mesh of the .glb/.gltf character's own file as a garment: its node name, or "all" for every mesh but the body (repeatable)`)
	fl.StringArrayVar(&sf.spec.Pins, "pin", nil, "a garment vertex group (OBJ group, glTF material) to hold to the body (repeatable)")
	fl.StringVar(&sf.place, "garment-place", "auto", `where .obj/.glb garments sit: "auto", "asis" or "SCALE[,DX,DY,DZ]"`)
	fl.IntVar(&sf.spec.Resolution, "resolution", 0, "approximate total vertex count of the procedural suit (default about 4000; 700 to 50000)")
	mf.add(cmd)
	_ = fl.MarkHidden("settle") // a clip's first-pose settle: builddb settles each sample instead
	fl.StringVar(&f.spec, "spec", "default", `sampling spec: a JSON file, "default" (embedded, 469 samples) or "small" (embedded, 53 samples on coarse grids)`)
	fl.StringVar(&f.shard, "shard", "0/1", "build the interleaved shard i/n: samples i, i+n, ...")
	fl.IntVar(&f.jobs, "jobs", 0, "samples simulated at once (0: one per CPU)")
	fl.StringVarP(&f.out, "out", "o", "out/suit.pdb", "database (or shard) file to write")
	fl.StringVar(&f.journal, "journal", "", "journal of finished samples (default: --out with extension .pdj)")
	fl.Float64Var(&f.transition, "transition", 0.5, "seconds over which the body moves from the rest pose into each sample's pose")
	fl.Float64Var(&f.maxTime, "settle-time", 4, "longest simulated seconds per sample, transition included (a sample not at rest by then is kept and reported)")
	fl.Float64Var(&f.stall, "settle-stall", 0.5, "seconds a sample's garment may hold its shape without coming to rest (buzzing) before its settle gives up, kept and reported (0: 0.5; negative: never)")
	fl.Float64Var(&f.poseTol, "pose-tolerance", build.DefaultPoseTolerance*1000, "mm a moving limb may reach into the rest of the body (negative: no pose check)")
	fl.BoolVar(&f.keepInvalid, "keep-invalid", false, "simulate samples whose limb passes through the body instead of stopping")
	fl.BoolVar(&f.skipInvalid, "skip-invalid", false, "record samples whose limb passes through the body as missing (not simulated) instead of stopping")
	fl.Float64Var(&f.strainRelax, "strain-relax", build.DefaultStrainRelax, "over-relaxation of the strain limiting sweeps while samples settle, 1 to 1.95 (1: plain Gauss–Seidel; 0: the default)")
	fl.IntVar(&f.coarse, "coarse", 0, fmt.Sprintf("vertices of the coarse refinement each sample settles on first, then carried to --verts and settled again (0: --verts/%d when --verts is at least %d; -1: --verts/%d whenever --verts refines)", build.DefaultCoarseRatio, build.DefaultCoarseMinVerts, build.DefaultCoarseRatio))
	fl.BoolVar(&f.noCoarse, "no-coarse", false, "settle each sample on the --verts garment alone (no coarse stage)")
	fl.BoolVar(&f.fullFine, "full-fine-stage", false, "after the coarse stage, settle the whole garment again (by default only the part the sample's joint stores, 25 mm around it, the cut held where the coarse stage put it)")
	fl.BoolVar(&f.noCoarseSamples, "no-coarse-samples", false, "leave out the coarse samples: the online pipeline's coarse garment settled in each sample's pose, with which synth and eval correct the coarse simulation pose by pose (without them, only the rest pose's bias)")
	fl.IntVar(&f.coarseSampleVerts, "coarse-sample-verts", 0, "vertices of the coarse samples' garment: the --coarse-verts synth and eval will be given (0: their default, 700)")
	fl.BoolVar(&f.noSqueeze, "no-squeeze", false, "leave cloth caught in a closing crease of the body (inner elbow, back of the knee, armpit) where the colliders hold it, instead of moving it toward the opening")
	fl.BoolVar(&f.noCreases, "no-creases", false, "skin the body as it is where a deeply bent elbow or knee, or a thigh raised against the belly, passes into itself, instead of flattening the two segments against each other")
	fl.BoolVar(&f.skipUnsettled, "skip-unsettled", false, "record samples not at rest within --settle-time as missing instead of keeping them")
	cmd.AddCommand(newBuilddbMergeCmd())
	return cmd
}

// builderOptions turns the flags into build options, checking their
// bounds before any work.
func builderOptions(mf *simFlags, f *builddbFlags) (build.Options, error) {
	var opt build.Options
	so, err := mf.options(30)
	if err != nil {
		return opt, err
	}
	so.Settle = 0 // Run's first-pose settle: not used by SettleTo
	opt.Sim = so
	if opt.Shard, opt.Shards, err = build.ParseShard(f.shard); err != nil {
		return opt, fmt.Errorf("--shard: %w", err)
	}
	if f.jobs < 0 || f.jobs > 1024 {
		return opt, fmt.Errorf("--jobs %d: want 0 (one per CPU) to 1024", f.jobs)
	}
	if !(f.transition >= 0 && f.transition <= 10) {
		return opt, fmt.Errorf("--transition %g s: want 0 to 10", f.transition)
	}
	if !(f.maxTime > 0 && f.maxTime <= 60) {
		return opt, fmt.Errorf("--settle-time %g s: want more than 0, at most 60", f.maxTime)
	}
	if math.IsNaN(f.stall) || f.stall > 60 {
		return opt, fmt.Errorf("--settle-stall %g s: want at most 60 (negative: never)", f.stall)
	}
	if math.IsNaN(f.poseTol) || f.poseTol > 200 {
		return opt, fmt.Errorf("--pose-tolerance %g mm: want at most 200 (negative: off)", f.poseTol)
	}
	opt.Jobs = f.jobs
	opt.Settle = sim.SettleOptions{Transition: f.transition, MaxTime: f.maxTime, Stall: f.stall}
	if f.transition == 0 {
		opt.Settle.Transition = 1e-9 // SettleTo reads 0 as its default
	}
	opt.PoseTolerance = f.poseTol / 1000
	if f.poseTol == 0 {
		opt.PoseTolerance = 1e-9
	}
	opt.KeepInvalid = f.keepInvalid
	opt.SkipInvalid = f.skipInvalid
	opt.SkipUnsettled = f.skipUnsettled
	if f.strainRelax != 0 && !(f.strainRelax >= 1 && f.strainRelax <= 1.95) {
		return opt, fmt.Errorf("--strain-relax %g: want 1 to 1.95 (0: %g)", f.strainRelax, build.DefaultStrainRelax)
	}
	opt.Sim.StrainLimitRelax = f.strainRelax
	if f.coarse < -1 {
		return opt, fmt.Errorf("--coarse %d: want 0 (the default), -1 (--verts/%d) or a vertex count", f.coarse, build.DefaultCoarseRatio)
	}
	opt.Coarse, opt.NoCoarse, opt.NoSqueeze, opt.NoCreases = f.coarse, f.noCoarse, f.noSqueeze, f.noCreases
	if f.coarseSampleVerts < 0 {
		return opt, fmt.Errorf("--coarse-sample-verts %d: want 0 (the default) or a vertex count", f.coarseSampleVerts)
	}
	opt.NoCoarseSamples = f.noCoarseSamples
	opt.FullFineStage = f.fullFine
	opt.CoarseSamples.Verts = f.coarseSampleVerts
	return opt, nil
}

func loadSpec(path string) (*wrinkle.Spec, error) {
	switch path {
	case "", "default":
		return wrinkle.DefaultSpec(), nil
	case "small":
		return build.SmallSpec(), nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--spec: %w", err)
	}
	if st.Size() > wrinkle.MaxSpecBytes {
		return nil, fmt.Errorf("--spec %s: %d bytes, more than a spec's %d", path, st.Size(), wrinkle.MaxSpecBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--spec: %w", err)
	}
	s, err := wrinkle.ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("--spec %s: %w", path, err)
	}
	return s, nil
}

func runBuilddb(ctx context.Context, cmd *cobra.Command, sf *sceneFlags, mf *simFlags, f *builddbFlags) error {
	w := cmd.OutOrStdout()
	opt, err := builderOptions(mf, f)
	if err != nil {
		return err
	}
	if err := checkWritable(f.out); err != nil {
		return err
	}
	spec, err := loadSpec(f.spec)
	if err != nil {
		return err
	}
	// A short clip: the scene loader wants one, the build does not use it.
	sf.ground, sf.spec.Seconds, sf.armClearance = "none", 0.1, 0
	s, err := sf.load()
	if err != nil {
		return err
	}
	journal := f.journal
	if journal == "" {
		journal = build.JournalPath(f.out)
	}
	bar := newBar(cmd.ErrOrStderr(), 1, "building")
	logLines := !isTerminal(cmd.ErrOrStderr())
	opt.Progress = func(p build.Progress) {
		bar.ChangeMax(p.Total)
		bar.Describe(fmt.Sprintf("building (ETA %s)", p.ETA.Round(time.Second)))
		_ = bar.Set(p.Done)
		if logLines {
			fmt.Fprintf(w, "%d/%d %s\n", p.Done, p.Total, sampleLine(p.Last, p.ETA))
		}
	}
	t0 := time.Now()
	b, err := build.NewContext(ctx, s.Character, s.Garments, spec, opt)
	if err != nil {
		return err
	}
	h := b.Build().Header()
	rest := b.RestSettle()
	conv := "at rest"
	if !rest.Stats.Converged {
		conv = "NOT at rest"
	}
	fmt.Fprintf(w, "building %d of %d samples (shard %d/%d) of %s, %d vertices, on %s; prepared in %.1f s, the rest pose settled (%s) in %d frames (%.1f s), strain %.1f%%, depth %.1f mm\n",
		len(b.Build().ShardSamples()), h.Samples, h.Shard, h.Shards, h.Garment.Name, b.NumVerts(), s.Character.Name, time.Since(t0).Seconds(),
		conv, rest.Stats.Steps, (rest.Setup + rest.Settle).Seconds(), rest.Stats.MaxStrain*100, rest.Stats.MaxPenetration*1000)
	sum, err := b.BuildFile(ctx, f.out, journal)
	_ = bar.Finish()
	printBuildSummary(w, sum)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted: %d of %d samples are kept in %s; run the same command again to continue",
				sum.Resumed+len(sum.Samples), len(b.Build().ShardSamples()), journal)
		}
		return err
	}
	st, err := os.Stat(f.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s (%.2f MiB)\n", f.out, float64(st.Size())/(1<<20))
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// sampleLine is one finished sample in a log line.
func sampleLine(r build.SampleResult, eta time.Duration) string {
	st := r.Stats
	if r.Missing != "" && st.Steps == 0 {
		return fmt.Sprintf("%s: skipped, recorded as missing, ETA %s", r.Pose.String(), eta.Round(time.Second))
	}
	conv := "at rest"
	switch {
	case r.Stalled:
		conv = "held in shape but NOT at rest (stalled)"
	case !st.Converged:
		conv = "NOT at rest"
	}
	frames, cpu := fmt.Sprint(st.Steps), ""
	if r.CoarseSteps > 0 {
		frames = fmt.Sprintf("%d coarse + %d", r.CoarseSteps, st.Steps)
		cpu = fmt.Sprintf(", coarse %.2f s", r.CoarseCPU.Seconds())
	}
	if r.CoarseSampleSteps > 0 {
		rest := ""
		if !r.CoarseSampleAtRest {
			rest = ", not at rest"
		}
		frames += fmt.Sprintf(" (+ %d of the coarse sample%s)", r.CoarseSampleSteps, rest)
		cpu += fmt.Sprintf(", coarse sample %.2f s", r.CoarseSampleCPU.Seconds())
	}
	return fmt.Sprintf("%s: %s after %s frames, strain %.1f%%, depth %.1f mm, setup %.2f s + settle %.2f s (CPU %.2f s%s), ETA %s",
		r.Pose.String(), conv, frames, st.MaxStrain*100, st.MaxPenetration*1000,
		r.Setup.Seconds(), r.Settle.Seconds(), r.CPU.Seconds(), cpu, eta.Round(time.Second))
}

func printBuildSummary(w io.Writer, sum build.Summary) {
	n := len(sum.Samples)
	if n == 0 {
		if sum.Resumed > 0 {
			fmt.Fprintf(w, "all %d samples were already in the journal\n", sum.Resumed)
		}
		return
	}
	sim, setup, settle, cpu, frames := sum.Timing()
	fmt.Fprintf(w, "finished %d samples in %.1f s (%d resumed from the journal)", n, sum.Wall.Seconds(), sum.Resumed)
	if sim > 0 {
		fmt.Fprintf(w, "; simulated %d: per sample setup %.2f s + settle %.2f s (setup %.0f%% of simulator time), CPU %.2f s, %.0f frames on average",
			sim, setup.Seconds()/float64(sim), settle.Seconds()/float64(sim), 100*setup.Seconds()/(setup+settle).Seconds(), cpu.Seconds()/float64(sim), frames)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "worst strain %.1f%% (sample %d), worst penetration %.1f mm (sample %d)\n",
		sum.WorstStrain*100, sum.WorstStrainSample, sum.WorstPenetration*1000, sum.WorstPenetrationSample)
	if len(sum.NotConverged) > 0 {
		fmt.Fprintf(w, "not at rest within --settle-time (kept): %d samples %v\n", len(sum.NotConverged), sum.NotConverged)
		if len(sum.Stalled) > 0 {
			fmt.Fprintf(w, "  of which held in shape but buzzing, given up early (stalled): %d samples %v\n", len(sum.Stalled), sum.Stalled)
		}
	}
	if len(sum.Overstretched) > 0 {
		fmt.Fprintf(w, "edges stretched past %.0f%% (%.1f times the strain limit), the garment too tight for the pose (kept): %d samples %v\n",
			100*build.OverstretchFactor*sum.StrainLimit, build.OverstretchFactor, len(sum.Overstretched), sum.Overstretched)
	}
	if len(sum.Invalid) > 0 {
		fmt.Fprintf(w, "the limb passes through the body: %d samples %v\n", len(sum.Invalid), sum.Invalid)
	}
	if len(sum.Missing) > 0 {
		fmt.Fprintf(w, "recorded as missing (synthesis fills them in from their neighbours): %d samples %v\n", len(sum.Missing), sum.Missing)
	}
}

func newBuilddbMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out FILE SHARD...",
		Short: "Join the shard files of a build into the whole database",
		Long: `merge joins the shard files of one build (pleat builddb --shard i/n, in
any order) into the whole database, byte-identical to a one-machine build.
Every shard must be given once, and all must be of the same build (garment,
rig, spec, settings); otherwise the error names the shard and what differs.`,
		Example: `  pleat builddb merge --out suit.pdb suit-0.pdb suit-1.pdb suit-2.pdb`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkWritable(out); err != nil {
				return err
			}
			if err := build.MergeFiles(out, args); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shards into %s\n", len(args), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "database file to write")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
