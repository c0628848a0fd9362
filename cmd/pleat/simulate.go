package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/report"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
)

type simFlags struct {
	fabric, model, integrator string
	verts                     int
	thickness                 float64
	substeps                  int
	frictionless, noLayers    bool
	noAttach, selfCollide     bool
	settle                    float64
	bodyProxy                 float64
}

func (f *simFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.fabric, "fabric", "denim", "fabric preset: "+strings.Join(fabricNames(), ", ")+"; or piece=fabric pairs, e.g. shirt=jersey,trousers=denim")
	fl.StringVar(&f.model, "model", "mass-spring", "cloth model: mass-spring (Choi-Ko, as wang2010) or weft-warp (volino-cordier)")
	fl.StringVar(&f.integrator, "integrator", "euler", "time integration: euler (implicit Euler) or bdf2")
	fl.IntVar(&f.verts, "verts", 0, fmt.Sprintf("refine garments (split their longest triangles) to at least this many vertices in total (0: as given; at most %d)", maxVerts))
	fl.Float64Var(&f.thickness, "thickness", 3, "body safety distance in mm")
	fl.IntVar(&f.substeps, "substeps", 0, "cloth substeps per frame (0: one per 1/60 s, more in frames where the garments move over 10 cm per substep)")
	fl.BoolVar(&f.frictionless, "frictionless", false, "no friction between cloth and body")
	fl.BoolVar(&f.noLayers, "no-layers", false, "no cloth-cloth collision between garment pieces")
	fl.BoolVar(&f.noAttach, "no-attach", false, "do not hold the top boundary loop (waistband, collar) to the body")
	fl.BoolVar(&f.selfCollide, "self-collide", false, "vertex-triangle self-collision repulsion within each garment piece")
	fl.Float64Var(&f.settle, "settle", 0.5, fmt.Sprintf("seconds simulated on the first pose before the clip plays (0: none; at most %g)", maxSettle))
	fl.Float64Var(&f.bodyProxy, "body-proxy", 0, "tolerance in mm of the simplified body the cloth collides with (0: from the garment's edge length, 1-5 mm; negative: the full body)")
}

// Bounds of the simulation flags. maxVerts keeps a mistyped --verts from
// exhausting memory before any frame is simulated; maxSettle from running
// for hours without output.
const (
	maxVerts  = 1000000
	maxSettle = 10.0 // s
)

func fabricNames() []string {
	var n []string
	for k := range cloth.Presets() {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func (f *simFlags) options(fps float64) (sim.Options, error) {
	o := sim.Options{TargetVerts: f.verts, Thickness: f.thickness / 1000, Frictionless: f.frictionless, NoLayers: f.noLayers, NoAttach: f.noAttach, SelfCollide: f.selfCollide}
	if math.IsNaN(f.bodyProxy) || f.bodyProxy > 50 {
		return o, fmt.Errorf("--body-proxy %g mm: want at most 50 mm (0: automatic, negative: off)", f.bodyProxy)
	}
	o.BodyProxy = f.bodyProxy / 1000
	if f.verts < 0 || f.verts > maxVerts {
		return o, fmt.Errorf("--verts %d: want 0 (as given) to %d", f.verts, maxVerts)
	}
	if !(f.settle >= 0 && f.settle <= maxSettle) {
		return o, fmt.Errorf("--settle %g s: want 0 to %g", f.settle, maxSettle)
	}
	if f.settle == 0 {
		o.Settle = -1
	} else {
		o.Settle = f.settle
	}
	if strings.Contains(f.fabric, "=") {
		o.Fabrics = map[string]string{}
		for _, kv := range strings.Split(f.fabric, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return o, fmt.Errorf("--fabric %q: want piece=fabric pairs", kv)
			}
			o.Fabrics[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	} else {
		o.Fabric = f.fabric
	}
	switch f.model {
	case "mass-spring", "massspring":
		o.Model, o.ModelSet = cloth.MassSpring, true
	case "weft-warp", "weftwarp":
		o.Model, o.ModelSet = cloth.WeftWarp, true
	default:
		return o, fmt.Errorf("--model %q: want mass-spring or weft-warp", f.model)
	}
	switch f.integrator {
	case "euler":
		o.Integrator = cloth.ImplicitEuler
	case "bdf2":
		o.Integrator = cloth.BDF2
	default:
		return o, fmt.Errorf("--integrator %q: want euler or bdf2", f.integrator)
	}
	if f.substeps < 0 || f.substeps > 1000 {
		return o, fmt.Errorf("--substeps %d out of range", f.substeps)
	}
	if f.substeps > 0 {
		o.MaxDt = 1 / (fps * float64(f.substeps))
	}
	if f.thickness <= 0 || f.thickness > 50 {
		return o, fmt.Errorf("--thickness %g mm out of range (0, 50]", f.thickness)
	}
	return o, nil
}

func newSimulateCmd() *cobra.Command {
	var sf sceneFlags
	var mf simFlags
	var out, sceneName, renders, reportOut string
	var seconds float64
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate garments on an animated character (or a test scene)",
		Long: `simulate runs the cloth simulator: garments on a character driven by a
motion clip (body collision with a safety distance and friction, layered
cloth-cloth collision between garment pieces, waistband and collar held to
the body), or a test scene (--scene sheet: a sheet pinned at two corners;
--scene sphere: a sheet draped on a sphere).

It prints a progress bar and a per-run report (time per frame, CG
iterations, maximum stretch, penetrations and their depth, kinetic energy).
Ctrl-C or SIGTERM (what a render farm or queue sends) stops after the
current frame: the frames done so far are written, and pleat exits with
status 1 and an error saying the output is partial. Flags are checked and
the output path is tried for writing before any work starts.

Output by extension: .glb/.gltf (body + garments as vertex animation),
.usda/.usdz (body + garments as time-sampled points), .pc2 (plus, beside
it as .obj, the rest shape the stretch figures are measured against), or
a folder/ of OBJ frames; any other extension fails before any work. The body is whole unless
--hide-covered.`,
		Example: `  pleat simulate --out out/sim.glb                     # procedural default
  pleat simulate --scene sheet --out out/sheet.glb
  pleat simulate --character $PLEAT_ASSETS/makehuman --garment male_casualsuit02 \
      --motion $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh --fps 30 --verts 25000 \
      --out out/walk.pc2 --report out/walk.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := sim.CheckPath(out); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			if st, err := os.Stat(out); err == nil && st.IsDir() && !strings.HasSuffix(out, "/") {
				out += "/" // an existing folder takes OBJ frames
			}
			if err := checkWritable(out, reportOut); err != nil {
				return err
			}
			if _, err := mf.options(30); err != nil { // flag bounds, before any work
				return err
			}
			if sceneName != "" {
				return runTestScene(ctx, w, sceneName, mf, seconds, out, renders)
			}
			if sf.spec.FPS == 0 {
				sf.spec.FPS = 30
			}
			s, err := sf.load()
			if err != nil {
				return err
			}
			describeScene(w, s, cmd.ErrOrStderr())
			opt, err := mf.options(s.Clip.FPS)
			if err != nil {
				return err
			}
			if _, err := parseFrames(renders, len(s.Clip.Poses)); err != nil {
				return fmt.Errorf("--renders: %w", err)
			}
			res, err := runSim(ctx, cmd, s, opt)
			if res == nil {
				return err
			}
			if res.NumFrames() > 0 {
				files, werr := res.Write(out, s)
				for _, f := range files[:min(len(files), 3)] {
					fmt.Fprintln(w, "wrote", f)
				}
				if len(files) > 3 {
					fmt.Fprintf(w, "wrote %d files\n", len(files))
				}
				if werr != nil {
					return werr
				}
				frames, perr := parseFrames(renders, res.NumFrames())
				if perr != nil {
					return perr
				}
				prefix := strings.TrimSuffix(strings.TrimSuffix(out, "/"), filepath.Ext(out))
				names, rerr := writePNGs(prefix, frames, func(f int) (image.Image, error) { return renderSim(s, res, f) })
				for _, n := range names {
					fmt.Fprintln(w, "wrote", n)
				}
				if rerr != nil {
					return rerr
				}
				if reportOut != "" {
					if rerr := writeSimReport(reportOut, s, res, frames); rerr != nil {
						return rerr
					}
					fmt.Fprintln(w, "wrote", reportOut)
				}
			}
			if err == nil && res.Interrupted {
				err = fmt.Errorf("interrupted: the output holds %d of %d frames (partial)", res.NumFrames(), len(s.Clip.Poses))
			}
			return err
		},
	}
	sf.add(cmd)
	mf.add(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "out/simulate.glb", "output: .glb/.gltf, .usda/.usdz (body + garments, time-sampled points), .pc2 (+ .obj rest mesh), or a folder/ of OBJ frames")
	cmd.Flags().StringVar(&sceneName, "scene", "", "a test scene instead of a character: sheet or sphere")
	cmd.Flags().Float64Var(&seconds, "seconds-sim", 3, "length of a test scene in seconds")
	cmd.Flags().StringVar(&renders, "renders", "first,middle,last", `frames to render as PNG beside the output ("" for none)`)
	cmd.Flags().StringVar(&reportOut, "report", "", "write an HTML run report (plots of timings, CG iterations, stretch, penetration, energy)")
	return cmd
}

// runSim runs the simulation with a progress bar, then prints its notes and
// report; a run that failed part way returns its frames with the error.
func runSim(ctx context.Context, cmd *cobra.Command, s *scene.Scene, opt sim.Options) (*sim.Result, error) {
	w := cmd.OutOrStdout()
	bar := newBar(cmd.ErrOrStderr(), len(s.Clip.Poses), "simulating")
	start := time.Now()
	res, err := sim.Run(ctx, s, opt, func(done, total int) { bar.Set(done) })
	bar.Finish()
	if res == nil {
		return nil, err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note      ", n)
	}
	printSimReport(w, res, time.Since(start))
	return res, err
}

// renderSim draws frame f: the skinned body and the simulated pieces.
func renderSim(s *scene.Scene, res *sim.Result, f int) (img *image.NRGBA, err error) {
	body, _, err := s.Frame(f, nil, nil)
	if err != nil {
		return nil, err
	}
	items := []render.Item{{Mesh: s.OutputBody(), Verts: body, Color: scene.PaletteColor(0)}}
	for i, p := range res.Pieces {
		items = append(items, render.Item{Mesh: p.Mesh, Verts: res.Frames[i][f], Color: scene.PaletteColor(i + 1)})
	}
	box := geom.BoxOf(body)
	c := box.Center()
	half := geom.V(0.3, box.Size().Y/2+0.03, 0.3)
	return render.Render(items, render.Options{Width: 800, Height: 800, Bounds: geom.Box{Min: c.Sub(half), Max: c.Add(half)}})
}

func printSimReport(w io.Writer, res *sim.Result, total time.Duration) {
	n := len(res.Stats)
	if n == 0 {
		fmt.Fprintln(w, "no frames simulated")
		return
	}
	var walls []float64
	cg, maxStretch, inside, deep, maxDepth, verts := 0, 0.0, 0, 0, 0.0, 0
	for _, p := range res.Pieces {
		verts += len(p.Mesh.Verts)
	}
	for _, st := range res.Stats[1:] {
		walls = append(walls, st.Wall.Seconds())
		cg += st.CGIterations
	}
	clamped, clampFrames := 0, 0
	covered, through, maxThrough := 0, 0, 0.0
	edges, over, overFrames := 0, 0, 0
	for _, st := range res.Stats {
		edges += st.Edges
		over += st.Overstretched
		if st.Overstretched > 0 {
			overFrames++
		}
		if st.Clamped > 0 {
			clamped += st.Clamped
			clampFrames++
		}
		maxStretch = math.Max(maxStretch, st.MaxStretch)
		inside += st.Inside
		deep += st.Deep
		maxDepth = math.Max(maxDepth, st.MaxDepth)
		covered += st.Covered
		through += st.Through
		maxThrough = math.Max(maxThrough, st.MaxThrough)
	}
	sort.Float64s(walls)
	med := 0.0
	if len(walls) > 0 {
		med = walls[len(walls)/2]
	}
	vf := verts * n
	fmt.Fprintf(w, "simulated  %d frames of %d garment vertices in %.1f s", n, verts, total.Seconds())
	if res.Interrupted {
		fmt.Fprint(w, " (interrupted)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "time       median %.1f ms per frame (%.1f frames/s)\n", med*1000, 1/math.Max(med, 1e-9))
	if n > 1 {
		fmt.Fprintf(w, "CG         %.0f iterations per frame on average\n", float64(cg)/float64(n-1))
	}
	fmt.Fprintf(w, "stretch    max edge strain %.1f%%; %d edge-frames above 10%% (%.4f%% of %d, in %d of %d frames)\n",
		maxStretch*100, over, 100*float64(over)/math.Max(float64(edges), 1), edges, overFrames, n)
	fmt.Fprintf(w, "contact    %d vertex-frames inside the body (%.3f%%), %d more than 2 mm (%.3f%%), deepest %.1f mm\n",
		inside, 100*float64(inside)/float64(vf), deep, 100*float64(deep)/float64(vf), maxDepth*1000)
	if covered > 0 {
		fmt.Fprintf(w, "through    %d of %d vertex-frames of the covered skin more than 2 mm through a garment (%.3f%%), deepest %.1f mm\n",
			through, covered, 100*float64(through)/float64(covered), maxThrough*1000)
	}
	fmt.Fprintf(w, "energy     kinetic %.3g J at the last frame\n", res.Stats[n-1].KineticEnergy)
	if clamped > 0 {
		fmt.Fprintf(w, "clamped    %d vertex speeds in %d frames (the solver's safety net: contacts it could not satisfy)\n", clamped, clampFrames)
	}
}

func writeSimReport(path string, s *scene.Scene, res *sim.Result, frames []int) error {
	rep := report.New("pleat simulate")
	var xs, wall, cg, stretch, ke, deep []float64
	for _, st := range res.Stats[1:] {
		xs = append(xs, float64(st.Frame))
		wall = append(wall, st.Wall.Seconds()*1000)
		cg = append(cg, float64(st.CGIterations))
		stretch = append(stretch, st.MaxStretch*100)
		ke = append(ke, st.KineticEnergy)
		deep = append(deep, float64(st.Deep))
	}
	for _, n := range res.Notes {
		rep.Paragraph(n)
	}
	if len(xs) > 0 {
		plots := []report.Plot{
			{Title: "Time per frame", XLabel: "frame", YLabel: "ms", Series: []report.Series{{Name: "wall", X: xs, Y: wall}}},
			{Title: "CG iterations per frame", XLabel: "frame", YLabel: "iterations", Series: []report.Series{{Name: "CG", X: xs, Y: cg}}},
			{Title: "Max edge strain", XLabel: "frame", YLabel: "%", Series: []report.Series{{Name: "stretch", X: xs, Y: stretch}}},
			{Title: "Kinetic energy", XLabel: "frame", YLabel: "J", Series: []report.Series{{Name: "KE", X: xs, Y: ke}}},
			{Title: "Vertices more than 2 mm inside the body", XLabel: "frame", YLabel: "count", Series: []report.Series{{Name: "deep", X: xs, Y: deep}}},
		}
		for _, p := range plots {
			if err := rep.Plot(p); err != nil {
				return err
			}
		}
	}
	var cells []report.Cell
	for _, f := range frames {
		img, err := renderSim(s, res, f)
		if err != nil {
			return err
		}
		cells = append(cells, report.Cell{Caption: fmt.Sprintf("frame %d", f), Image: img})
	}
	if len(cells) > 0 {
		if err := rep.Grid("Renders", cells); err != nil {
			return err
		}
	}
	return rep.WriteFile(path)
}

// runTestScene runs the sheet or sphere scene.
func runTestScene(ctx context.Context, w io.Writer, name string, mf simFlags, seconds float64, out, renders string) error {
	opt, err := mf.options(30)
	if err != nil {
		return err
	}
	fab, ok := cloth.Presets()[opt.Fabric]
	if !ok {
		return fmt.Errorf("--fabric %q: want one of %s", opt.Fabric, strings.Join(fabricNames(), ", "))
	}
	mat := cloth.Material{Model: opt.Model, Fabric: fab}
	copt := cloth.Options{Integrator: opt.Integrator, MaxDt: opt.MaxDt}
	var sc *cloth.Scene
	switch name {
	case "sheet":
		sc, err = cloth.SheetScene(mat, 30, 30, copt)
	case "sphere":
		sc, err = cloth.SphereScene(mat, 40, copt)
	default:
		return fmt.Errorf("--scene %q: want sheet or sphere", name)
	}
	if err != nil {
		return err
	}
	ext := strings.ToLower(filepath.Ext(out))
	if ext != ".glb" && ext != ".gltf" {
		return fmt.Errorf("--out %q: a test scene is written as .glb or .gltf", out)
	}
	frames := [][]geom.Vec3{append([]geom.Vec3(nil), sc.Cloth.X...)}
	var stats []cloth.StepStats
	start := time.Now()
	if !(seconds > 0 && seconds <= 600) {
		return fmt.Errorf("--seconds-sim %g: want more than 0 and at most 600", seconds)
	}
	n := int(math.Round(seconds / sc.FrameDt))
	partial := false
	for k := 0; k < n; k++ {
		if ctx.Err() != nil {
			fmt.Fprintf(w, "interrupted after %d of %d frames\n", k, n)
			partial = true
			break
		}
		st, err := sc.Cloth.Step(sc.FrameDt)
		if err != nil {
			return err
		}
		stats = append(stats, st)
		frames = append(frames, append([]geom.Vec3(nil), sc.Cloth.X...))
	}
	if len(stats) == 0 {
		return fmt.Errorf("%s scene: no frame simulated (--seconds-sim %g)", name, seconds)
	}
	peak := 0.0
	for _, st := range stats {
		peak = math.Max(peak, st.KineticEnergy)
	}
	last := stats[len(stats)-1]
	fmt.Fprintf(w, "%s scene: %d vertices, %d frames in %.2f s; kinetic energy peak %.3g J, final %.3g J; max stretch %.1f%%\n",
		name, len(sc.Cloth.X), len(stats), time.Since(start).Seconds(), peak, last.KineticEnergy, last.MaxStretch*100)
	gs, err := gltfio.VertexAnimation(sc.Mesh, frames, 1/sc.FrameDt)
	if err != nil {
		return err
	}
	if err := writeGLTF(out, gs); err != nil {
		return err
	}
	fmt.Fprintln(w, "wrote", out)
	// PNG renders of the cloth (and the sphere it drapes on).
	fs, err := parseFrames(renders, len(frames))
	if err != nil {
		return err
	}
	var items []render.Item
	if sp := sc.Sphere; sp != nil {
		ball := mesh.UVSphere(sp.Radius, 24, 48)
		for i := range ball.Verts {
			ball.Verts[i] = ball.Verts[i].Add(sp.Center)
		}
		items = append(items, render.Item{Mesh: ball, Color: scene.PaletteColor(0)})
	}
	items = append(items, render.Item{Mesh: sc.Mesh, Color: scene.PaletteColor(1)})
	var all []geom.Vec3
	for _, f := range frames {
		all = append(all, f...)
	}
	box := geom.BoxOf(all)
	prefix := strings.TrimSuffix(out, filepath.Ext(out))
	names, err := writePNGs(prefix, fs, func(f int) (image.Image, error) {
		items[len(items)-1].Verts = frames[f]
		return render.Render(items, render.Options{Width: 800, Height: 800, View: render.ThreeQuarter, Bounds: box})
	})
	for _, n := range names {
		fmt.Fprintln(w, "wrote", n)
	}
	if err == nil && partial {
		err = fmt.Errorf("interrupted: %s holds %d of %d frames (partial)", out, len(stats), n)
	}
	return err
}

// writeGLTF writes a glTF scene to path (.glb or .gltf), creating its folder.
func writeGLTF(path string, gs *gltfio.Scene) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return gltfio.WriteFile(path, gs)
}
