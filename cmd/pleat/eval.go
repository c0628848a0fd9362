package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/metrics"
	"github.com/pleat-dev/pleat/report"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/online"
)

func newEvalCmd() *cobra.Command {
	var sf sceneFlags
	var f synthFlags
	var outDir, reportOut, refCache string
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Compare synthesis with a high-resolution simulation, the coarse simulation and skinning",
		Long: `eval runs wang2010's evaluation (§4, Fig. 9, Table 1) on one clip: the
high-resolution reference simulation (the database's garment and simulator
settings), the online synthesis (pleat synth), its two inputs (the
synthesized fine mesh before transfer and the coarse simulation) and the
skinning baseline. It prints and reports, per method, the mean-curvature
sum per frame (Σ|H|A, Fig. 9) against the reference (mean ratio, Pearson
r), the per-vertex error against the reference (mean and max over frames),
penetration of the result into the body, and the time per stage.

It writes, in --out:

  report.html      renders of every method side by side (also as
                   curvature heat maps), curvature and error plots, tables
  reference.glb    the reference simulation (vertex animation)
  synthesized.glb  the result (vertex animation)
  coarse.glb       the coarse simulation (vertex animation)
  skinning.glb     the skinning baseline (GPU skinning)

and prints how to play the four side by side in the viewer.`,
		Example: `  pleat eval --db out/small.pdb --resolution 3000 --motion walk --out out/eval`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if reportOut == "" {
				reportOut = filepath.Join(outDir, "report.html")
			}
			return runEval(ctx, cmd, &sf, &f, outDir, reportOut, refCache)
		},
	}
	sf.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "", "wrinkle database (.pdb) built by pleat builddb for this character and garment (required)")
	fl.IntVar(&f.coarseVerts, "coarse-verts", 0, "vertices of the coarse simulated garment, shared by its pieces (0: 700)")
	fl.BoolVar(&f.quadric, "coarse-quadric", false, "decimate the coarse garment by quadric error instead of shortest edge first (even edges)")
	fl.BoolVar(&f.noPrealign, "no-prealign", false, "blend the joints' wrinkle meshes before the transfer instead of aligning each to the coarse simulation first (wang2010 §3.4)")
	fl.BoolVar(&f.noCalibrate, "no-calibrate", false, "leave the coarse simulation's rest-pose bias against the database's fine rest settle uncorrected")
	fl.IntVar(&f.smooth, "smooth", 0, "Laplacian smoothing steps of the transferred offsets (0: 10; -1: none)")
	fl.Float64Var(&f.thickness, "thickness", 0, "safety distance of the result from the body in mm (0: 3 mm; negative: no push-out)")
	fl.Float64Var(&f.minInfl, "min-influence", 0, "soft threshold of the joints' influence weights (Eq. 4): each is lowered by it and the rest renormalised, so vertices skip joints that barely move them (0: "+fmt.Sprint(online.DefaultMinInfluence)+"; negative: the database's weights as they are)")
	fl.StringVarP(&outDir, "out", "o", "out/eval", "output folder: the report and the glTF files")
	fl.StringVar(&reportOut, "report", "", "HTML report (default: report.html in --out)")
	fl.StringVar(&refCache, "reference-cache", "", "file that keeps the reference simulation's frames: read when it was made from the same database settings, character, garments and clip, else simulated and written")
	_ = cmd.MarkFlagRequired("db")
	return cmd
}

// evalMethods are the compared results, in table order.
var evalMethods = []string{"reference", "synthesized+transfer", "synthesized", "coarse", "skinning"}

// evalRun holds per method and frame the curvature sum and the error
// against the reference.
type evalRun struct {
	curv  [][]float64 // [method][frame]
	err   [][]metrics.Error
	deep  int // vertex-frames of the result more than 2 mm inside
	in    int
	maxIn float64
	stats []online.Stats
	ref   time.Duration
	nf    int
	// angles are the clip's anatomical angles per sampled DoF.
	angles []angleRange
	// notes are the pipeline's (what the coarse simulation adjusted, its
	// calibration).
	notes []string
	// regErr[m][r] sums method m's per-vertex error (m) over the frames
	// and the vertices of region r (a role, or wrinkle.RootRegion);
	// regN[r] counts those vertex-frames.
	regErr [][wrinkle.NumRoles + 1]float64
	regN   [wrinkle.NumRoles + 1]int
	// diag[d][frame] are the errors of the diagnostic results diagMethods,
	// diagCurv[d][frame] their curvature sums.
	diag     [][]metrics.Error
	diagCurv [][]float64
	// regCurv[s][r][frame] is the curvature sum over region r of series
	// s: evalMethods, then diagMethods (none without regions).
	regCurv [][wrinkle.NumRoles + 1][]float64
}

// diagMethods are eval's diagnostic results, which split the error of
// synthesized+transfer: the synthesized mesh transferred onto the
// reference's own positions of the coarse vertices (the error left if the
// coarse simulation were exact), and those positions embedded like the
// coarse simulation (the error of the coarse mesh's resolution alone).
var diagMethods = []string{"synthesized onto reference coarse", "reference coarse"}

// angleRange is one sampled DoF's angles over the clip against the
// database's sampled range (degrees), and the frames outside it, which
// synthesis clamps.
type angleRange struct {
	role       wrinkle.Role
	dof        int
	min, max   float64
	lo, hi     float64
	outside, n int
}

// clipAngles reads every sampled role's anatomical angles (wrinkle.Rig)
// in each frame of the clip and compares them with the database's grid.
func clipAngles(db *wrinkle.DB, s *scene.Scene) ([]angleRange, error) {
	names := db.Header.Rig.Names
	rig, err := wrinkle.Bind(s.Character.Skeleton, &names)
	if err != nil {
		return nil, err
	}
	var out []angleRange
	for j := 0; j < db.Spec.NumJoints(); j++ {
		js := db.Spec.JointSpec(j)
		for d := 0; d < js.Role.NumDoF(); d++ {
			g := js.DoF[d]
			out = append(out, angleRange{role: js.Role, dof: d, min: math.Inf(1), max: math.Inf(-1), lo: g.MinDeg, hi: g.MaxDeg})
		}
	}
	const deg = 180 / math.Pi
	for f, p := range s.Clip.Poses {
		k := 0
		for j := 0; j < db.Spec.NumJoints(); j++ {
			role := db.Spec.JointSpec(j).Role
			a, err := rig.Angles(role, p)
			if err != nil {
				return nil, fmt.Errorf("frame %d: %w", f, err)
			}
			for d := 0; d < role.NumDoF(); d++ {
				r := &out[k]
				x := a[d] * deg
				r.min, r.max, r.n = math.Min(r.min, x), math.Max(r.max, x), r.n+1
				if x < r.lo-1e-6 || x > r.hi+1e-6 {
					r.outside++
				}
				k++
			}
		}
	}
	return out, nil
}

func angleRows(rs []angleRange) [][]string {
	var rows [][]string
	for _, r := range rs {
		rows = append(rows, []string{r.role.String(), r.role.DoFName(r.dof),
			fmt.Sprintf("%.0f..%.0f", r.min, r.max), fmt.Sprintf("%.0f..%.0f", r.lo, r.hi),
			fmt.Sprintf("%.0f%%", 100*float64(r.outside)/math.Max(1, float64(r.n)))})
	}
	return rows
}

var angleHeader = []string{"role", "DoF", "clip (°)", "database (°)", "frames clamped"}

// printClipAngles prints the DoFs whose clip angles leave the database's
// range (synthesis clamps them there).
func printClipAngles(w io.Writer, rs []angleRange) {
	for _, r := range rs {
		if r.outside > 0 {
			fmt.Fprintf(w, "clamped    %s %s: clip %.0f..%.0f°, database %.0f..%.0f°: %d of %d frames clamped\n",
				r.role, r.role.DoFName(r.dof), r.min, r.max, r.lo, r.hi, r.outside, r.n)
		}
	}
}

func runEval(ctx context.Context, cmd *cobra.Command, sf *sceneFlags, f *synthFlags, outDir, reportOut, refCache string) error {
	w := cmd.OutOrStdout()
	opt, err := f.options()
	if err != nil {
		return err
	}
	if err := checkWritable(reportOut); err != nil {
		return err
	}
	if err := checkWritable(outDir + "/"); err != nil {
		return err
	}
	db, err := wrinkle.ReadFile(f.db)
	if err != nil {
		return fmt.Errorf("--db %s: %w", f.db, err)
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
	angles, err := clipAngles(db, s)
	if err != nil {
		return err
	}
	printClipAngles(w, angles)
	if err := online.CheckGarments(db, s.Character, s.Garments); err != nil {
		return fmt.Errorf("--db %s: %w (a procedural suit must be loaded with the --resolution it was built with)", f.db, err)
	}
	opt.FPS = s.Clip.FPS
	p, err := online.New(db, s.Character, opt)
	if err != nil {
		return fmt.Errorf("--db %s: %w", f.db, err)
	}
	defer p.Close()
	for _, n := range p.Notes() {
		fmt.Fprintln(w, "coarse    ", n)
	}
	keep := newEvalFrames(len(s.Clip.Poses))
	ev, refFrames, err := evaluate(ctx, cmd, db, s, p, refCache, keep)
	if err != nil {
		return err
	}
	printEval(w, ev)
	ev.angles, ev.notes = angles, p.Notes()
	garments := groupedFine(p)
	files, err := writeEvalGLTF(s, p, garments, refFrames, keep, outDir)
	if err != nil {
		return err
	}
	err = writeEvalReport(reportOut, ev, s, garments, refFrames, keep)
	if err != nil {
		return err
	}
	for _, f := range append(files, reportOut) {
		fmt.Fprintln(w, "wrote", f)
	}
	fmt.Fprintf(w, "\nplay them side by side:\n  pleat serve reference=%s synthesized=%s coarse=%s skinning=%s\n",
		files[0], files[1], files[2], files[3])
	return nil
}

// groupedFine returns the pipeline's fine garment with a group per piece
// (the renders colour the pieces by group).
func groupedFine(p *online.Pipeline) *mesh.Mesh {
	m := *p.Mesh()
	names := p.PieceNames()
	m.Groups = make([]mesh.Group, len(names))
	for i, name := range names {
		m.Groups[i].Name = name
	}
	piece := p.Coarse().FinePiece
	for t, tr := range m.Tris {
		if k := int(piece[tr[0]]); k >= 0 && k < len(m.Groups) {
			m.Groups[k].Tris = append(m.Groups[k].Tris, int32(t))
		}
	}
	return &m
}

// writeEvalGLTF writes the reference, the result, the coarse simulation
// and the skinning baseline as glTF files in outDir, in that order, and
// returns their paths.
func writeEvalGLTF(s *scene.Scene, p *online.Pipeline, garments *mesh.Mesh, refFrames [][]geom.Vec3, keep *evalFrames, outDir string) ([]string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	vertexAnim := func(name string, m *mesh.Mesh, frames [][]geom.Vec3) (*gltfio.Scene, error) {
		r := &sim.Result{Pieces: []*sim.Piece{{Name: name, Mesh: m}}, FPS: s.Clip.FPS, Frames: [][][]geom.Vec3{frames}}
		return r.GLTF(s, name)
	}
	var files []string
	for _, o := range []struct {
		name string
		gs   func() (*gltfio.Scene, error)
	}{
		{"reference", func() (*gltfio.Scene, error) { return vertexAnim("reference", garments, refFrames) }},
		{"synthesized", func() (*gltfio.Scene, error) { return vertexAnim("synthesized", garments, keep.synth) }},
		{"coarse", func() (*gltfio.Scene, error) { return vertexAnim("coarse", p.Coarse().Mesh, keep.coarse) }},
		{"skinning", func() (*gltfio.Scene, error) { return s.GLTF("skinning") }},
	} {
		gs, err := o.gs()
		if err != nil {
			return files, fmt.Errorf("%s.glb: %w", o.name, err)
		}
		path := filepath.Join(outDir, o.name+".glb")
		if err := gltfio.WriteFile(path, gs); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// evaluate runs the reference simulation (or reads it from refCache) and
// the pipeline, and measures every method per frame (evalLoop), keeping
// the frames of keep.
func evaluate(ctx context.Context, cmd *cobra.Command, db *wrinkle.DB, s *scene.Scene, p *online.Pipeline, refCache string, keep *evalFrames) (*evalRun, [][]geom.Vec3, error) {
	so, err := dbSimOptions(db)
	if err != nil {
		return nil, nil, err
	}
	so.Settle, so.Workers, so.NoPenetration = 0, 0, true
	refFrames, refTime, err := referenceFrames(ctx, cmd, s, so, refCache)
	if err != nil {
		return nil, nil, err
	}
	ev, err := evalLoop(ctx, cmd, db, s, p, refFrames, keep)
	if err != nil {
		return nil, nil, err
	}
	ev.ref = refTime
	return ev, refFrames, nil
}

// referenceFrames simulates the reference, or reads it from the cache
// file refCache (when not empty) where that holds the same simulation, and
// returns its frames (the garment pieces merged) and the time simulation
// took (zero when read).
func referenceFrames(ctx context.Context, cmd *cobra.Command, s *scene.Scene, so sim.Options, refCache string) ([][]geom.Vec3, time.Duration, error) {
	var key [32]byte
	if refCache != "" {
		var err error
		build, err := buildFingerprint()
		if err != nil {
			return nil, 0, fmt.Errorf("--reference-cache: %w", err)
		}
		if key, err = refCacheKey(s, so, build); err != nil {
			return nil, 0, err
		}
		frames, err := readRefCache(refCache, key)
		if err != nil {
			return nil, 0, fmt.Errorf("--reference-cache: %w", err)
		}
		if frames != nil {
			fmt.Fprintln(cmd.OutOrStdout(), "reference simulation read from", refCache)
			return frames, 0, nil
		}
	}
	bar := newBar(cmd.ErrOrStderr(), len(s.Clip.Poses), "reference simulation")
	t0 := time.Now()
	ref, err := sim.Run(ctx, s, so, func(done, total int) { _ = bar.Set(done) })
	_ = bar.Finish()
	if err != nil {
		return nil, 0, fmt.Errorf("reference simulation: %w", err)
	}
	if ref.Interrupted {
		return nil, 0, fmt.Errorf("reference simulation: %w", ctx.Err())
	}
	d := time.Since(t0)
	_, frames := ref.Merged()
	if len(frames) == 0 {
		return nil, 0, errors.New("reference simulation has no frames")
	}
	if refCache != "" {
		if err := writeRefCache(refCache, key, frames); err != nil {
			return nil, 0, fmt.Errorf("--reference-cache: %w", err)
		}
	}
	return frames, d, nil
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / math.Max(1, float64(len(v)))
}

// pearson returns the correlation coefficient of a and b (0 when either
// is constant).
func pearson(a, b []float64) float64 {
	ma, mb := meanOf(a), meanOf(b)
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return 0
	}
	return sab / math.Sqrt(saa*sbb)
}

// evalRows returns the comparison table.
func evalRows(ev *evalRun) [][]string {
	var rows [][]string
	refC := ev.curv[0]
	for m, name := range evalMethods {
		var em, emax float64
		for _, e := range ev.err[m] {
			em += e.Mean
			emax = math.Max(emax, e.Max)
		}
		em /= math.Max(1, float64(len(ev.err[m])))
		rows = append(rows, []string{name,
			fmt.Sprintf("%.3f", meanOf(ev.curv[m])),
			fmt.Sprintf("%.0f%%", 100*meanOf(ev.curv[m])/math.Max(meanOf(refC), 1e-12)),
			fmt.Sprintf("%.2f", pearson(ev.curv[m], refC)),
			fmt.Sprintf("%.1f", em*1000), fmt.Sprintf("%.1f", emax*1000)})
	}
	return rows
}

var evalHeader = []string{"method", "curvature sum Σ|H|A (m)", "of reference", "Pearson r", "mean error (mm)", "max error (mm)"}

// evalTimes returns the Table 1 rows (ms per frame, mean after the first).
func evalTimes(ev *evalRun) [][]string {
	st := ev.stats
	if len(st) > 1 {
		st = st[1:]
	}
	var syn, crs, trf, tot float64
	for _, s := range st {
		syn += s.Synthesis.Seconds()
		crs += s.Coarse.Seconds()
		trf += s.Transfer.Seconds()
		tot += s.Total.Seconds()
	}
	k := 1000 / math.Max(1, float64(len(st)))
	refMs := ev.ref.Seconds() * 1000 / math.Max(1, float64(len(ev.stats)))
	return [][]string{
		{"wrinkle synthesis", fmt.Sprintf("%.2f", syn*k)},
		{"coarse simulation", fmt.Sprintf("%.2f", crs*k)},
		{"wrinkle transfer (+ push-out)", fmt.Sprintf("%.2f", trf*k)},
		{"total", fmt.Sprintf("%.2f", tot*k)},
		{"frame rate (frames/s)", fmt.Sprintf("%.1f", 1000/math.Max(tot*k, 1e-9))},
		{"reference simulation (ms per frame)", fmt.Sprintf("%.1f", refMs)},
	}
}

func printEval(w io.Writer, ev *evalRun) {
	n := len(ev.stats)
	fmt.Fprintf(w, "%d frames of %d vertices\n", n, ev.nf)
	fmt.Fprintf(w, "%-22s %12s %8s %8s %10s %10s\n", "method", "Σ|H|A (m)", "of ref", "r", "mean mm", "max mm")
	for _, r := range evalRows(ev) {
		fmt.Fprintf(w, "%-22s %12s %8s %8s %10s %10s\n", r[0], r[1], r[2], r[3], r[4], r[5])
	}
	for d, name := range diagMethods {
		if d < len(ev.diag) {
			m, mx := meanError(ev.diag[d])
			fmt.Fprintf(w, "diagnosis: %-34s mean %.1f mm, max %.1f mm", name, m*1000, mx*1000)
			if d < len(ev.diagCurv) && len(ev.diagCurv[d]) > 0 {
				fmt.Fprintf(w, "; Σ|H|A %.0f%% of ref, r %.2f", 100*meanOf(ev.diagCurv[d])/math.Max(meanOf(ev.curv[0]), 1e-12), pearson(ev.diagCurv[d], ev.curv[0]))
			}
			fmt.Fprintln(w)
		}
	}
	printErrorOverTime(w, ev)
	var clamped, released, undone int
	var push wrinkle.PushStats
	for _, st := range ev.stats {
		clamped += st.Sim.Clamped
		released += st.Sim.Released
		undone += st.Sim.Undone
		push.Add(st.Push)
	}
	fmt.Fprintf(w, "coarse simulation: %d vertex speeds clamped, %d contacts released, %d push-outs undone\n", clamped, released, undone)
	fmt.Fprintf(w, "before the push-out: %d vertex-frames inside the body, %d more than 2 mm (%.3f%%)\n",
		push.Inside, push.Deep, 100*float64(push.Deep)/math.Max(1, float64(n*ev.nf)))
	vf := float64(n * ev.nf)
	fmt.Fprintf(w, "push-out: %d vertex-frames moved, %d (%.1f%%) took the exact closest-point query (the rest: a walk over the body)\n",
		push.Pushed, push.Exact, 100*float64(push.Exact)/math.Max(1, vf))
	fmt.Fprintf(w, "penetration of the result: %d vertex-frames inside the body (%.3f%%), %d more than 2 mm (%.3f%%), deepest %.1f mm\n",
		ev.in, 100*float64(ev.in)/vf, ev.deep, 100*float64(ev.deep)/vf, ev.maxIn*1000)
	if rows := regionRows(ev); len(rows) > 0 {
		fmt.Fprintln(w, "mean error by garment region (mm):")
		fmt.Fprintf(w, "  %-16s %8s %22s %12s %8s %9s", "region", "vertices", "synthesized+transfer", "synthesized", "coarse", "skinning")
		if len(ev.diag) > 0 {
			fmt.Fprintf(w, " %14s %14s", "onto ref (d)", "ref coarse (d)")
		}
		fmt.Fprintln(w)
		for _, r := range rows {
			fmt.Fprintf(w, "  %-16s %8s %22s %12s %8s %9s", r[0], r[1], r[2], r[3], r[4], r[5])
			for _, c := range r[6:] {
				fmt.Fprintf(w, " %14s", c)
			}
			fmt.Fprintln(w)
		}
	}
	if rows := regionCurvRows(ev); len(rows) > 0 {
		fmt.Fprintln(w, "curvature by garment region: the reference's Σ|H|A over the region (m, mean and std over frames) and each method's Pearson r with it:")
		fmt.Fprintf(w, "  %-16s %8s %7s %22s %12s %8s %9s", "region", "ref", "std", "synthesized+transfer", "synthesized", "coarse", "skinning")
		if len(rows[0]) > 7 {
			fmt.Fprintf(w, " %14s %14s", "onto ref (d)", "ref coarse (d)")
		}
		fmt.Fprintln(w)
		for _, r := range rows {
			fmt.Fprintf(w, "  %-16s %8s %7s %22s %12s %8s %9s", r[0], r[1], r[2], r[3], r[4], r[5], r[6])
			for _, c := range r[7:] {
				fmt.Fprintf(w, " %14s", c)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w, "time per frame (ms, Table 1):")
	for _, r := range evalTimes(ev) {
		fmt.Fprintf(w, "  %-36s %s\n", r[0], r[1])
	}
}

// meanError returns the mean over frames of the per-vertex mean error and
// the largest per-vertex error, m.
func meanError(es []metrics.Error) (mean, maxErr float64) {
	for _, e := range es {
		mean += e.Mean
		maxErr = math.Max(maxErr, e.Max)
	}
	return mean / math.Max(1, float64(len(es))), maxErr
}

// printErrorOverTime prints each method's mean error over each second of
// the clip (30 frames at the usual rate; at most 12 spans).
func printErrorOverTime(w io.Writer, ev *evalRun) {
	n := len(ev.stats)
	span := max(30, (n+11)/12)
	fmt.Fprintf(w, "mean error (mm) over frames, %d at a time:\n  %-34s", span, "method")
	for f := 0; f < n; f += span {
		fmt.Fprintf(w, " %6d", f)
	}
	fmt.Fprintln(w)
	row := func(name string, es []metrics.Error) {
		fmt.Fprintf(w, "  %-34s", name)
		for f := 0; f < len(es); f += span {
			m, _ := meanError(es[f:min(f+span, len(es))])
			fmt.Fprintf(w, " %6.1f", m*1000)
		}
		fmt.Fprintln(w)
	}
	for m := 1; m < len(evalMethods); m++ {
		row(evalMethods[m], ev.err[m])
	}
	for d := range ev.diag {
		row(diagMethods[d], ev.diag[d])
	}
}

// writeEvalReport writes eval's HTML report: renders of every method at
// three frames and as curvature heat maps, the plots and the tables.
func writeEvalReport(path string, ev *evalRun, s *scene.Scene, garments *mesh.Mesh, refFrames [][]geom.Vec3, keep *evalFrames) error {
	rep := report.New("pleat eval: " + s.Character.Name)
	if err := addRenders(rep, s, garments, keep.shown, []namedFrames{
		{"reference", func(f int) []geom.Vec3 { return refFrames[f] }},
		{"synthesized", func(f int) []geom.Vec3 { return keep.synth[f] }},
		{"coarse", func(f int) []geom.Vec3 { return keep.embedded[f] }},
		{"skinning", func(f int) []geom.Vec3 { return keep.skin[f] }},
	}); err != nil {
		return err
	}
	rep.Heading("Against the reference")
	var xs []float64
	for f := range ev.curv[0] {
		xs = append(xs, float64(f))
	}
	var cs, es []report.Series
	for m, name := range evalMethods {
		cs = append(cs, report.Series{Name: name, X: xs, Y: ev.curv[m]})
		if m > 0 {
			var y []float64
			for _, e := range ev.err[m] {
				y = append(y, e.Mean*1000)
			}
			es = append(es, report.Series{Name: name, X: xs, Y: y})
		}
	}
	if err := rep.Plot(report.Plot{Title: "Mean-curvature sum per frame (wang2010 Fig. 9)", XLabel: "frame", YLabel: "Σ|H|A (m)", Series: cs}); err != nil {
		return err
	}
	if err := rep.Plot(report.Plot{Title: "Mean per-vertex error against the reference", XLabel: "frame", YLabel: "mm", Series: es}); err != nil {
		return err
	}
	if err := rep.Table(report.Table{Caption: "Against the high-resolution reference", Header: evalHeader, Rows: evalRows(ev)}); err != nil {
		return err
	}
	if err := rep.Table(report.Table{Caption: "Time per frame, ms (wang2010 Table 1)", Header: []string{"stage", "ms"}, Rows: evalTimes(ev)}); err != nil {
		return err
	}
	if rows := regionRows(ev); len(rows) > 0 {
		if err := rep.Table(report.Table{Caption: "Mean error against the reference by garment region (wang2010 Fig. 4)", Header: regionHeader(ev), Rows: rows}); err != nil {
			return err
		}
	}
	if rows := regionCurvRows(ev); len(rows) > 0 {
		if err := rep.Table(report.Table{Caption: "Curvature by garment region: the reference's Σ|H|A over the region and each method's Pearson r with it frame by frame", Header: regionCurvHeader(ev), Rows: rows}); err != nil {
			return err
		}
	}
	if len(ev.angles) > 0 {
		if err := rep.Table(report.Table{Caption: "The clip's anatomical joint angles against the database's sampled ranges", Header: angleHeader, Rows: angleRows(ev.angles)}); err != nil {
			return err
		}
	}
	vf := float64(len(ev.stats) * ev.nf)
	rep.Paragraph(fmt.Sprintf("Penetration of the result: %d vertex-frames inside the body (%.3f%%), %d more than 2 mm (%.3f%%), deepest %.1f mm.",
		ev.in, 100*float64(ev.in)/vf, ev.deep, 100*float64(ev.deep)/vf, ev.maxIn*1000))
	if len(ev.notes) > 0 {
		rep.Paragraph("The coarse simulation: " + strings.Join(ev.notes, "; ") + ".")
	}
	return rep.WriteFile(path)
}
