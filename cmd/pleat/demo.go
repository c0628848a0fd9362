package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/flow"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
	"github.com/pleat-dev/pleat/metrics"
	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/report"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/online"
)

func newDemoCmd() *cobra.Command {
	var sf sceneFlags
	var mf simFlags
	var df demoDBFlags
	var sy synthFlags
	var outDir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on the built-in default: wrinkle database, synthesis, evaluation report",
		Long: `demo runs pleat end to end, by default on the built-in procedural
mannequin, shirt, trousers and walk (no files, no network):

 1. the wrinkle database (pleat builddb, --spec small: 53 samples of single
    joints bent on their grid), built once and cached in the user's cache
    directory under a name made of its inputs (garment, rig, spec,
    simulator settings, and a hash of a three-frame simulation of one
    sample, which changes with the simulator's code), so a changed input
    builds a new one; --rebuild-db builds it again regardless;
 2. the high-resolution reference simulation of the clip (pleat simulate
    with the database's settings);
 3. the online synthesis of the clip from the database (pleat synth:
    interpolation and blending, coarse simulation, detail transfer), which
    never saw the clip: the database holds one joint at a time;
 4. the evaluation (pleat eval): curvature sum per frame, error against
    the reference, penetration and time per stage for the synthesis, its
    inputs and the skinning baseline;
 5. wrinkle-flow compression of the reference (skinning + PCA morphs).

It writes, in --out:

  reference.glb    the reference simulation (vertex animation)
  synthesized.glb  the synthesized garment (vertex animation)
  skinning.glb     the skinning baseline (GPU skinning)
  flow.glb         the compressed reference (GPU skinning + morph targets)
  reference.pc2    the reference as a point cache (+ .obj rest mesh)
  report.html      renders side by side (also as curvature heat maps),
                   curvature and error plots, tables

and prints how to play them side by side in the viewer. The scene flags
of pose and the simulator flags of simulate apply (they change the
database, which is then built for them).`,
		Example: `  pleat demo
  pleat demo --motion kneebend --out out/kneebend
  pleat demo --rebuild-db
  pleat demo --fabric jersey --out out/jersey      # builds a jersey database`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runDemo(ctx, cmd, &sf, &mf, &df, &sy, outDir)
		},
	}
	sf.add(cmd)
	mf.add(cmd)
	df.add(cmd)
	fl := cmd.Flags()
	fl.IntVar(&sy.coarseVerts, "coarse-verts", 0, "vertices of the coarse simulated garment of the synthesis, shared by its pieces (0: 700)")
	fl.StringVarP(&outDir, "out", "o", "pleat-demo", "output folder")
	return cmd
}

// demoRun is what the demo measured and keeps for its files and report.
type demoRun struct {
	ev        *evalRun
	ref       *sim.Result
	rest      *mesh.Mesh    // the garment (one group per piece)
	refFrames [][]geom.Vec3 // reference, per frame
	keep      *evalFrames   // the synthesized, skinned and coarse frames
	synthMem  int           // bytes held by the synthesizer
	dbPath    string
	dbSamples int
	coarseN   int
}

// runDemo gets the database, runs the reference simulation and the
// synthesis of the clip, prints the evaluation and writes the outputs.
func runDemo(ctx context.Context, cmd *cobra.Command, sf *sceneFlags, mf *simFlags, df *demoDBFlags, sy *synthFlags, outDir string) error {
	w := cmd.OutOrStdout()
	if sf.spec.FPS == 0 {
		sf.spec.FPS = 30
	}
	opt, err := sy.options()
	if err != nil {
		return err
	}
	s, err := sf.load()
	if err != nil {
		return err
	}
	describeScene(w, s)
	if len(s.Garments) == 0 {
		return fmt.Errorf("demo: the character has no garments (--garment)")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	db, dbPath, err := demoDatabase(ctx, cmd, s, mf, df)
	if err != nil {
		return err
	}
	if err := checkClipJoints(db, s, sf.spec.Motion); err != nil {
		return err
	}
	opt.FPS = s.Clip.FPS
	p, err := online.New(db, s.Character, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", dbPath, err)
	}
	defer p.Close()
	so, err := dbSimOptions(db)
	if err != nil {
		return fmt.Errorf("%s: %w", dbPath, err)
	}
	so.Settle, so.Workers, so.NoPenetration = 0, 0, true
	t0 := time.Now()
	ref, err := runSim(ctx, cmd, s, so)
	if err != nil {
		return fmt.Errorf("reference simulation: %w", err)
	}
	refTime := time.Since(t0)
	rest, refFrames := ref.Merged()
	keep := newEvalFrames(len(refFrames))
	ev, err := evalLoop(ctx, cmd, db, s, p, refFrames, keep)
	if err != nil {
		return err
	}
	ev.ref = refTime
	run := &demoRun{ev: ev, ref: ref, rest: rest, refFrames: refFrames, keep: keep, synthMem: p.Synthesizer().MemoryBytes(),
		dbPath: dbPath, dbSamples: len(db.Samples), coarseN: len(p.Coarse().Mesh.Verts)}
	printEval(w, run.ev)
	return demoOutputs(w, s, run, outDir)
}

// dbSimOptions returns the simulator options a database records (zero
// options when it records none).
func dbSimOptions(db *wrinkle.DB) (sim.Options, error) {
	var so sim.Options
	if len(db.Header.Settings) > 0 && string(db.Header.Settings) != "null" {
		var rec struct {
			Sim sim.Options `json:"sim"`
		}
		if err := json.Unmarshal(db.Header.Settings, &rec); err != nil {
			return so, fmt.Errorf("database HEAD.settings.sim: %w", err)
		}
		so = rec.Sim
	}
	return so, nil
}

// demoOutputs compresses the reference into a wrinkle flow and writes the
// glTF files, the point cache and the report.
func demoOutputs(w io.Writer, s *scene.Scene, run *demoRun, outDir string) error {
	n := len(run.refFrames)
	weights := mergedPieceWeights(run.ref)
	clip := *s.Clip
	clip.Poses = clip.Poses[:n]
	t1 := time.Now()
	fl, err := flow.Compress(flow.Animation{Name: "garments", Rest: run.rest, Frames: run.refFrames}, flow.NewRig(s.Character, &clip, weights), flow.Options{})
	if err != nil {
		return err
	}
	compressTime := time.Since(t1)
	t2 := time.Now()
	flowFrames := fl.Decompress()
	decompTime := time.Since(t2)
	fmt.Fprintf(w, "flow       k = %d, %.0f KiB (%.1fx smaller than raw float32), compressed in %.1f s\n",
		fl.K, float64(fl.Size())/1024, float64(12*len(run.rest.Verts)*n)/float64(fl.Size()), compressTime.Seconds())

	var files []string
	save := func(name string, g *gltfio.Scene, err error) error {
		if err != nil {
			return err
		}
		p := filepath.Join(outDir, name)
		files = append(files, p)
		return gltfio.WriteFile(p, g)
	}
	gs, err := s.GLTF("skinning")
	if err := save("skinning.glb", gs, err); err != nil {
		return err
	}
	gs, err = run.ref.GLTF(s, "reference")
	if err := save("reference.glb", gs, err); err != nil {
		return err
	}
	synth := &sim.Result{Pieces: []*sim.Piece{{Name: "synthesized", Mesh: run.rest, Weights: weights}}, FPS: run.ref.FPS, Frames: [][][]geom.Vec3{run.keep.synth}}
	gs, err = synth.GLTF(s, "synthesized")
	if err := save("synthesized.glb", gs, err); err != nil {
		return err
	}
	body := gltfio.Mesh{Name: "body", Mesh: s.OutputBody(), Skin: anim.Skin(s.Character.Weights)}
	gs, err = fl.GLTF(body)
	if err := save("flow.glb", gs, err); err != nil {
		return err
	}
	pc, err := run.ref.Write(filepath.Join(outDir, "reference.pc2"), s)
	if err != nil {
		return err
	}
	files = append(files, pc...)
	rp := filepath.Join(outDir, "report.html")
	if err := writeDemoReport(rp, s, run, flowFrames, fl, demoTimes{decompress: decompTime, compress: compressTime}); err != nil {
		return err
	}
	files = append(files, rp)
	for _, f := range files {
		fmt.Fprintln(w, "wrote", f)
	}
	fmt.Fprintf(w, "\nplay them side by side:\n  pleat serve reference=%s synthesized=%s skinning=%s flow=%s\n",
		filepath.Join(outDir, "reference.glb"), filepath.Join(outDir, "synthesized.glb"),
		filepath.Join(outDir, "skinning.glb"), filepath.Join(outDir, "flow.glb"))
	return nil
}

type demoTimes struct{ decompress, compress time.Duration }

// mergedPieceWeights concatenates the pieces' skin weights in Merged order.
func mergedPieceWeights(res *sim.Result) skel.Weights {
	var lists [][]skel.Influence
	for _, p := range res.Pieces {
		for v := 0; v < p.Weights.NumVerts(); v++ {
			js, ws := p.Weights.Influences(v)
			l := make([]skel.Influence, len(js))
			for i := range js {
				l[i] = skel.Influence{Joint: js[i], W: ws[i]}
			}
			lists = append(lists, l)
		}
	}
	return skel.NewWeights(lists)
}

// writeDemoReport writes the demo's HTML report: summary, renders of
// every method at three frames, the evaluation's plots and tables, and the
// wrinkle flow's figures.
func writeDemoReport(path string, s *scene.Scene, run *demoRun, flowF [][]geom.Vec3, fl *flow.Flow, tm demoTimes) error {
	ev := run.ev
	n := len(run.refFrames)
	rep := report.New("pleat demo: " + s.Character.Name)
	cf, err := metrics.NewCurvature(run.rest)
	if err != nil {
		return err
	}
	var xs, cFlow, eFlow []float64
	var meanFlow float64
	for f := 0; f < n; f++ {
		xs = append(xs, float64(f))
		c, err := cf.Sum(flowF[f])
		if err != nil {
			return fmt.Errorf("frame %d: flow curvature: %w", f, err)
		}
		e, err := metrics.FrameError(flowF[f], run.refFrames[f])
		if err != nil {
			return fmt.Errorf("frame %d: flow error: %w", f, err)
		}
		cFlow, eFlow = append(cFlow, c), append(eFlow, e.Mean*1000)
		meanFlow += e.Mean * 1000 / float64(n)
	}
	rep.Metrics("Summary", demoSummary(run, fl, meanFlow))
	rep.Paragraph("Reference is the high-resolution cloth simulation of the clip with the database's settings. " +
		"Synthesized is wang2010's online synthesis from the wrinkle database (per-joint interpolation and blending, " +
		"a coarse simulation of the garment decimated to about 700 vertices, detail transfer and push-out); " +
		"the database holds single joints bent on a grid, not this clip. Synthesized (before transfer) is the blend of " +
		"the database's samples alone, coarse the fine garment embedded in the coarse simulation, skinning linear blend " +
		"skinning of the garment (the baseline), flow the reference compressed into skinning plus a PCA wrinkle basis " +
		"(Kim et al. 2013) and decompressed. Errors are per-vertex distances to the reference.")
	for _, note := range run.ref.Notes {
		rep.Paragraph("Reference simulation: " + note)
	}
	k := run.keep
	if err := addRenders(rep, s, run.rest, k.shown, []namedFrames{
		{"reference", func(f int) []geom.Vec3 { return run.refFrames[f] }},
		{"synthesized", func(f int) []geom.Vec3 { return k.synth[f] }},
		{"coarse", func(f int) []geom.Vec3 { return k.embedded[f] }},
		{"skinning", func(f int) []geom.Vec3 { return k.skin[f] }},
		{"flow", func(f int) []geom.Vec3 { return flowF[f] }},
	}); err != nil {
		return err
	}
	rep.Heading("Against the reference")
	if err := demoPlots(rep, run, xs, cFlow, eFlow); err != nil {
		return err
	}
	if err := rep.Table(report.Table{Caption: "Against the high-resolution reference", Header: evalHeader, Rows: evalRows(ev)}); err != nil {
		return err
	}
	if err := rep.Table(report.Table{Caption: "Time per frame, ms (wang2010 Table 1)", Header: []string{"stage", "ms"}, Rows: evalTimes(ev)}); err != nil {
		return err
	}
	vf := float64(len(ev.stats) * ev.nf)
	rep.Paragraph(fmt.Sprintf("Penetration of the synthesized garment: %d vertex-frames inside the body (%.3f%%), %d more than 2 mm (%.3f%%), deepest %.1f mm.",
		ev.in, 100*float64(ev.in)/vf, ev.deep, 100*float64(ev.deep)/vf, ev.maxIn*1000))
	rep.Heading("Wrinkle flow")
	rep.Paragraph(fmt.Sprintf("The reference compressed with k = %d PCA wrinkle modes: %.0f KiB, %.0fx smaller than raw float32, compressed in %.1f s, played back in %.2f ms per frame; mean error %.2f mm.",
		fl.K, float64(fl.Size())/1024, float64(12*len(run.rest.Verts)*n)/float64(fl.Size()), tm.compress.Seconds(),
		tm.decompress.Seconds()*1000/float64(n), meanFlow))
	return rep.WriteFile(path)
}

// demoSummary is the report's first table.
func demoSummary(run *demoRun, fl *flow.Flow, meanFlow float64) []report.KV {
	ev := run.ev
	rows := evalRows(ev)
	times := evalTimes(ev)
	refMs := ev.ref.Seconds() * 1000 / math.Max(1, float64(len(ev.stats)))
	return []report.KV{
		{Key: "garment", Value: fmt.Sprintf("%d vertices (coarse simulation: %d)", ev.nf, run.coarseN)},
		{Key: "frames", Value: fmt.Sprintf("%d at %g fps", len(ev.stats), run.ref.FPS)},
		{Key: "database", Value: fmt.Sprintf("%d samples (%s); synthesizer holds %.1f MiB", run.dbSamples, run.dbPath, float64(run.synthMem)/(1<<20))},
		{Key: "synthesis", Value: fmt.Sprintf("%s ms/frame (%s frames/s)", times[3][1], times[4][1])},
		{Key: "reference simulation", Value: fmt.Sprintf("%.1f ms/frame", refMs)},
		{Key: "curvature sum of reference", Value: fmt.Sprintf("synthesized %s, coarse %s, skinning %s", rows[1][2], rows[3][2], rows[4][2])},
		{Key: "mean error", Value: fmt.Sprintf("synthesized %s mm, coarse %s mm, skinning %s mm, flow %.2f mm (k = %d)", rows[1][4], rows[3][4], rows[4][4], meanFlow, fl.K)},
	}
}

// demoPlots adds the curvature (wang2010 Fig. 9), error and time plots.
func demoPlots(rep *report.Report, run *demoRun, xs, cFlow, eFlow []float64) error {
	ev := run.ev
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
	cs = append(cs, report.Series{Name: "flow", X: xs, Y: cFlow})
	es = append(es, report.Series{Name: "flow", X: xs, Y: positive(eFlow)})
	var refWall, synWall []float64
	for f := 1; f < len(xs); f++ {
		refWall = append(refWall, run.ref.Stats[f].Wall.Seconds()*1000)
		synWall = append(synWall, ev.stats[f].Total.Seconds()*1000)
	}
	plots := []report.Plot{
		{Title: "Mean-curvature sum per frame (wang2010 Fig. 9)", XLabel: "frame", YLabel: "Σ|H|A (m)", Series: cs},
		{Title: "Mean per-vertex error against the reference", XLabel: "frame", YLabel: "mm", Series: es},
		{Title: "Time per frame", XLabel: "frame", YLabel: "ms", Series: []report.Series{{Name: "reference simulation", X: xs[1:], Y: refWall}, {Name: "synthesis (total)", X: xs[1:], Y: synWall}}},
	}
	for _, p := range plots {
		if err := rep.Plot(p); err != nil {
			return err
		}
	}
	return nil
}

// renderGarments draws the body at frame f with the garment positions x,
// one colour per garment piece, or, when heat is not nil, one colour per
// vertex (a curvature heat map).
func renderGarments(s *scene.Scene, garments *mesh.Mesh, x []geom.Vec3, f int, heat []color.NRGBA) (image.Image, error) {
	body, _, err := s.Frame(f, nil, nil)
	if err != nil {
		return nil, err
	}
	box := geom.BoxOf(body)
	c := box.Center()
	half := geom.V(0.3, box.Size().Y/2+0.03, 0.3)
	items := []render.Item{{Mesh: s.OutputBody(), Verts: body, Color: scene.PaletteColor(0)}}
	// The merged mesh has a group per piece.
	for i, g := range garments.Groups {
		part := &mesh.Mesh{Verts: garments.Verts}
		for _, t := range g.Tris {
			part.Tris = append(part.Tris, garments.Tris[t])
		}
		items = append(items, render.Item{Mesh: part, Verts: x, Color: scene.PaletteColor(i + 1), VertexColors: heat})
	}
	return render.Render(items, render.Options{Width: 360, Height: 480, View: render.ThreeQuarter, Bounds: geom.Box{Min: c.Sub(half), Max: c.Add(half)}})
}

// curvatureHeat returns the garment's per-vertex mean curvature at
// positions x (cotan) and, when scale is 0, twice its area-weighted RMS
// as the heat map's scale.
func curvatureHeat(garments *mesh.Mesh, top *mesh.Topology, x []geom.Vec3, scale float64) ([]color.NRGBA, float64) {
	m := &mesh.Mesh{Verts: x, Tris: garments.Tris}
	h := mesh.MeanCurvature(m, top, mesh.CurvatureCotan, nil)
	if scale == 0 {
		scale = 2 * mesh.SummarizeCurvature(h, mesh.MixedAreas(m, nil), top).RMS
	}
	out := make([]color.NRGBA, len(h))
	for i := range h {
		out[i] = render.HeatColor(h[i], scale)
	}
	return out, scale
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}
