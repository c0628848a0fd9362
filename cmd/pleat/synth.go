package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/online"
)

// synthFlags are synth's own flags (the character and clip are
// sceneFlags').
type synthFlags struct {
	db, out     string
	coarseVerts int
	quadric     bool
	noPrealign  bool
	noCalibrate bool
	smooth      int
	thickness   float64 // mm
	serial      bool
	minInfl     float64
}

func (f *synthFlags) options() (online.Options, error) {
	var o online.Options
	if f.coarseVerts != 0 && (f.coarseVerts < 16 || f.coarseVerts > 100000) {
		return o, fmt.Errorf("--coarse-verts %d: want 16 to 100000 (0: 700)", f.coarseVerts)
	}
	if f.smooth < -1 || f.smooth > 1000 {
		return o, fmt.Errorf("--smooth %d: want -1 (none) to 1000", f.smooth)
	}
	if math.IsNaN(f.thickness) || f.thickness > 50 {
		return o, fmt.Errorf("--thickness %g mm: want at most 50 (negative: no push-out)", f.thickness)
	}
	if !(f.minInfl < 0.5) {
		return o, fmt.Errorf("--min-influence %g: want below 0.5 (negative: the database's influence maps as they are)", f.minInfl)
	}
	o.MinInfluence, o.NoCalibrate = f.minInfl, f.noCalibrate
	o.Coarse.Verts, o.Coarse.Quadric, o.Transfer.Smooth, o.Serial, o.NoPrealign = f.coarseVerts, f.quadric, f.smooth, f.serial, f.noPrealign
	switch {
	case f.thickness < 0:
		o.Thickness = -1
	case f.thickness > 0:
		o.Thickness = f.thickness / 1000
	}
	return o, nil
}

func newSynthCmd() *cobra.Command {
	var sf sceneFlags
	var f synthFlags
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Synthesize a wrinkled garment through a clip from a wrinkle database",
		Long: `synth runs the online phase of wang2010 (§3.2-3.4) through a whole clip:
per frame it synthesizes the fine garment from the wrinkle database
(per-joint interpolation and influence blending), steps a coarse garment
(the fine one decimated to about 700 vertices) with the cloth simulator
(BDF2, no self-collision), transfers the wrinkles onto it (Eqs. 5-6,
smoothed) and pushes the result a safety distance out of the body.

The character and garments must be those the database was built for (the
procedural suit needs the --resolution given to builddb): synth checks the
rig and the garment against the database and says which differs. Every
joint the database samples must be in the clip (.bvh clips are checked by
joint name). Joint angles beyond the database's sampled range are clamped
to the nearest sampled angle; synth says which joints and how often.

Output by extension: .glb/.gltf (body + garment as vertex animation),
.pc2 (plus the rest mesh as .obj beside it), or a folder/ of OBJ frames.
Ctrl-C or SIGTERM stops after the current frame and writes the frames done.`,
		Example: `  pleat builddb --spec small --resolution 3000 --out out/small.pdb
  pleat synth --db out/small.pdb --resolution 3000 --motion walk --out out/synth.glb
  pleat synth --db out/suit.pdb --character $PLEAT_ASSETS/makehuman \
      --garment male_casualsuit02 \
      --motion $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh --fps 30 --out out/walk.pc2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runSynth(ctx, cmd, &sf, &f)
		},
	}
	sf.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "", "wrinkle database (.pdb) built by pleat builddb for this character and garment (required)")
	fl.StringVarP(&f.out, "out", "o", "out/synth.glb", "output: .glb/.gltf, .usda/.usdz (body + garments, time-sampled points), .pc2 (+ .obj rest mesh), or a folder/ of OBJ frames")
	fl.IntVar(&f.coarseVerts, "coarse-verts", 0, "vertices of the coarse simulated garment, shared by its pieces (0: 700)")
	fl.BoolVar(&f.quadric, "coarse-quadric", false, "decimate the coarse garment by quadric error instead of shortest edge first (even edges)")
	fl.BoolVar(&f.noPrealign, "no-prealign", false, "blend the joints' wrinkle meshes before the transfer instead of aligning each to the coarse simulation first (wang2010 §3.4)")
	fl.BoolVar(&f.noCalibrate, "no-calibrate", false, "leave the coarse simulation's rest-pose bias against the database's fine rest settle uncorrected")
	fl.IntVar(&f.smooth, "smooth", 0, "Laplacian smoothing steps of the transferred offsets (0: 10; -1: none)")
	fl.Float64Var(&f.thickness, "thickness", 0, "safety distance of the result from the body in mm (0: the simulator's, 3 mm; negative: no push-out)")
	fl.BoolVar(&f.serial, "serial", false, "run synthesis and coarse simulation one after the other (same results)")
	fl.Float64Var(&f.minInfl, "min-influence", 0, "soft threshold of the joints' influence weights (Eq. 4): each is lowered by it and the rest renormalised, so vertices skip joints that barely move them (0: "+fmt.Sprint(online.DefaultMinInfluence)+"; negative: the database's weights as they are)")
	_ = cmd.MarkFlagRequired("db")
	return cmd
}

func runSynth(ctx context.Context, cmd *cobra.Command, sf *sceneFlags, f *synthFlags) error {
	w := cmd.OutOrStdout()
	opt, err := f.options()
	if err != nil {
		return err
	}
	if err := sim.CheckPath(f.out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := checkWritable(f.out); err != nil {
		return err
	}
	db, err := wrinkle.ReadFile(f.db)
	if err != nil {
		return fmt.Errorf("--db %s: %w", f.db, err)
	}
	if db.Header.Shards != 1 {
		return fmt.Errorf("--db %s: shard %d of %d: merge the shards first (pleat builddb merge)", f.db, db.Header.Shard, db.Header.Shards)
	}
	if sf.spec.FPS == 0 {
		sf.spec.FPS = 30
	}
	s, err := sf.load()
	if err != nil {
		return err
	}
	describeScene(w, s)
	if err := checkClipJoints(db, s, sf.spec.Motion); err != nil {
		return err
	}
	if len(s.Garments) > 0 {
		if err := online.CheckGarments(db, s.Character, s.Garments); err != nil {
			return fmt.Errorf("--db %s: %w (a procedural suit must be loaded with the --resolution it was built with)", f.db, err)
		}
	}
	clamps := map[string]int{}
	opt.FPS = s.Clip.FPS
	opt.OnClamp = func(c wrinkle.Clamp) {
		fmt.Fprintf(w, "clamped    %s %s: %.1f° outside the database's %.0f..%.0f° (clamped from now on)\n",
			c.Role, c.Role.DoFName(c.DoF), c.Angle*180/math.Pi, c.Lo*180/math.Pi, c.Hi*180/math.Pi)
	}
	p, err := online.New(db, s.Character, opt)
	if err != nil {
		return fmt.Errorf("--db %s: %w", f.db, err)
	}
	defer p.Close()
	for _, n := range p.Notes() {
		fmt.Fprintln(w, "note      ", n)
	}
	fmt.Fprintf(w, "database   %s: %d samples, garment %s of %d vertices; coarse garment %d vertices\n",
		f.db, len(db.Samples), db.Header.Garment.Name, p.NumVerts(), len(p.Coarse().Mesh.Verts))
	res, stats, err := synthClip(ctx, cmd, p, s, clamps)
	if res.NumFrames() > 0 {
		printSynthReport(w, stats, p.NumVerts(), clamps)
		files, werr := res.Write(f.out, s)
		for _, name := range files[:min(len(files), 3)] {
			fmt.Fprintln(w, "wrote", name)
		}
		if len(files) > 3 {
			fmt.Fprintf(w, "wrote %d files\n", len(files))
		}
		if werr != nil {
			return werr
		}
	}
	if err == nil && res.NumFrames() < len(s.Clip.Poses) {
		err = fmt.Errorf("interrupted: the output holds %d of %d frames (partial)", res.NumFrames(), len(s.Clip.Poses))
	}
	return err
}

// synthClip steps the pipeline through the clip with a progress bar and
// returns the frames as a sim.Result (one piece: the fine garment) for
// its writers. A context that ends stops it after the current frame.
func synthClip(ctx context.Context, cmd *cobra.Command, p *online.Pipeline, s *scene.Scene, clamps map[string]int) (*sim.Result, []online.Stats, error) {
	m := p.Mesh()
	piece := &sim.Piece{Name: "synth", Mesh: m, Weights: p.Weights()}
	res := &sim.Result{Pieces: []*sim.Piece{piece}, FPS: s.Clip.FPS, Frames: [][][]geom.Vec3{nil}}
	var stats []online.Stats
	bar := newBar(cmd.ErrOrStderr(), len(s.Clip.Poses), "synthesizing")
	defer bar.Finish()
	for f, pose := range s.Clip.Poses {
		if ctx.Err() != nil {
			return res, stats, nil
		}
		if f+1 < len(s.Clip.Poses) {
			p.Ahead(s.Clip.Poses[f+1])
		}
		x := make([]geom.Vec3, p.NumVerts())
		st, err := p.Step(ctx, pose, x)
		if err != nil {
			if ctx.Err() != nil {
				return res, stats, nil
			}
			return res, stats, err
		}
		for r := wrinkle.Role(0); r < wrinkle.NumRoles; r++ {
			if st.Clamped&(1<<r) != 0 {
				clamps[r.String()]++
			}
		}
		res.Frames[0] = append(res.Frames[0], x)
		stats = append(stats, st)
		_ = bar.Set(f + 1)
	}
	return res, stats, nil
}

// checkClipJoints refuses a character whose rig is not the database's,
// and a BVH clip that drives no rig joint of a role the database samples
// (after the name map or the scene's body-part matching,
// scene.Scene.ClipMatch): the scene would hold that joint at rest and the
// synthesized wrinkles would not follow the mocap. motionPath names the
// clip in the error.
func checkClipJoints(db *wrinkle.DB, s *scene.Scene, motionPath string) error {
	names := db.Header.Rig.Names
	rig, err := wrinkle.Bind(s.Character.Skeleton, &names)
	if err != nil {
		return fmt.Errorf("--db: the database's rig does not bind to the character's skeleton: %w", err)
	}
	if err := db.CheckRig(rig); err != nil {
		return fmt.Errorf("--db: %w (the database was built on another character)", err)
	}
	if s.ClipMatch == nil {
		return nil // a procedural clip drives every joint
	}
	// The rig joints the clip drives, after the name map or the
	// body-part matching the scene did (scene.Scene.ClipMatch).
	have := map[string]bool{}
	for _, rigJoint := range s.ClipMatch {
		have[strings.ToLower(rigJoint)] = true
	}
	var missing []string
	for r := wrinkle.Role(0); r < wrinkle.NumRoles; r++ {
		if _, ok := db.Spec.JointOf(r); !ok {
			continue
		}
		for _, j := range rig.Roles[r].Chain {
			n := s.Character.Skeleton.Joint(j).Name
			if !have[strings.ToLower(n)] {
				missing = append(missing, fmt.Sprintf("%s (%s)", n, r))
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("--motion %s: the clip's skeleton lacks joints the database samples: %s (rename them with --name-map)",
			motionPath, strings.Join(missing, ", "))
	}
	return nil
}

// printSynthReport prints timings per stage (as wang2010's Table 1),
// penetration before the push-out and clamping.
func printSynthReport(w io.Writer, stats []online.Stats, verts int, clamps map[string]int) {
	if len(stats) == 0 {
		return
	}
	steady := stats
	if len(steady) > 1 {
		steady = steady[1:] // frame 0 settles the coarse garment
	}
	mean := func(get func(online.Stats) time.Duration) float64 {
		var s float64
		for _, st := range steady {
			s += get(st).Seconds()
		}
		return s / float64(len(steady))
	}
	syn := mean(func(s online.Stats) time.Duration { return s.Synthesis })
	crs := mean(func(s online.Stats) time.Duration { return s.Coarse })
	trf := mean(func(s online.Stats) time.Duration { return s.Transfer })
	tot := mean(func(s online.Stats) time.Duration { return s.Total })
	fmt.Fprintf(w, "synthesized %d frames of %d vertices; mean per frame after the first (Table 1):\n", len(stats), verts)
	fmt.Fprintf(w, "  wrinkle synthesis   %7.2f ms\n", syn*1000)
	fmt.Fprintf(w, "  coarse simulation   %7.2f ms\n", crs*1000)
	fmt.Fprintf(w, "  wrinkle transfer    %7.2f ms (with push-out)\n", trf*1000)
	fmt.Fprintf(w, "  total               %7.2f ms (%.1f frames/s; synthesis and simulation overlap)\n", tot*1000, 1/math.Max(tot, 1e-9))
	var push wrinkle.PushStats
	for _, st := range stats {
		push.Add(st.Push)
	}
	vf := float64(verts * len(stats))
	fmt.Fprintf(w, "contact     before push-out: %d vertex-frames inside the body (%.3f%%), %d more than 2 mm (%.3f%%), deepest %.1f mm; %d pushed\n",
		push.Inside, 100*float64(push.Inside)/vf, push.Deep, 100*float64(push.Deep)/vf, push.MaxDepth*1000, push.Pushed)
	if len(clamps) > 0 {
		var parts []string
		for r, n := range clamps {
			parts = append(parts, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(parts)
		fmt.Fprintf(w, "clamped     frames with angles beyond the database, per joint: %s\n", strings.Join(parts, ", "))
	}
}
