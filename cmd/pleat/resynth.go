package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/meshio/pc2"
	"github.com/pleat-dev/pleat/resynth"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// resynthFlags are the resynthesis options.
type resynthFlags struct {
	opt     resynth.Options
	pushOut float64 // mm; 0 off
}

// add adds the flags; pushOut is --push-out's default (mm).
func (f *resynthFlags) add(cmd *cobra.Command, pushOut float64) {
	fl := cmd.Flags()
	fl.Float64Var(&f.pushOut, "push-out", pushOut, "keep the garment this many mm outside the skinned body after reconstruction, as the simulator does (0: off)")
	fl.Float64Var(&f.opt.Jump, "jump", 0, "penalty of a transition between database clips or frames, in matching-cost metres (0: 0.5)")
	fl.Float64Var(&f.opt.Skip, "skip", 0, "penalty for repeating or dropping a database frame (0: 0.05)")
	fl.Float64Var(&f.opt.VelWeight, "vel-weight", 0, "weight of joint velocities in the matching cost, seconds (0: 0.1)")
	fl.IntVar(&f.opt.Neighbours, "neighbours", 0, "database frames a transition may jump to, nearest first (0: 32)")
	fl.IntVar(&f.opt.Window, "window", 0, "frames (odd) over which transitions between database segments are smoothed (0: 5, the paper's)")
	fl.Float64Var(&f.opt.ClothWeight, "cloth-weight", 0, "weight of the cloth's change of state (RMS distance in m, relative to the body) in the transition cost (0: 10; negative: off, skeleton only)")
	fl.Float64Var(&f.opt.Fallback, "fallback", 0, "matching cost σ (m) over which frames blend towards the skinned rest shape, by 1−exp(−(cost/σ)²) (0: off)")
	fl.Float64Var(&f.opt.Smooth, "smooth", 0, "σ in frames of the Gaussian that smooths the garment's motion relative to the skinned body in time (0: 2; negative: off)")
	fl.Float64Var(&f.opt.AnchorWeight, "anchor-weight", 0, "weight of every other vertex's soft target (its database position carried by its heaviest joint) relative to the mean diagonal (0: none)")
	fl.Float64Var(&f.opt.ConstraintWeight, "constraint-weight", 0, "weight of the joint-nearest vertices' targets relative to the mean diagonal of the Poisson system (0: 10)")
}

func newResynthCmd() *cobra.Command {
	var sf sceneFlags
	var rf resynthFlags
	var dbPath, out, truth, reportOut string
	var without []string
	cmd := &cobra.Command{
		Use:   "resynth",
		Short: "Animate a garment for a new motion from a database of cloth animation (white2007)",
		Long: `resynth animates the garment for a motion by stitching short segments of
a cloth database (pleat resynth build) instead of simulating: a Viterbi
path through the database's frames by joint positions and velocities, the
path resampled in time, transitions smoothed, and each frame rebuilt from
deformation gradients by one Poisson solve.

The character and garments (--character, --garment, ...) must be those the
database was built with; the motion is resampled to the database's frame
rate (--fps, if given, must be that rate). With --truth (a PC2 of the same
motion simulated, as pleat simulate writes it) it reports the error per
frame against it beside the skinning baseline. The garment is kept
--push-out mm outside the skinned body. Output by extension: .glb/.gltf
(with the body), .pc2 (+ .obj).`,
		Example: `  pleat resynth build --out out/db.prsd walk armraise kneebend
  pleat resynth --db out/db.prsd --motion twist --out out/twist.glb`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if dbPath == "" {
				return fmt.Errorf("--db is required (pleat resynth build writes one)")
			}
			if err := checkWritable(out, reportOut); err != nil {
				return err
			}
			db, err := resynth.ReadFile(dbPath)
			if err != nil {
				return err
			}
			for _, name := range without {
				if db.Clip(name) == nil {
					return fmt.Errorf("--without %s: no such clip in %s", name, dbPath)
				}
			}
			db = db.Without(without...)
			if len(db.Clips) > 0 {
				if fps := db.Clips[0].FPS; cmd.Flags().Changed("fps") && sf.spec.FPS != fps {
					return fmt.Errorf("--fps %g: the database is at %g frames/s, and the motion is resampled to it", sf.spec.FPS, fps)
				}
				sf.spec.FPS = db.Clips[0].FPS
			}
			s, err := sf.load()
			if err != nil {
				return err
			}
			describeScene(w, s)
			return runResynth(ctx, cmd, db, s, rf, out, truth, reportOut)
		},
	}
	sf.add(cmd)
	rf.add(cmd, 3)
	cmd.Flags().StringVar(&dbPath, "db", "", "the cloth database (.prsd)")
	cmd.Flags().StringVarP(&out, "out", "o", "out/resynth.glb", "output: .glb/.gltf, .pc2 (+ .obj rest mesh), or a folder/ of OBJ frames")
	cmd.Flags().StringSliceVar(&without, "without", nil, "leave these clips of the database out (to resynthesise one of its own motions)")
	cmd.Flags().StringVar(&truth, "truth", "", "a .pc2 of the motion simulated: report the error against it")
	cmd.Flags().StringVar(&reportOut, "report", "", "write a per-frame table (CSV): database clip, frame, cost, and with --truth errors and accelerations")
	cmd.AddCommand(newResynthBuildCmd(), newResynthEvalCmd())
	return cmd
}

// withPushOut returns opt with a Post step that keeps the garment
// pushOut mm outside ch's skinned body (wrinkle.BodyPush), and a function
// to release it.
func withPushOut(opt resynth.Options, db *resynth.DB, ch *character.Character, pushOut float64) (resynth.Options, func(), error) {
	if pushOut == 0 {
		return opt, func() {}, nil
	}
	if !(pushOut > 0 && pushOut < 50) {
		return opt, nil, fmt.Errorf("--push-out %g mm: want 0 (off) to 50", pushOut)
	}
	if err := db.Rig.Check(ch.Skeleton); err != nil {
		return opt, nil, err
	}
	bp, err := wrinkle.NewBodyPush(ch.Body.Verts, ch.Body.Tris, len(db.Garment.Rest), pushOut/1000, 0)
	if err != nil {
		return opt, nil, err
	}
	var body []geom.Vec3
	opt.Post = func(_ int, joints []geom.Rigid, x []geom.Vec3) error {
		body = skel.LBS(ch.Body.Verts, ch.Weights, db.Rig.SkinTransforms(joints, nil), body)
		if err := bp.SetBody(body); err != nil {
			return err
		}
		_, err := bp.Push(x)
		return err
	}
	return opt, bp.Close, nil
}

// runResynth resynthesises s's clip from db and writes the result.
func runResynth(ctx context.Context, cmd *cobra.Command, db *resynth.DB, s *scene.Scene, rf resynthFlags, out, truthPath, reportOut string) error {
	w := cmd.OutOrStdout()
	if err := db.Rig.Check(s.Character.Skeleton); err != nil {
		return err
	}
	opt, done, err := withPushOut(rf.opt, db, s.Character, rf.pushOut)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	syn, err := resynth.New(db, opt)
	if err != nil {
		return err
	}
	defer syn.Close()
	fmt.Fprintf(w, "database   %d clips, %d frames, %d garment vertices; prepared in %.2f s\n", len(db.Clips), db.NumFrames(), len(db.Garment.Rest), time.Since(start).Seconds())
	joints := clipJoints(s.Character.Skeleton, s.Clip.Poses)
	bar := newBar(cmd.ErrOrStderr(), len(joints), "resynthesising")
	res, err := syn.Run(ctx, joints, s.Clip.FPS, func(done, total int) { bar.Set(done) })
	bar.Finish()
	if err != nil {
		return err
	}
	printResynth(w, res)
	var ev *resynth.Eval
	if truthPath != "" {
		tc, err := readTruth(truthPath, db, joints, s.Clip.FPS)
		if err != nil {
			return err
		}
		if ev, err = db.Compare(res.Frames, tc); err != nil {
			return err
		}
		printResynthEval(w, ev)
	}
	files, err := writeResynth(out, db, s, res)
	for _, f := range files {
		fmt.Fprintln(w, "wrote", f)
	}
	if err != nil {
		return err
	}
	if reportOut != "" {
		if err := writeResynthReport(reportOut, res, ev); err != nil {
			return err
		}
		fmt.Fprintln(w, "wrote", reportOut)
	}
	return nil
}

func clipJoints(sk *skel.Skeleton, poses []skel.Pose) [][]geom.Rigid {
	out := make([][]geom.Rigid, len(poses))
	for f, p := range poses {
		out[f] = skel.FK(sk, p, nil)
	}
	return out
}

// readTruth reads a PC2 ground truth of the motion as a clip.
func readTruth(path string, db *resynth.DB, joints [][]geom.Rigid, fps float64) (*resynth.Clip, error) {
	c, err := pc2.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if c.NumPoints != len(db.Garment.Rest) {
		return nil, fmt.Errorf("%s: %d points, the database's garment has %d vertices", path, c.NumPoints, len(db.Garment.Rest))
	}
	if len(c.Frames) != len(joints) {
		return nil, fmt.Errorf("%s: %d frames, the motion %d", path, len(c.Frames), len(joints))
	}
	tc := &resynth.Clip{Name: filepath.Base(path), FPS: fps}
	for f := range c.Frames {
		tc.AppendFrame(joints[f], c.Frames[f])
	}
	return tc, nil
}

func printResynth(w io.Writer, res *resynth.Result) {
	n, mean, med := res.BlockStats()
	cost := 0.0
	for _, st := range res.Steps {
		cost += st.Cost
	}
	clips := map[string]int{}
	for _, st := range res.Steps {
		clips[st.Clip]++
	}
	fmt.Fprintf(w, "path       %d frames in %d blocks (mean %.1f, median %.1f frames); mean matching cost %.3f m\n", len(res.Steps), n, mean, med, cost/float64(max(1, len(res.Steps))))
	var parts []string
	for _, c := range sortedKeys(clips) {
		parts = append(parts, fmt.Sprintf("%s %d", c, clips[c]))
	}
	fmt.Fprintf(w, "sources    %s\n", strings.Join(parts, ", "))
	t := res.Timing
	fmt.Fprintf(w, "time       matching %.3f s, Viterbi %.3f s, reconstruction %.3f s (%.0f frames/s), smoothing %.3f s, push-out %.3f s\n", t.Match.Seconds(), t.Viterbi.Seconds(), t.Reconstruct.Seconds(), float64(len(res.Frames))/t.Reconstruct.Seconds(), t.Smooth.Seconds(), t.Post.Seconds())
}

// mainSource names the database clip most of a path's frames come from,
// with its share.
func mainSource(res *resynth.Result) string {
	count := map[string]int{}
	for _, st := range res.Steps {
		count[st.Clip]++
	}
	best := ""
	for _, c := range sortedKeys(count) {
		if best == "" || count[c] > count[best] {
			best = c
		}
	}
	return fmt.Sprintf("%s %.0f%%", best, 100*float64(count[best])/float64(max(1, len(res.Steps))))
}

func sortedKeys(m map[string]int) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	for i := 1; i < len(k); i++ {
		for j := i; j > 0 && k[j] < k[j-1]; j-- {
			k[j], k[j-1] = k[j-1], k[j]
		}
	}
	return k
}

// accFloor is the ground-truth acceleration (m/s²) under which frames are
// left out of the acceleration ratio: a garment at rest has none, and any
// motion at all is an infinite ratio.
const accFloor = 0.05

func printResynthEval(w io.Writer, e *resynth.Eval) {
	re, se := e.MeanErr()
	worst, f, over := e.AccRatio(accFloor)
	fmt.Fprintf(w, "error      %s: mean vertex error %.1f mm (skinning %.1f mm, ratio %.2f); acceleration up to %.2f× the truth's (frame %d), %d frames over 2×\n", e.Clip, re*1000, se*1000, re/se, worst, f, over)
}

// writeResynth writes the frames by extension through sim.Result.Write,
// as one garment piece.
func writeResynth(out string, db *resynth.DB, s *scene.Scene, res *resynth.Result) ([]string, error) {
	m := &mesh.Mesh{Verts: db.Garment.Rest, Tris: db.Garment.Tris}
	r := &sim.Result{Pieces: []*sim.Piece{{Name: "garment", Mesh: m, Weights: db.Garment.Weights}}, FPS: s.Clip.FPS, Frames: [][][]geom.Vec3{res.Frames}}
	return r.Write(out, s)
}

func writeResynthReport(path string, res *resynth.Result, ev *resynth.Eval) error {
	var b strings.Builder
	b.WriteString("frame,clip,db_frame,index,cost_m")
	if ev != nil {
		b.WriteString(",err_mm,skin_err_mm,acc,truth_acc")
	}
	b.WriteString("\n")
	for f, st := range res.Steps {
		fmt.Fprintf(&b, "%d,%s,%d,%.3f,%.4f", f, st.Clip, st.Frame, st.Index, st.Cost)
		if ev != nil {
			fmt.Fprintf(&b, ",%.2f,%.2f,%.3f,%.3f", ev.Err[f]*1000, ev.SkinErr[f]*1000, ev.Acc[f], ev.TruthAcc[f])
		}
		b.WriteString("\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func newResynthBuildCmd() *cobra.Command {
	var sf sceneFlags
	var mf simFlags
	var out string
	cmd := &cobra.Command{
		Use:   "build [flags] MOTION[=CACHE.pc2|.glb]...",
		Short: "Build a cloth database for resynthesis from simulations",
		Long: `build simulates the garments through each motion (a .bvh clip or a
procedural clip name) and stores the frames with the skeleton's poses in a
versioned, checksummed database (.prsd). MOTION=CACHE.pc2 reads the frames
from that PC2 (with the .obj rest mesh beside it, as pleat simulate writes
them) when it exists, and otherwise simulates and writes it there, so that
a database can be rebuilt from the same simulations; MOTION=CACHE.glb (or
.gltf) does the same with the garments' vertex animation in a glTF file
as pleat simulate writes it. Every clip is
resampled to --fps (default 30).`,
		Example: `  pleat resynth build --out out/db.prsd walk armraise elbowbend kneebend twist
  pleat resynth build --character $PLEAT_ASSETS/makehuman --garment male_casualsuit02 \
      --out out/suit.prsd $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh=out/walk.pc2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := checkWritable(out); err != nil {
				return err
			}
			if _, err := mf.options(30); err != nil {
				return err
			}
			if sf.spec.FPS == 0 {
				sf.spec.FPS = 30
			}
			db, err := buildResynthDB(ctx, cmd, &sf, &mf, args)
			if err != nil {
				return err
			}
			if err := db.WriteFile(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d clips, %d frames, %d garment vertices\n", out, len(db.Clips), db.NumFrames(), len(db.Garment.Rest))
			return nil
		},
	}
	sf.add(cmd)
	mf.add(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "out/resynth.prsd", "the database file to write")
	return cmd
}

// clipName names a database clip after its motion: the file's base name
// without extension, or the procedural clip's name.
func clipName(motion string) string {
	return strings.TrimSuffix(filepath.Base(motion), filepath.Ext(motion))
}

func buildResynthDB(ctx context.Context, cmd *cobra.Command, sf *sceneFlags, mf *simFlags, args []string) (*resynth.DB, error) {
	w := cmd.OutOrStdout()
	db := &resynth.DB{}
	for i, arg := range args {
		motion, cache, _ := strings.Cut(arg, "=")
		sf.spec.Motion = motion
		s, err := sf.load()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", motion, err)
		}
		opt, err := mf.options(s.Clip.FPS)
		if err != nil {
			return nil, err
		}
		m, wts, rest, frames, err := resynthFrames(ctx, cmd, s, opt, cache)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", motion, err)
		}
		if i == 0 {
			db.Rig = resynth.RigOf(s.Character.Skeleton)
			db.Garment = resynth.Garment{Tris: m.Tris, Rest: rest, Weights: wts}
		} else if len(rest) != len(db.Garment.Rest) || len(m.Tris) != len(db.Garment.Tris) {
			return nil, fmt.Errorf("%s: the garment has %d vertices and %d triangles, the first clip's %d and %d", motion, len(rest), len(m.Tris), len(db.Garment.Rest), len(db.Garment.Tris))
		}
		if err := db.Rig.Check(s.Character.Skeleton); err != nil {
			return nil, fmt.Errorf("%s: %w", motion, err)
		}
		nf := min(len(frames), len(s.Clip.Poses))
		c := resynth.Clip{Name: clipName(motion), FPS: s.Clip.FPS}
		for f := 0; f < nf; f++ {
			c.AppendFrame(skel.FK(s.Character.Skeleton, s.Clip.Poses[f], nil), frames[f])
		}
		db.Clips = append(db.Clips, c)
		fmt.Fprintf(w, "clip       %s: %d frames at %g frames/s\n", c.Name, nf, c.FPS)
	}
	return db, db.Validate()
}

// resynthFrames returns the garment (merged pieces, skin weights, rest
// shape) and its frames for s: read from cache when it exists, else
// simulated (and written to cache when named).
func resynthFrames(ctx context.Context, cmd *cobra.Command, s *scene.Scene, opt sim.Options, cache string) (*mesh.Mesh, skel.Weights, []geom.Vec3, [][]geom.Vec3, error) {
	if cache != "" {
		if _, err := os.Stat(cache); err == nil {
			prep, err := sim.Prepare(s.Character, s.Garments, opt)
			if err != nil {
				return nil, skel.Weights{}, nil, nil, err
			}
			m, wts, _, _ := sim.JoinPieces(prep.Pieces())
			frames, err := readCache(cache)
			if err != nil {
				return nil, skel.Weights{}, nil, nil, err
			}
			if len(frames) == 0 {
				return nil, skel.Weights{}, nil, nil, fmt.Errorf("%s: no frames", cache)
			}
			if len(frames[0]) != len(m.Verts) {
				return nil, skel.Weights{}, nil, nil, fmt.Errorf("%s: %d points, the garment has %d vertices (other garments or --verts?)", cache, len(frames[0]), len(m.Verts))
			}
			rest := m.Verts
			restPath := strings.TrimSuffix(cache, filepath.Ext(cache)) + ".obj"
			if rm, err := obj.ReadFile(restPath); err == nil && len(rm.Verts) == len(m.Verts) {
				rest = rm.Verts
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cache      %s: %d frames\n", cache, len(frames))
			return m, wts, rest, frames, nil
		}
	}
	res, err := runSim(ctx, cmd, s, opt)
	if err != nil {
		return nil, skel.Weights{}, nil, nil, err
	}
	if res.Interrupted {
		return nil, skel.Weights{}, nil, nil, fmt.Errorf("interrupted")
	}
	m, frames := res.Merged()
	_, wts, _, _ := sim.JoinPieces(res.Pieces)
	if cache != "" {
		if _, err := res.Write(cache, s); err != nil {
			return nil, skel.Weights{}, nil, nil, err
		}
	}
	return m, wts, res.MergedRest(), frames, nil
}

// readCache reads garment frames from a PC2 point cache, or from a glTF
// file as pleat simulate writes it (every mesh but "body", in order, each
// with one morph target per frame; positions = base + Σ weight·target).
func readCache(path string) ([][]geom.Vec3, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pc2":
		c, err := pc2.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return c.Frames, nil
	case ".glb", ".gltf":
	default:
		return nil, fmt.Errorf("%s: a cache is a .pc2, .glb or .gltf file", path)
	}
	gs, err := gltfio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var frames [][]geom.Vec3
	for mi, gm := range gs.Meshes {
		if gm.Name == "body" {
			continue
		}
		var w [][]float64
		for _, a := range gs.Animations {
			for _, tr := range a.Morphs {
				if tr.Mesh == mi {
					w = tr.Weights
				}
			}
		}
		if w == nil {
			return nil, fmt.Errorf("%s: mesh %d (%s) has no morph animation", path, mi, gm.Name)
		}
		if frames == nil {
			frames = make([][]geom.Vec3, len(w))
		} else if len(w) != len(frames) {
			return nil, fmt.Errorf("%s: mesh %d (%s) has %d frames, the first garment %d", path, mi, gm.Name, len(w), len(frames))
		}
		for f, wf := range w {
			if len(wf) != len(gm.Morph) {
				return nil, fmt.Errorf("%s: mesh %d (%s) frame %d: %d weights for %d morph targets", path, mi, gm.Name, f, len(wf), len(gm.Morph))
			}
			x := slices.Clone(gm.Mesh.Verts)
			for k, wk := range wf {
				if wk == 0 {
					continue
				}
				for v, d := range gm.Morph[k] {
					x[v] = x[v].Add(d.Scale(wk))
				}
			}
			frames[f] = append(frames[f], x...)
		}
	}
	if frames == nil {
		return nil, fmt.Errorf("%s: no garment mesh", path)
	}
	return frames, nil
}

func newResynthEvalCmd() *cobra.Command {
	var rf resynthFlags
	var sf sceneFlags
	var dbPath string
	var clips []string
	cmd := &cobra.Command{
		Use:   "eval --db DB.prsd",
		Short: "Leave-one-clip-out test of a resynthesis database",
		Long: `eval resynthesises each clip of the database (or those named) from the
other clips and prints, per clip, the mean vertex error against the clip's
own (simulated) frames beside the skinning baseline, the largest ratio of
the mean vertex acceleration to the truth's (frames where the truth's is
under 0.05 m/s² left out), the frames over 2× and how many of them lie at
a transition between blocks ("at tr"), the path's blocks and the time
taken.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if dbPath == "" {
				return fmt.Errorf("--db is required")
			}
			db, err := resynth.ReadFile(dbPath)
			if err != nil {
				return err
			}
			opt := rf.opt
			if rf.pushOut != 0 {
				sf.spec.Motion = "" // the character's own default clip: only its body is needed
				s, err := sf.load()
				if err != nil {
					return fmt.Errorf("loading the character for --push-out: %w", err)
				}
				var done func()
				if opt, done, err = withPushOut(opt, db, s.Character, rf.pushOut); err != nil {
					return err
				}
				defer done()
			}
			fmt.Fprintf(w, "%-14s %6s %9s %9s %6s %8s %6s %6s %7s %7s %8s %8s  %s\n", "clip", "frames", "err mm", "skin mm", "ratio", "acc max", "> 2x", "at tr", "blocks", "median", "viterbi", "recon/s", "main source")
			var sr, ss float64
			evs, err := resynth.LeaveOneOut(cmd.Context(), db, opt, clips, func(e *resynth.Eval) {
				re, se := e.MeanErr()
				worst, _, over := e.AccRatio(accFloor)
				n, _, med := e.Result.BlockStats()
				t := e.Result.Timing
				fmt.Fprintf(w, "%-14s %6d %9.1f %9.1f %6.2f %8.2f %6d %6d %7d %7.1f %7.3fs %8.0f  %s\n", e.Clip, e.Frames, re*1000, se*1000, re/se, worst, over, e.OverTransitions(accFloor), n, med, (t.Match + t.Viterbi).Seconds(), float64(e.Frames)/t.Reconstruct.Seconds(), mainSource(e.Result))
				sr += re
				ss += se
			})
			if err != nil {
				return err
			}
			k := float64(len(evs))
			fmt.Fprintf(w, "%-14s %6s %9.1f %9.1f %6.2f\n", "mean", "", sr/k*1000, ss/k*1000, sr/ss)
			return nil
		},
	}
	rf.add(cmd, 0) // off: the skinning baseline is not pushed out either
	cmd.Flags().StringVar(&sf.spec.Character, "character", "", "the database's character, whose body --push-out keeps the garment outside: a MakeHuman folder, a base.obj or a skinned .glb/.gltf; empty: the procedural mannequin")
	cmd.Flags().StringVar(&sf.spec.Rig, "rig", "", "MakeHuman rig: cmu_mb (default), default, or a .mhskel path")
	sf.ground, sf.place, sf.armClearance = "contact", "auto", scene.DefaultArmClearance*1000
	cmd.Flags().StringVar(&dbPath, "db", "", "the cloth database (.prsd)")
	cmd.Flags().StringSliceVar(&clips, "clip", nil, "clips to leave out in turn (default all)")
	return cmd
}
