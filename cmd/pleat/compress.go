package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/flow"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
	"github.com/pleat-dev/pleat/meshio/pc2"
	"github.com/pleat-dev/pleat/report"
	"github.com/pleat-dev/pleat/skel"
)

func newCompressCmd() *cobra.Command {
	var sf sceneFlags
	var animPath, meshPath, maxErr, binding, out, gltfOut, reportOut, ks string
	var k int
	var withBody bool
	cmd := &cobra.Command{
		Use:   "compress",
		Short: "Compress a garment animation into skinning + a PCA wrinkle basis (kim2013)",
		Long: `compress splits a garment animation (a PC2 point cache, e.g. from
pleat simulate) into the skinning part borrowed from the character's body and a
low-rank wrinkle residual (wrinkle flow, Kim et al. 2013): k morph targets
and their per-frame weights. The .pflow file is self-contained (skeleton,
poses, garment, quantised basis and coefficients, versioned and
checksummed). --gltf writes a standard glTF whose garment is a skinned mesh
with k morph targets and animated weights: any engine plays it with GPU
skinning, no pleat code. --report writes an HTML report comparing wrinkle
flow with skinning alone and with plain PCA of positions, against k.

The character and motion flags are those of pleat pose and must describe the
animation's clip (same frames). The garment rest mesh is --mesh (vertex
order of the cache) or, when omitted, the scene's garments merged.`,
		Example: `  pleat compress --character $PLEAT_ASSETS/makehuman --garment male_casualsuit02 \
      --motion $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh --fps 30 \
      --anim sim/garment.pc2 --mesh sim/garment.obj --max-error 2mm \
      --out garment.pflow --gltf garment.glb --report report.html
  pleat compress --anim sim/garment.pc2 --mesh sim/garment.obj --k 32 --out g.pflow`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if animPath == "" {
				return fmt.Errorf("--anim is required (a PC2 point cache of the garment)")
			}
			if out == "" && gltfOut == "" && reportOut == "" {
				return fmt.Errorf("nothing to write: give --out, --gltf or --report")
			}
			if err := checkWritable(out, gltfOut, reportOut); err != nil {
				return err
			}
			s, err := sf.load()
			if err != nil {
				return err
			}
			cache, err := pc2.ReadFile(animPath)
			if err != nil {
				return err
			}
			in := flow.Animation{Name: strings.TrimSuffix(filepath.Base(animPath), filepath.Ext(animPath)), Frames: cache.Frames}
			var gw skel.Weights
			if meshPath != "" {
				if in.Rest, err = meshio.Load(meshPath, meshio.Options{}); err != nil {
					return err
				}
			} else {
				in.Rest, gw = s.MergedGarments()
			}
			if len(in.Rest.Verts) != cache.NumPoints {
				return fmt.Errorf("%s: %d points per frame, but the garment rest mesh has %d vertices (give the simulated mesh with --mesh)", animPath, cache.NumPoints, len(in.Rest.Verts))
			}
			if len(cache.Frames) != len(s.Clip.Poses) {
				return fmt.Errorf("%s: %d frames, but the motion has %d after resampling and trimming (check --fps, --start, --end)", animPath, len(cache.Frames), len(s.Clip.Poses))
			}
			rig := flow.NewRig(s.Character, s.Clip, gw)
			opt := flow.Options{K: k}
			if opt.Binding, err = flow.ParseBinding(binding); err != nil {
				return err
			}
			if maxErr != "" {
				if opt.MaxError, err = flow.ParseLength(maxErr); err != nil {
					return fmt.Errorf("--max-error: %w", err)
				}
			}
			start := time.Now()
			f, err := flow.Compress(in, rig, opt)
			if err != nil {
				return err
			}
			raw := int64(12 * cache.NumPoints * len(cache.Frames))
			fmt.Fprintf(w, "compressed %d vertices x %d frames in %.1f s: k = %d, %.1f KiB (%.1fx smaller than raw float32)\n",
				cache.NumPoints, len(cache.Frames), time.Since(start).Seconds(), f.K, float64(f.Size())/1024, float64(raw)/float64(f.Size()))
			st := flow.Compare(f.Decompress(), cache.Frames)
			fmt.Fprintf(w, "error: RMS %.3f mm, max %.3f mm\n", st.RMS*1000, st.Max*1000)
			if out != "" {
				if err := f.WriteFile(out); err != nil {
					return err
				}
				fmt.Fprintln(w, "wrote", out)
			}
			if gltfOut != "" {
				var extra []gltfio.Mesh
				if withBody {
					extra = append(extra, gltfio.Mesh{Name: "body", Mesh: s.OutputBody(), Skin: anim.Skin(s.Character.Weights)})
				}
				gs, err := f.GLTF(extra...)
				if err != nil {
					return err
				}
				if err := gltfio.WriteFile(gltfOut, gs); err != nil {
					return err
				}
				fmt.Fprintln(w, "wrote", gltfOut)
			}
			if reportOut != "" {
				klist, err := parseInts(ks)
				if err != nil {
					return fmt.Errorf("--ks: %w", err)
				}
				rep, err := flow.Evaluate(in, rig, klist, opt)
				if err != nil {
					return err
				}
				if err := writeFlowReport(reportOut, rep); err != nil {
					return err
				}
				fmt.Fprintln(w, "wrote", reportOut)
			}
			return nil
		},
	}
	sf.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&animPath, "anim", "", "the garment animation: a PC2 point cache")
	fl.StringVar(&meshPath, "mesh", "", "the garment rest mesh in the cache's vertex order (default: the scene's garments)")
	fl.IntVar(&k, "k", 0, "number of PCA components (morph targets); 0 chooses the fewest meeting --max-error")
	fl.StringVar(&maxErr, "max-error", "", "RMS error target, e.g. 2mm (default 2mm when --k is 0)")
	fl.StringVar(&binding, "binding", "nearest", "garment skin weights: nearest (body vertex, as kim2013), barycentric (nearest body triangle) or given")
	fl.StringVarP(&out, "out", "o", "", "output .pflow file")
	fl.StringVar(&gltfOut, "gltf", "", "also write a glTF (.glb/.gltf): skinned garment with k morph targets")
	fl.BoolVar(&withBody, "with-body", true, "include the skinned body in the glTF")
	fl.StringVar(&reportOut, "report", "", "write an HTML report (error and size against k, vs skinning and plain PCA)")
	fl.StringVar(&ks, "ks", "1,2,4,8,16,32,64", "component counts for the report")
	return cmd
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive count", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// writeFlowReport writes the compression report as self-contained HTML.
func writeFlowReport(path string, r *flow.Report) error {
	rep := report.New("Wrinkle flow: " + r.Name)
	rep.Metrics("Animation", []report.KV{
		{Key: "vertices", Value: strconv.Itoa(r.Verts)},
		{Key: "frames", Value: strconv.Itoa(r.Frames)},
		{Key: "rank", Value: strconv.Itoa(r.Rank)},
		{Key: "raw float32", Value: fmt.Sprintf("%.1f MiB", float64(r.RawBytes)/(1<<20))},
		{Key: "zstd of raw", Value: fmt.Sprintf("%.1f MiB", float64(r.ZstdBytes)/(1<<20))},
		{Key: "skinning only RMS", Value: fmt.Sprintf("%.2f mm", r.Skinning.RMS*1000)},
	})
	if r.Chosen.K >= 0 {
		rep.Paragraph(fmt.Sprintf("The smallest wrinkle flow meeting %.2g mm RMS has k = %d: %.3f mm RMS (max %.2f mm), %.0f KiB, %.1f× smaller than raw float32 and %.1f× smaller than zstd of raw.",
			r.Target*1000, r.Chosen.K, r.Chosen.Flow.RMS*1000, r.Chosen.Flow.Max*1000, float64(r.Chosen.FlowBytes)/1024, r.Chosen.Ratio, r.Chosen.RatioZstd))
	}
	rep.Heading("Error and size against k")
	t := report.Table{Caption: "Errors in mm over all vertices and frames; sizes in KiB.",
		Header: []string{"k", "flow RMS", "flow max", "plain PCA RMS", "plain PCA max", ".pflow KiB", "× raw", "× zstd", ".glb KiB"}}
	var xs, yf, yp, ysk []float64
	for _, row := range r.Rows {
		t.Rows = append(t.Rows, []string{strconv.Itoa(row.K),
			report.Num(row.Flow.RMS*1000, 3), report.Num(row.Flow.Max*1000, 3),
			report.Num(row.PCA.RMS*1000, 3), report.Num(row.PCA.Max*1000, 3),
			report.Num(float64(row.FlowBytes)/1024, 4), report.Num(row.Ratio, 3), report.Num(row.RatioZstd, 3),
			report.Num(float64(row.GLBBytes)/1024, 4)})
		xs = append(xs, float64(row.K))
		yf = append(yf, row.Flow.RMS*1000)
		yp = append(yp, row.PCA.RMS*1000)
		ysk = append(ysk, r.Skinning.RMS*1000)
	}
	if err := rep.Table(t); err != nil {
		return err
	}
	if len(xs) > 0 {
		if err := rep.Plot(report.Plot{Title: "RMS error against k", XLabel: "k (components)", YLabel: "RMS error (mm)", LogY: true,
			Series: []report.Series{{Name: "wrinkle flow", X: xs, Y: positive(yf), Points: true}, {Name: "plain PCA", X: xs, Y: positive(yp), Points: true}, {Name: "skinning only", X: xs, Y: positive(ysk)}}}); err != nil {
			return err
		}
	}
	bt := report.Table{Caption: "Skinning alone (kim2013 Fig. 1b) by binding.", Header: []string{"binding", "RMS mm", "max mm"}}
	for _, b := range r.Bindings {
		bt.Rows = append(bt.Rows, []string{b.Binding.String(), report.Num(b.Skinning.RMS*1000, 3), report.Num(b.Skinning.Max*1000, 3)})
	}
	if err := rep.Table(bt); err != nil {
		return err
	}
	for _, n := range r.Notes {
		rep.Paragraph(n)
	}
	return rep.WriteFile(path)
}

// positive clamps values for a log axis.
func positive(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		if v < 1e-6 {
			v = 1e-6
		}
		out[i] = v
	}
	return out
}
