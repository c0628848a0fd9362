package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/refine"
	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// refineFlags are pleat refine's own flags.
type refineFlags struct {
	p           refine.Params
	method      string
	noReference bool
	renders     string
	substeps    int
	coarseSteps int
	serial      bool
}

func newRefineCmd() *cobra.Command {
	var sf sceneFlags
	var mf simFlags
	var rf refineFlags
	var out string
	cmd := &cobra.Command{
		Use:   "refine",
		Short: "Add wrinkles by local refinement of a coarse simulation (chen2015)",
		Long: `refine simulates the garments coarsely (substeps of 1/30 s, more in
fast frames: refine.CoarseOptions), finds wrinkle regions around
curvature maxima on every frame, refines them 1-to-4 (red-green, new
vertices on a smooth surface) and simulates them again with their boundary
held to the coarse result and with body collision (Chen, He and Yu 2015).
Regions persist with hysteresis and change every --every frames; refined
vertices are carried over.

Unless --no-reference, it also simulates the garments uniformly refined to
the same edge length and reports, per frame and in total, the refined area,
vertex counts, the mean-curvature integral over the refined regions
(coarse, refined, reference), penetration, strain and time.

It writes into the --out folder: refined/frame_NNNNN.obj (the refined
garments, topology changing by block), refined.glb and refined.pc2 (+ .obj)
(fixed topology over the union of all regions), coarse.glb, reference.glb,
report.txt, and PNG renders with curvature heat maps (--renders).`,
		Example: `  pleat refine --out out/refine/                          # procedural default
  pleat refine --character $PLEAT_ASSETS/makehuman --garment male_casualsuit02 \
      --motion $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh --fps 30 --end 60 --out out/refine/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := checkWritable(strings.TrimSuffix(out, "/") + "/"); err != nil {
				return err
			}
			if _, err := mf.options(30); err != nil {
				return err
			}
			if err := rf.resolve(); err != nil {
				return err
			}
			return runRefine(ctx, cmd, &sf, &mf, &rf, strings.TrimSuffix(out, "/"))
		},
	}
	sf.add(cmd)
	mf.add(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "out/refine", "output folder")
	fl.StringVar(&rf.method, "curvature", "taubin", "curvature estimator of the regions: taubin (chen2015 §III.C), moreton-sequin (§III.B) or cotan")
	fl.Float64Var(&rf.p.Peak, "peak", 40, "least |mean curvature| of a region's peak, 1/m (40: folds of radius under 12 mm)")
	fl.Float64Var(&rf.p.Fraction, "fraction", 0.6, "regions grow while |H| is at least this fraction of their peak's")
	fl.IntVar(&rf.p.Rings, "rings", 1, "most rings grown around a peak")
	fl.IntVar(&rf.p.Every, "every", 5, "frames between changes of the refined regions")
	fl.IntVar(&rf.p.Lead, "lead", 3, "frames a region is refined before its curvature is found")
	fl.IntVar(&rf.p.Hold, "hold", 5, "frames a region stays refined after its curvature is last found")
	fl.IntVar(&rf.substeps, "patch-substeps", 0, "cloth substeps per frame of the refined patches (0: as the reference, one per 1/60 s, or --substeps)")
	fl.IntVar(&rf.coarseSteps, "coarse-substeps", 0, "cloth substeps per frame of the coarse simulation, more in fast frames (0: one per 1/30 s, or --substeps)")
	fl.BoolVar(&rf.noReference, "no-reference", false, "skip the uniformly refined reference simulation")
	fl.BoolVar(&rf.serial, "serial", false, "simulate coarsely first and refine after, timing each apart (by default the refinement runs beside the coarse simulation, a block behind it)")
	fl.StringVar(&rf.renders, "renders", "middle", `frames to render (coarse, refined, reference, with heat maps; "" for none)`)
	return cmd
}

func (rf *refineFlags) resolve() error {
	switch rf.method {
	case "taubin":
		rf.p.Method = mesh.CurvatureTaubin
	case "moreton-sequin":
		rf.p.Method = mesh.CurvatureMoretonSequin
	case "cotan":
		rf.p.Method = mesh.CurvatureCotan
	default:
		return fmt.Errorf("--curvature %q: want taubin, moreton-sequin or cotan", rf.method)
	}
	rf.p.MethodSet = true
	if !(rf.p.Peak > 0 && rf.p.Peak <= 1e4) || !(rf.p.Fraction > 0 && rf.p.Fraction <= 1) {
		return fmt.Errorf("--peak %g, --fraction %g: want (0, 1e4] and (0, 1]", rf.p.Peak, rf.p.Fraction)
	}
	if rf.substeps < 0 || rf.substeps > 1000 || rf.coarseSteps < 0 || rf.coarseSteps > 1000 {
		return fmt.Errorf("--patch-substeps %d, --coarse-substeps %d: want [0, 1000]", rf.substeps, rf.coarseSteps)
	}
	if rf.p.Rings < 0 || rf.p.Rings > 100 || rf.p.Every < 1 || rf.p.Every > 1000 || rf.p.Lead < 0 || rf.p.Lead > 1000 || rf.p.Hold < 0 || rf.p.Hold > 1000 {
		return fmt.Errorf("--rings %d, --every %d, --lead %d, --hold %d out of range", rf.p.Rings, rf.p.Every, rf.p.Lead, rf.p.Hold)
	}
	return nil
}

// refineRun is what runRefine measured.
type refineRun struct {
	s                      *scene.Scene
	coarse, ref            *sim.Result
	res                    *refine.Result
	refData                *refine.Reference
	tCoarse, tRefine, tRef time.Duration
	cCoarse, cRefine, cRef time.Duration // CPU time, all threads (0: not measured)
	// tBoth and cBoth are the wall and CPU time of the coarse run and the
	// refinement run side by side (not --serial); tCoarse is then when the
	// coarse run ended.
	tBoth, cBoth time.Duration
	measures     []refine.Measure
}

func runRefine(ctx context.Context, cmd *cobra.Command, sf *sceneFlags, mf *simFlags, rf *refineFlags, out string) error {
	w := cmd.OutOrStdout()
	if sf.spec.FPS == 0 {
		sf.spec.FPS = 30
	}
	s, err := sf.load()
	if err != nil {
		return err
	}
	describeScene(w, s)
	opt, err := mf.options(s.Clip.FPS)
	if err != nil {
		return err
	}
	frames, err := parseFrames(rf.renders, len(s.Clip.Poses))
	if err != nil {
		return fmt.Errorf("--renders: %w", err)
	}
	run := &refineRun{s: s}
	if opt.MaxDt > 0 {
		rf.p.MaxDt = opt.MaxDt // --substeps for the patches too
	}
	rf.p.Thickness = opt.Thickness
	if rf.substeps > 0 {
		rf.p.MaxDt = 1 / (s.Clip.FPS * float64(rf.substeps))
	}
	// Neither the coarse run nor the reference measures its penetration of
	// the full body every frame: refine.Result.Measure does, afterwards and
	// untimed, for the coarse, refined and reference results alike, so the
	// three times count the same work.
	opt.NoPenetration = true
	copt := refine.CoarseOptions(opt)
	if rf.coarseSteps > 0 {
		copt.MaxDt, copt.FastSubsteps = 1/(s.Clip.FPS*float64(rf.coarseSteps)), true
	}
	if rf.serial {
		err = run.coarseThenRefine(ctx, cmd, copt, opt, rf.p)
	} else {
		err = run.coarseBesideRefine(ctx, cmd, copt, opt, rf.p)
	}
	if err != nil {
		return err
	}
	if !rf.noReference {
		if err := run.reference(ctx, cmd, opt); err != nil {
			return err
		}
	}
	if run.measures, err = run.res.Measure(run.refData, s.Character.Body, bodyAt(s)); err != nil {
		return err
	}
	files, err := run.write(out, frames)
	for _, f := range files {
		fmt.Fprintln(w, "wrote", f)
	}
	if err != nil {
		return err
	}
	return run.report(w, filepath.Join(out, "report.txt"))
}

// simulateBar runs sim.Run with a progress bar.
func simulateBar(ctx context.Context, cmd *cobra.Command, s *scene.Scene, opt sim.Options, what string) (*sim.Result, error) {
	bar := newBar(cmd.ErrOrStderr(), len(s.Clip.Poses), "simulating "+what)
	res, err := sim.Run(ctx, s, opt, func(done, total int) { bar.Set(done) })
	bar.Finish()
	if err == nil && res.Interrupted {
		err = fmt.Errorf("%s simulation interrupted", what)
	}
	return res, err
}

// coarseThenRefine runs the coarse simulation, then the refinement
// (--serial), timing each.
func (r *refineRun) coarseThenRefine(ctx context.Context, cmd *cobra.Command, copt, opt sim.Options, p refine.Params) error {
	var err error
	t, c := time.Now(), cpuNow()
	if r.coarse, err = simulateBar(ctx, cmd, r.s, copt, "coarse"); err != nil {
		return err
	}
	r.tCoarse, r.cCoarse = time.Since(t), cpuNow()-c
	in, err := refineInput(r.s, r.coarse, opt, true)
	if err != nil {
		return err
	}
	bar := newBar(cmd.ErrOrStderr(), len(r.s.Clip.Poses), "refining")
	t, c = time.Now(), cpuNow()
	r.res, err = refine.Run(ctx, in, p, func(done, total int) { bar.Set(done) })
	bar.Finish()
	r.tRefine, r.cRefine = time.Since(t), cpuNow()-c
	return err
}

// refineInput makes the refinement's input from the coarse run: its
// pieces, their fabrics as sim chose them, the skinned body and, with
// frames, the run's frames.
func refineInput(s *scene.Scene, coarse *sim.Result, opt sim.Options, frames bool) (refine.Input, error) {
	in := refine.Input{FPS: coarse.FPS, Body: s.Character.Body, BodyAt: bodyAt(s)}
	for i, p := range coarse.Pieces {
		mat, err := pieceMaterial(p.Name, opt)
		if err != nil {
			return in, err
		}
		rest := p.Rest
		if rest == nil {
			rest = p.Mesh.Verts
		}
		held := append(append([]int32(nil), p.Attach...), p.Pins...)
		pi := refine.PieceInput{Name: p.Name, Mesh: p.Mesh, Rest: rest, Held: held, Material: mat}
		if frames {
			pi.Frames = coarse.Frames[i]
		}
		in.Pieces = append(in.Pieces, pi)
	}
	return in, nil
}

// bodyAt returns the skinned body's positions at frame f of the clip.
func bodyAt(s *scene.Scene) func(f int, dst []geom.Vec3) ([]geom.Vec3, error) {
	ch := s.Character
	return func(f int, dst []geom.Vec3) ([]geom.Vec3, error) {
		if f < 0 || f >= len(s.Clip.Poses) {
			return nil, fmt.Errorf("body frame %d out of range", f)
		}
		return skel.LBS(ch.Body.Verts, ch.Weights, skel.SkinMatrices(ch.Skeleton, s.Clip.Poses[f], nil), dst), nil
	}
}

// pieceMaterial is the fabric and model sim gives a piece (sim.Options
// Fabric, Fabrics by longest name prefix, Model).
func pieceMaterial(name string, opt sim.Options) (cloth.Material, error) {
	fab, best, found := opt.Fabric, "", false
	for prefix, f := range opt.Fabrics {
		if strings.HasPrefix(name, prefix) && (!found || len(prefix) > len(best) || len(prefix) == len(best) && prefix < best) {
			fab, best, found = f, prefix, true
		}
	}
	if fab == "" {
		fab = "denim"
	}
	f, ok := cloth.Presets()[strings.ToLower(fab)]
	if !ok {
		return cloth.Material{}, fmt.Errorf("unknown fabric %q", fab)
	}
	model := cloth.MassSpring
	if opt.ModelSet {
		model = opt.Model
	}
	return cloth.Material{Model: model, Fabric: f}, nil
}

// reference simulates the garments subdivided uniformly and locates the
// coarse pieces' keys in it.
func (r *refineRun) reference(ctx context.Context, cmd *cobra.Command, opt sim.Options) error {
	fine := *r.s
	fine.Garments = nil
	var maps []*mesh.SubdivMap
	for _, g := range r.s.Garments {
		fg, sm, err := refine.SubdivideGarment(g)
		if err != nil {
			return err
		}
		fine.Garments = append(fine.Garments, fg)
		maps = append(maps, sm)
	}
	t, c := time.Now(), cpuNow()
	var err error
	if r.ref, err = simulateBar(ctx, cmd, &fine, opt, "reference"); err != nil {
		return err
	}
	r.tRef, r.cRef = time.Since(t), cpuNow()-c
	rd := &refine.Reference{}
	for _, p := range r.coarse.Pieces {
		j, keys, err := refine.LocateKeys(p, maps[p.Garment], r.ref.Pieces)
		if err != nil {
			return err
		}
		rd.Meshes = append(rd.Meshes, r.ref.Pieces[j].Mesh)
		rd.Keys = append(rd.Keys, keys)
		rd.Frames = append(rd.Frames, r.ref.Frames[j])
	}
	rd.All = r.ref.Frames
	r.refData = rd
	return nil
}

// write saves the outputs and renders.
func (r *refineRun) write(out string, frames []int) ([]string, error) {
	var files []string
	n := len(r.res.Stats)
	dir := filepath.Join(out, "refined")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for f := range n {
		var parts []*mesh.Mesh
		var names []string
		for _, pr := range r.res.Pieces {
			parts, names = append(parts, pr.FrameMesh(f)), append(names, pr.Name)
		}
		name := filepath.Join(dir, fmt.Sprintf("frame_%05d.obj", f))
		if err := obj.WriteFile(name, meshio.Merge(parts, names)); err != nil {
			return files, err
		}
	}
	files = append(files, fmt.Sprintf("%s/ (%d OBJ frames)", dir, n))
	fixed := &sim.Result{FPS: r.res.FPS}
	for _, pr := range r.res.Pieces {
		fixed.Pieces = append(fixed.Pieces, &sim.Piece{Name: pr.Name, Mesh: pr.Union})
		fixed.Frames = append(fixed.Frames, pr.Frames)
	}
	for _, o := range []struct {
		res  *sim.Result
		path string
	}{{fixed, "refined.glb"}, {fixed, "refined.pc2"}, {r.coarse, "coarse.glb"}, {r.ref, "reference.glb"}} {
		if o.res == nil {
			continue
		}
		fs, err := o.res.Write(filepath.Join(out, o.path), r.s)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	for _, f := range frames {
		fs, err := r.render(out, f)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// render draws frame f of the coarse, refined and reference garments with
// mean-curvature heat maps on one scale (twice the RMS |H| of the
// reference, or of the coarse garments without one), so that the three
// compare.
func (r *refineRun) render(out string, f int) ([]string, error) {
	body, _, err := r.s.Frame(f, nil, nil)
	if err != nil {
		return nil, err
	}
	box := geom.BoxOf(body)
	c := box.Center()
	half := geom.V(0.3, box.Size().Y/2+0.03, 0.3)
	opt := render.Options{Width: 800, Height: 800, Bounds: geom.Box{Min: c.Sub(half), Max: c.Add(half)}}
	sets := map[string][]*mesh.Mesh{"coarse": simFrame(r.coarse, f)}
	for _, pr := range r.res.Pieces {
		sets["refined"] = append(sets["refined"], pr.FrameMesh(f))
	}
	scaleFrom := "coarse"
	if r.ref != nil {
		sets["reference"], scaleFrom = simFrame(r.ref, f), "reference"
	}
	hs := map[string][][]float64{}
	var sq, n float64
	for name, ms := range sets {
		for _, m := range ms {
			top, err := mesh.NewTopology(m)
			if err != nil {
				return nil, err
			}
			h := mesh.MeanCurvature(m, top, mesh.CurvatureCotan, nil)
			hs[name] = append(hs[name], h)
			if name == scaleFrom {
				st := mesh.SummarizeCurvature(h, mesh.MixedAreas(m, nil), top)
				sq, n = sq+st.RMS*st.RMS*float64(st.N), n+float64(st.N)
			}
		}
	}
	scale := 2 * math.Sqrt(sq/math.Max(n, 1))
	var files []string
	for _, name := range []string{"coarse", "refined", "reference"} {
		ms, ok := sets[name]
		if !ok {
			continue
		}
		var items []render.Item
		for i, m := range ms {
			it := render.Item{Mesh: m, Verts: m.Verts, VertexColors: make([]color.NRGBA, len(m.Verts))}
			for v, h := range hs[name][i] {
				it.VertexColors[v] = render.HeatColor(h, scale)
			}
			items = append(items, it)
		}
		img, err := render.Render(items, opt)
		if err != nil {
			return files, err
		}
		fs, err := writePNGs(filepath.Join(out, name), []int{f}, func(int) (image.Image, error) { return img, nil })
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// simFrame returns a simulation's pieces at frame f.
func simFrame(res *sim.Result, f int) []*mesh.Mesh {
	var ms []*mesh.Mesh
	for i, p := range res.Pieces {
		m := *p.Mesh
		m.Verts = res.Frames[i][f]
		ms = append(ms, &m)
	}
	return ms
}

// report prints and writes the per-frame table and the summary.
func (r *refineRun) report(w io.Writer, path string) error {
	var b strings.Builder
	fmt.Fprintln(&b, "frame  area_m2  verts   free  coarse_H  refined_H  reference_H  deep  max_strain  ms")
	var sum refine.Measure
	verts, free := 0, 0
	for f, m := range r.measures {
		st := r.res.Stats[f]
		fmt.Fprintf(&b, "%5d  %7.4f  %5d  %5d  %8.4f  %9.4f  %11.4f  %4d  %9.1f%%  %4.0f\n", f, m.Area, m.Verts, st.Free,
			m.Coarse, m.Refined, m.Reference, m.Deep, 100*m.MaxStrain, st.Wall.Seconds()*1000)
		sum.Area += m.Area
		sum.Coarse += m.Coarse
		sum.Refined += m.Refined
		sum.Reference += m.Reference
		sum.WholeCoarse += m.WholeCoarse
		sum.WholeRefined += m.WholeRefined
		sum.WholeReference += m.WholeReference
		sum.Deep += m.Deep
		sum.CoarseDeep += m.CoarseDeep
		sum.ReferenceDeep += m.ReferenceDeep
		sum.Paired += m.Paired
		sum.PairedDeep += m.PairedDeep
		sum.PairedRefDeep += m.PairedRefDeep
		sum.Free += m.Free
		sum.DeepFree += m.DeepFree
		sum.Verts += m.Verts
		sum.Over += m.Over
		sum.Edges += m.Edges
		if m.MaxStrain > sum.MaxStrain {
			sum.MaxStrain, sum.Worst, sum.Frame = m.MaxStrain, m.Worst, f
		}
		verts, free = max(verts, m.Verts), max(free, st.Free)
	}
	n := max(len(r.measures), 1)
	cv, rv := 0, 0
	for _, p := range r.coarse.Pieces {
		cv += len(p.Mesh.Verts)
	}
	fmt.Fprintf(&b, "\nframes       %d at %g fps\n", len(r.measures), r.res.FPS)
	fmt.Fprintf(&b, "vertices     coarse %d; refined up to %d (%d simulated)", cv, verts, free)
	if r.ref != nil {
		for _, p := range r.ref.Pieces {
			rv += len(p.Mesh.Verts)
		}
		fmt.Fprintf(&b, "; reference %d", rv)
	}
	fmt.Fprintf(&b, "\nregions      mean refined area %.4f m² per frame\n", sum.Area/float64(n))
	fmt.Fprintf(&b, "curvature    ∫|H|dA over the regions, summed over frames: coarse %.3f m, refined %.3f m", sum.Coarse, sum.Refined)
	if r.ref != nil {
		fmt.Fprintf(&b, ", reference %.3f m: refined/reference %.3f (coarse/reference %.3f)", sum.Reference, sum.Refined/sum.Reference, sum.Coarse/sum.Reference)
	}
	fmt.Fprintf(&b, "\n             Σ|H|A over the whole garments: coarse %.3f m, refined %.3f m", sum.WholeCoarse, sum.WholeRefined)
	if r.ref != nil {
		fmt.Fprintf(&b, ", reference %.3f m: refined/reference %.3f (coarse/reference %.3f)", sum.WholeReference, sum.WholeRefined/sum.WholeReference, sum.WholeCoarse/sum.WholeReference)
	}
	fmt.Fprintf(&b, "\npenetration  %d of %d refined vertex-frames more than 2 mm inside the body (%.3f%%); simulated vertices: %d of %d (%.3f%%)\n",
		sum.Deep, sum.Verts, 100*float64(sum.Deep)/math.Max(float64(sum.Verts), 1), sum.DeepFree, sum.Free, 100*float64(sum.DeepFree)/math.Max(float64(sum.Free), 1))
	if r.ref != nil {
		fmt.Fprintf(&b, "             at the same garment points and frames (simulated vertices the reference has): refined %d, reference %d of %d (%.3f%%, %.3f%%)\n",
			sum.PairedDeep, sum.PairedRefDeep, sum.Paired, 100*float64(sum.PairedDeep)/math.Max(float64(sum.Paired), 1), 100*float64(sum.PairedRefDeep)/math.Max(float64(sum.Paired), 1))
	}
	fmt.Fprintf(&b, "strain       refined patches: max %.1f%%, %d of %d edge-frames above 10%%", 100*sum.MaxStrain, sum.Over, sum.Edges)
	if sum.MaxStrain > 0 {
		wk := sum.Worst
		fmt.Fprintf(&b, " (worst: frame %d, %s keys %d-%d, simulated %v-%v)", sum.Frame, r.res.Pieces[wk.Piece].Name, wk.A, wk.B, wk.FreeA, wk.FreeB)
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "%-12s %s\n", "coarse", simSummary(r.coarse, sum.CoarseDeep))
	if r.ref != nil {
		fmt.Fprintf(&b, "%-12s %s\n", "reference", simSummary(r.ref, sum.ReferenceDeep))
	}
	var ra, ca float64
	for i, pr := range r.res.Pieces {
		ra = math.Max(ra, maxAccel(pr.Frames, r.res.FPS))
		ca = math.Max(ca, maxAccel(r.coarse.Frames[i], r.res.FPS))
	}
	fmt.Fprintf(&b, "popping      max vertex acceleration %.0f m/s² refined (fixed topology), %.0f m/s² coarse\n", ra, ca)
	r.reportTime(&b)
	fmt.Fprintln(&b)
	fmt.Fprint(w, b.String()[strings.Index(b.String(), "\nframes")+1:])
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(w, "wrote", path)
	return nil
}

// reportTime writes the time lines of the report: the coarse run and
// the refinement together (side by side, or one after the other with
// --serial, each apart) against the reference, wall and CPU.
func (r *refineRun) reportTime(b *strings.Builder) {
	ref := func(what string, t, tr time.Duration) {
		if r.ref != nil {
			fmt.Fprintf(b, "; reference %.2f s: %s/reference %.3f", tr.Seconds(), what, t.Seconds()/tr.Seconds())
		}
	}
	if r.tBoth > 0 {
		fmt.Fprintf(b, "time         coarse and refine side by side %.2f s (coarse done at %.2f s; regions %.2f s)", r.tBoth.Seconds(), r.tCoarse.Seconds(), r.res.Detect.Seconds())
		ref("(coarse+refine)", r.tBoth, r.tRef)
		if r.cBoth > 0 {
			fmt.Fprintf(b, "\ncpu          coarse and refine %.2f s", r.cBoth.Seconds())
			ref("(coarse+refine)", r.cBoth, r.cRef)
		}
	} else {
		fmt.Fprintf(b, "time         coarse %.2f s + refine %.2f s (regions %.2f s)", r.tCoarse.Seconds(), r.tRefine.Seconds(), r.res.Detect.Seconds())
		ref("(coarse+refine)", r.tCoarse+r.tRefine, r.tRef)
	}
	if r.tBoth == 0 && r.cCoarse > 0 {
		fmt.Fprintf(b, "\ncpu          coarse %.2f s + refine %.2f s", r.cCoarse.Seconds(), r.cRefine.Seconds())
		ref("(coarse+refine)", r.cCoarse+r.cRefine, r.cRef)
		if r.ref != nil {
			fmt.Fprintf(b, ", coarse/reference %.3f, refine/reference %.3f", r.cCoarse.Seconds()/r.cRef.Seconds(), r.cRefine.Seconds()/r.cRef.Seconds())
		}
	}
	if r.ref != nil {
		fmt.Fprintf(b, "\n             (no run's time includes measuring penetration: all three are measured afterwards)")
	}
}

// simSummary gives a simulation's penetration and strain as the report
// states the refined ones; deep is its vertex-frames more than 2 mm inside
// the body (refine.Measure's count: the runs do not measure it).
func simSummary(res *sim.Result, deep int) string {
	verts := 0
	for _, p := range res.Pieces {
		verts += len(p.Mesh.Verts)
	}
	over, edges, maxS := 0, 0, 0.0
	for _, st := range res.Stats {
		over += st.Overstretched
		edges += st.Edges
		maxS = math.Max(maxS, st.MaxStretch)
	}
	vf := max(verts*len(res.Stats), 1)
	return fmt.Sprintf("%d of %d vertex-frames more than 2 mm inside (%.3f%%); max strain %.1f%%, %d of %d edge-frames above 10%%",
		deep, vf, 100*float64(deep)/float64(vf), 100*maxS, over, edges)
}

// cpuNow is the process's CPU time, 0 where it is not measured.
func cpuNow() time.Duration {
	d, _ := processCPU()
	return d
}

// maxAccel is the largest vertex acceleration |x(f+1) − 2x(f) + x(f−1)|·fps²
// over frames fr, m/s².
func maxAccel(fr [][]geom.Vec3, fps float64) float64 {
	a := 0.0
	for f := 1; f+1 < len(fr); f++ {
		for v := range fr[f] {
			a = math.Max(a, fr[f+1][v].Sub(fr[f][v].Scale(2)).Add(fr[f-1][v]).Len()*fps*fps)
		}
	}
	return a
}
