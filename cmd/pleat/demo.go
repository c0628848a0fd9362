package main

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
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
)

func newDemoCmd() *cobra.Command {
	var sf sceneFlags
	var mf simFlags
	var outDir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on the built-in default and write a report",
		Long: `demo runs pleat end to end, by default on the built-in procedural
mannequin, shirt, trousers and walk (no files needed): the skinning baseline,
the cloth simulation, and wrinkle-flow compression of the simulated garments.
It writes, in --out:

  skinning.glb     the skinning baseline (GPU skinning)
  simulated.glb    the cloth simulation (vertex animation)
  flow.glb         the compressed simulation (GPU skinning + morph targets)
  simulated.pc2    the simulated garments as a point cache (+ .obj rest mesh)
  report.html      renders side by side, curvature sum, error and timings

and prints how to play them side by side in the viewer. The scene and
simulation flags of pose and simulate apply.`,
		Example: `  pleat demo
  pleat demo --out out/jersey --fabric jersey
  pleat demo --character $PLEAT_ASSETS/makehuman --garment male_casualsuit02 \
      --motion $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh --fps 30 --out out/walk`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			if sf.spec.FPS == 0 {
				sf.spec.FPS = 30
			}
			s, err := sf.load()
			if err != nil {
				return err
			}
			describeScene(w, s)
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return err
			}
			opt, err := mf.options(s.Clip.FPS)
			if err != nil {
				return err
			}
			// 1. Simulation.
			res, err := runSim(ctx, cmd, s, opt)
			if err != nil {
				return err
			}
			n := res.NumFrames()
			if n < 2 {
				return fmt.Errorf("demo: only %d frames simulated", n)
			}
			rest, simFrames := res.Merged()
			// 2. Skinning baseline of the same vertices.
			weights := mergedPieceWeights(res)
			sk := s.Character.Skeleton
			skinFrames := make([][]geom.Vec3, n)
			var skinTime time.Duration
			for f := 0; f < n; f++ {
				st := time.Now()
				skinFrames[f] = skel.LBS(rest.Verts, weights, skel.SkinMatrices(sk, s.Clip.Poses[f], nil), nil)
				skinTime += time.Since(st)
			}
			// 3. Wrinkle flow of the simulation.
			clip := *s.Clip
			clip.Poses = clip.Poses[:n]
			t1 := time.Now()
			fl, err := flow.Compress(flow.Animation{Name: "garments", Rest: rest, Frames: simFrames}, flow.NewRig(s.Character, &clip, weights), flow.Options{})
			if err != nil {
				return err
			}
			compressTime := time.Since(t1)
			t2 := time.Now()
			flowFrames := fl.Decompress()
			decompTime := time.Since(t2)
			fmt.Fprintf(w, "flow       k = %d, %.0f KiB (%.1fx smaller than raw float32), compressed in %.1f s\n",
				fl.K, float64(fl.Size())/1024, float64(12*len(rest.Verts)*n)/float64(fl.Size()), compressTime.Seconds())

			// 4. Files.
			gs, err := s.GLTF("skinning")
			if err != nil {
				return err
			}
			files := []string{}
			save := func(name string, g *gltfio.Scene) error {
				p := filepath.Join(outDir, name)
				files = append(files, p)
				return gltfio.WriteFile(p, g)
			}
			if err := save("skinning.glb", gs); err != nil {
				return err
			}
			if gs, err = res.GLTF(s, "simulated"); err != nil {
				return err
			}
			if err := save("simulated.glb", gs); err != nil {
				return err
			}
			body := gltfio.Mesh{Name: "body", Mesh: s.OutputBody(), Skin: anim.Skin(s.Character.Weights)}
			if gs, err = fl.GLTF(body); err != nil {
				return err
			}
			if err := save("flow.glb", gs); err != nil {
				return err
			}
			pc, err := res.Write(filepath.Join(outDir, "simulated.pc2"), s)
			if err != nil {
				return err
			}
			files = append(files, pc...)

			// 5. Report.
			rp := filepath.Join(outDir, "report.html")
			if err := writeDemoReport(rp, s, res, rest, skinFrames, simFrames, flowFrames, fl, demoTimes{skinTime, decompTime, compressTime}); err != nil {
				return err
			}
			files = append(files, rp)
			for _, f := range files {
				fmt.Fprintln(w, "wrote", f)
			}
			fmt.Fprintf(w, "\nplay them side by side:\n  pleat serve skinning=%s simulated=%s flow=%s\n",
				filepath.Join(outDir, "skinning.glb"), filepath.Join(outDir, "simulated.glb"), filepath.Join(outDir, "flow.glb"))
			return nil
		},
	}
	sf.add(cmd)
	mf.add(cmd)
	cmd.Flags().StringVarP(&outDir, "out", "o", "out/demo", "output folder")
	return cmd
}

type demoTimes struct{ skin, decompress, compress time.Duration }

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

func writeDemoReport(path string, s *scene.Scene, res *sim.Result, rest *mesh.Mesh, skin, simF, flowF [][]geom.Vec3, fl *flow.Flow, tm demoTimes) error {
	n := len(simF)
	rep := report.New("pleat demo: " + s.Character.Name)
	cm, err := metrics.NewCurvature(rest)
	if err != nil {
		return err
	}
	var xs, cSkin, cSim, cFlow, eSkin, eFlow, wall []float64
	var meanSkin, meanFlow float64
	for f := 0; f < n; f++ {
		xs = append(xs, float64(f))
		var sums [3]float64
		for k, x := range [][]geom.Vec3{skin[f], simF[f], flowF[f]} {
			if sums[k], err = cm.Sum(x); err != nil {
				return fmt.Errorf("frame %d: curvature: %w", f, err)
			}
		}
		cSkin, cSim, cFlow = append(cSkin, sums[0]), append(cSim, sums[1]), append(cFlow, sums[2])
		es, err := metrics.FrameError(skin[f], simF[f])
		if err != nil {
			return fmt.Errorf("frame %d: skinning error: %w", f, err)
		}
		ef, err := metrics.FrameError(flowF[f], simF[f])
		if err != nil {
			return fmt.Errorf("frame %d: flow error: %w", f, err)
		}
		eSkin, eFlow = append(eSkin, es.Mean*1000), append(eFlow, ef.Mean*1000)
		meanSkin += es.Mean * 1000 / float64(n)
		meanFlow += ef.Mean * 1000 / float64(n)
		wall = append(wall, res.Stats[f].Wall.Seconds()*1000)
	}
	simMed := median(wall[1:])
	rep.Metrics("Summary", []report.KV{
		{Key: "garment vertices", Value: fmt.Sprint(len(rest.Verts))},
		{Key: "frames", Value: fmt.Sprintf("%d at %g fps", n, res.FPS)},
		{Key: "simulation", Value: fmt.Sprintf("%.1f ms/frame", simMed)},
		{Key: "skinning", Value: fmt.Sprintf("%.2f ms/frame", tm.skin.Seconds()*1000/float64(n))},
		{Key: "flow playback", Value: fmt.Sprintf("%.2f ms/frame", tm.decompress.Seconds()*1000/float64(n))},
		{Key: "skinning error", Value: fmt.Sprintf("%.1f mm mean", meanSkin)},
		{Key: "flow error", Value: fmt.Sprintf("%.2f mm mean (k = %d)", meanFlow, fl.K)},
		{Key: "flow size", Value: fmt.Sprintf("%.0f KiB (%.0fx smaller)", float64(fl.Size())/1024, float64(12*len(rest.Verts)*n)/float64(fl.Size()))},
	})
	rep.Paragraph("Skinning is linear blend skinning of the garment with weights blended from the body (the baseline). Simulated is pleat's cloth simulation against the moving body. Flow is the simulation compressed into skinning plus a PCA wrinkle basis (Kim et al. 2013) and decompressed. Errors are against the simulation.")
	for _, note := range res.Notes {
		rep.Paragraph("Simulation: " + note)
	}
	rep.Heading("Renders")
	for _, f := range []int{0, n / 2, n - 1} {
		var cells []report.Cell
		for _, c := range []struct {
			name string
			fr   [][]geom.Vec3
		}{{"skinning", skin}, {"simulated", simF}, {"flow", flowF}} {
			img, err := renderGarments(s, rest, c.fr[f], f)
			if err != nil {
				return err
			}
			cells = append(cells, report.Cell{Caption: c.name, Image: img})
		}
		if err := rep.Grid(fmt.Sprintf("frame %d", f), cells); err != nil {
			return err
		}
	}
	rep.Heading("Curves")
	plots := []report.Plot{
		{Title: "Curvature sum Σ|H|A over frames", XLabel: "frame", YLabel: "Σ|H|A (m)", Series: []report.Series{{Name: "skinning", X: xs, Y: cSkin}, {Name: "simulated", X: xs, Y: cSim}, {Name: "flow", X: xs, Y: cFlow}}},
		{Title: "Mean vertex error against the simulation", XLabel: "frame", YLabel: "mm", Series: []report.Series{{Name: "skinning", X: xs, Y: eSkin}, {Name: "flow", X: xs, Y: positive(eFlow)}}},
		{Title: "Simulation time per frame", XLabel: "frame", YLabel: "ms", Series: []report.Series{{Name: "wall", X: xs[1:], Y: wall[1:]}}},
	}
	for _, p := range plots {
		if err := rep.Plot(p); err != nil {
			return err
		}
	}
	return rep.WriteFile(path)
}

// renderGarments draws the body at frame f with the garment positions x.
func renderGarments(s *scene.Scene, garments *mesh.Mesh, x []geom.Vec3, f int) (image.Image, error) {
	body, _, err := s.Frame(f, nil, nil)
	if err != nil {
		return nil, err
	}
	box := geom.BoxOf(body)
	c := box.Center()
	half := geom.V(0.3, box.Size().Y/2+0.03, 0.3)
	items := []render.Item{{Mesh: s.OutputBody(), Verts: body, Color: scene.PaletteColor(0)}}
	// One colour per garment piece (the merged mesh has a group per piece).
	for i, g := range garments.Groups {
		part := &mesh.Mesh{Verts: garments.Verts}
		for _, t := range g.Tris {
			part.Tris = append(part.Tris, garments.Tris[t])
		}
		items = append(items, render.Item{Mesh: part, Verts: x, Color: scene.PaletteColor(i + 1)})
	}
	return render.Render(items, render.Options{Width: 360, Height: 480, View: render.ThreeQuarter, Bounds: geom.Box{Min: c.Sub(half), Max: c.Add(half)}})
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}
