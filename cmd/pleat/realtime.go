package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/layers"
	"github.com/pleat-dev/pleat/scene"
)

func newRealtimeCmd() *cobra.Command {
	var sf sceneFlags
	var out, renders string
	var groups []string
	var compare bool
	var settle, thickness float64
	var substeps int
	cmd := &cobra.Command{
		Use:   "realtime",
		Short: "Animate a dressed character in real time with three cloth layers (volino-cordier §3)",
		Long: `realtime animates the garments with the three layers of volino-cordier
§3: tight regions follow the skin (skinning), loose regions (sleeves) move
inside spheres attached to the skin sized by the catenary of Eqs. 11-16,
and floating regions (skirts) are a mass-spring cloth stepped by implicit
Euler against two capsules per leg. Vertices are classified automatically
from the rest pose, with blend zones between layers; --layer overrides it
per vertex group or garment.

It prints the classification, the frames per second of the animation
itself (one core; loading and writing excluded) and, with --compare, runs
the full simulator (pleat simulate's defaults) on the same scene and
prints the per-layer mean distance between the two, both penetrations
(garment vertices inside the body) and the skin showing through the cloth
(body vertices in front of the cloth face that covers them, by body part).`,
		Example: `  pleat realtime --out out/rt.glb                       # procedural default
  pleat realtime --character $PLEAT_ASSETS/makehuman --garment female_elegantsuit01 \
      --motion $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh --fps 30 --out out/rt.pc2 --compare`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := checkWritable(out); err != nil {
				return err
			}
			opt, err := realtimeOptions(groups, settle, thickness, substeps)
			if err != nil {
				return err
			}
			if sf.spec.FPS == 0 {
				sf.spec.FPS = 30
			}
			s, err := sf.load()
			if err != nil {
				return err
			}
			describeScene(w, s)
			frames, err := parseFrames(renders, len(s.Clip.Poses))
			if err != nil {
				return fmt.Errorf("--renders: %w", err)
			}
			start := time.Now()
			var cpu1 time.Duration
			cpuOK := true
			res, err := layers.Run(ctx, s, opt, func(done, total int) {
				if done == 1 {
					cpu1, cpuOK = processCPU()
				}
			})
			if res == nil {
				return err
			}
			wall := time.Since(start)
			printLayers(w, res, wall)
			if cpu2, ok := processCPU(); ok && cpuOK && len(res.Frames) > 1 && cpu2 > cpu1 {
				fmt.Fprintf(w, "cpu        %.3f ms CPU per frame after the first: %.0f frames per CPU second\n",
					(cpu2-cpu1).Seconds()*1000/float64(len(res.Frames)-1), float64(len(res.Frames)-1)/(cpu2-cpu1).Seconds())
			}
			if err != nil {
				return err
			}
			files, err := res.Sim().Write(out, s)
			for _, f := range files[:min(len(files), 3)] {
				fmt.Fprintln(w, "wrote", f)
			}
			if err != nil {
				return err
			}
			prefix := strings.TrimSuffix(strings.TrimSuffix(out, "/"), filepath.Ext(out))
			lres := res.Sim()
			names, err := writePNGs(prefix, frames, func(f int) (image.Image, error) { return renderSim(s, lres, f) })
			for _, n := range names {
				fmt.Fprintln(w, "wrote", n)
			}
			if err != nil {
				return err
			}
			if compare {
				if err := compareRealtime(ctx, cmd, s, res, prefix, frames); err != nil {
					return err
				}
			}
			if res.Interrupted {
				return fmt.Errorf("interrupted: the output holds %d of %d frames (partial)", len(res.Frames), len(s.Clip.Poses))
			}
			return nil
		},
	}
	sf.add(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "out/realtime.glb", "output: .glb/.gltf, .usda/.usdz (body + garments), .pc2 (+ .obj rest mesh), or a folder/ of OBJ frames")
	fl.StringVar(&renders, "renders", "first,middle,last", `frames to render as PNG beside the output ("" for none)`)
	fl.StringArrayVar(&groups, "layer", nil, "override the classification: GROUP=tight|loose|floating, GROUP a vertex group or garment name (repeatable)")
	fl.BoolVar(&compare, "compare", false, "also run the full simulation and print the per-layer error and penetrations (renders it beside, as PREFIX.sim.fNNNN.png)")
	fl.Float64Var(&settle, "settle", 0.5, "seconds the dynamic layers settle on the first pose (0: none)")
	fl.Float64Var(&thickness, "thickness", 3, "least distance kept between the cloth and the skin or the leg capsules, mm (each vertex adds its faces' sag over the skin)")
	fl.IntVar(&substeps, "substeps", 0, "substeps per frame of the dynamic layers (0: one per 1/30 s)")
	return cmd
}

func realtimeOptions(groups []string, settle, thickness float64, substeps int) (layers.Options, error) {
	var o layers.Options
	if !(settle >= 0 && settle <= 10) {
		return o, fmt.Errorf("--settle %g s: want 0 to 10", settle)
	}
	o.Settle = settle
	if settle == 0 {
		o.Settle = -1
	}
	if !(thickness > 0 && thickness <= 50) {
		return o, fmt.Errorf("--thickness %g mm: want (0, 50]", thickness)
	}
	o.Thickness = thickness / 1000
	if substeps < 0 || substeps > 100 {
		return o, fmt.Errorf("--substeps %d: want 0 to 100", substeps)
	}
	o.Substeps = substeps
	for _, g := range groups {
		k, v, ok := strings.Cut(g, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return o, fmt.Errorf("--layer %q: want GROUP=tight|loose|floating", g)
		}
		l, err := layers.ParseLayer(v)
		if err != nil {
			return o, fmt.Errorf("--layer %q: %w", g, err)
		}
		if o.Groups == nil {
			o.Groups = map[string]layers.Layer{}
		}
		o.Groups[strings.TrimSpace(k)] = l
	}
	return o, nil
}

func printLayers(w io.Writer, res *layers.Result, wall time.Duration) {
	a := res.Animator
	n := a.Classification().Counts()
	fmt.Fprintf(w, "layers     %d outfit vertices: %d tight, %d loose, %d floating (by their largest blend weight)\n",
		a.NumVerts(), n[layers.Tight], n[layers.Loose], n[layers.Floating])
	for _, c := range a.Capsules() {
		fmt.Fprintf(w, "capsule    %-12s radius %.0f → %.0f mm, %.0f mm long\n", c.Name, c.RA*1000, c.RB*1000, c.A.Dist(c.B)*1000)
	}
	if f := len(res.Frames); f > 1 {
		fmt.Fprintf(w, "animated   %d frames in %.3f s: %.0f frames/s after the first (one core); preparing %.0f ms, first frame (settling) %.0f ms, all %.3f s\n",
			f, res.Steps.Seconds(), float64(f-1)/res.Steps.Seconds(), res.Prepare.Seconds()*1000, res.Settle.Seconds()*1000, wall.Seconds())
	}
}

func compareRealtime(ctx context.Context, cmd *cobra.Command, s *scene.Scene, res *layers.Result, prefix string, frames []int) error {
	w := cmd.OutOrStdout()
	mf := simFlags{fabric: "denim", model: "mass-spring", integrator: "euler", thickness: 3, settle: 0.5}
	opt, err := mf.options(s.Clip.FPS)
	if err != nil {
		return err
	}
	ref, err := runSim(ctx, cmd, s, opt)
	if ref == nil {
		return err
	}
	if err != nil {
		fmt.Fprintln(w, "simulation stopped early:", err)
	}
	c, err := layers.Compare(s, res, ref)
	if err != nil {
		return err
	}
	printComparison(w, c)
	names, err := writePNGs(prefix+".sim", frames, func(f int) (image.Image, error) { return renderSim(s, ref, f) })
	for _, n := range names {
		fmt.Fprintln(w, "wrote", n)
	}
	return err
}

func printComparison(w io.Writer, c *layers.Comparison) {
	fmt.Fprintf(w, "\nlayers vs the full simulation, %d frames (distance per vertex, mm)\n", c.Frames)
	fmt.Fprintf(w, "  %-9s %6s %8s %8s %10s %9s\n", "layer", "verts", "mean", "max", "skinning", "inside")
	rows := []struct {
		n string
		s layers.LayerStats
	}{{"tight", c.Layers[layers.Tight]}, {"loose", c.Layers[layers.Loose]}, {"floating", c.Layers[layers.Floating]}, {"all", c.All}}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-9s %6d %8.1f %8.1f %10.1f %8.2f%%\n", r.n, r.s.Verts, r.s.Mean*1000, r.s.Max*1000, r.s.Skinned*1000, r.s.Inside*100)
	}
	fmt.Fprintf(w, "penetration (vertex-frames inside the skinned body)\n")
	ps := map[string]layers.Penetration{"layers": c.Layered, "simulation": c.Simulated, "skinning": c.Skinned}
	keys := make([]string, 0, len(ps))
	for k := range ps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := ps[k]
		fmt.Fprintf(w, "  %-10s %6.2f %% inside, %6.2f %% > 2 mm, mean depth %.1f mm, max %.1f mm\n", k, p.Inside*100, p.Deep*100, p.MeanDepth*1000, p.MaxDepth*1000)
	}
	fmt.Fprintf(w, "skin through the cloth (vertex-frames of the %d body vertices the cloth covers at rest that stand in front of the face behind them)\n", c.ShowLayered.Covered)
	shows := []struct {
		n string
		s layers.ShowThrough
	}{{"layers", c.ShowLayered}, {"simulation", c.ShowSimulated}, {"skinning", c.ShowSkinned}}
	for _, r := range shows {
		fmt.Fprintf(w, "  %-10s %7.3f %% > 2 mm (%d), %d at any depth, mean depth %.1f mm, max %.1f mm\n", r.n, r.s.Frac*100, r.s.Count, r.s.Any, r.s.MeanDepth*1000, r.s.MaxDepth*1000)
	}
	for _, p := range c.Parts {
		if p.Layered+p.Simulated == 0 {
			continue
		}
		fmt.Fprintf(w, "  %-14s %5d covered: layers %d, simulation %d, skinning %d (> 2 mm)\n", p.Joint, p.Covered, p.Layered, p.Simulated, p.Skinned)
	}
}
