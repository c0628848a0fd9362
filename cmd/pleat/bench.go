package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/internal/bench"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run end-to-end benchmarks (pleat bench sim)",
		Long: `bench runs pleat's end-to-end benchmarks and prints medians and ratios
measured in one run (the machines are small and noisy: numbers are reported,
never asserted).

Benchmarks:
  sim   garment simulation: ms per 30 fps frame for a ~25k-vertex garment on
        the walking MakeHuman character and frames/s for a ~700-vertex coarse
        garment, side by side with Blender's cloth on the same mesh, frame
        rate, pinned vertices and collision body.`,
		Example: `  pleat bench sim --frames 60
  pleat bench sim --no-blender --cases coarse`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newBenchSimCmd())
	return cmd
}

func newBenchSimCmd() *cobra.Command {
	var opt bench.SimOptions
	var cases string
	var asJSON, quiet bool
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Time garment simulation against Blender's cloth",
		Long: `sim times pleat's garment simulation (package sim) and Blender's cloth
modifier on the same scenes and scores both with the same code:

  walk    the MakeHuman character walking (CMU 02_01, 30 fps) in
          male_casualsuit02, refined to at least --verts vertices (long
          triangles split until the count is reached, within a few per cent);
  coarse  the procedural mannequin walking in its procedural shirt and
          trousers at --coarse-verts (about 700) vertices, not subdivided.

pleat settles the garment into the first pose (frame 0); Blender starts from
that settled frame 0 with the same rest shape, the same pinned top loops
(waistband, collar) following their skinned positions, the same skinned body
per frame as a collision object, a collision distance equal to pleat's 3 mm
thickness, self-collision off, as many steps per frame as pleat's substeps
(2, or --substeps), and mass and stiffness converted from the same fabric (see
bench/README.md). Blender runs headless (blender -b) with the script
bench/blender_cloth.py, embedded in this binary.

Reported per side: median (min–max) ms per frame over frames 1.., frames/s,
the largest edge strain against the rest lengths, and the vertex-frames more
than 2 mm inside the body; and the speed ratio of this run, also net of
Blender's frame-update overhead (shape keys and collision BVH, timed with the
cloth disabled). A missing blender or a failing side is reported and the
other side still runs.`,
		Example: `  pleat bench sim                                   # both cases, 60 frames, with Blender if installed
  pleat bench sim --frames 20 --no-blender
  pleat bench sim --assets /data/pleat-assets --blender /opt/blender/blender --json > bench.json
  pleat bench sim --cases coarse --coarse-verts 700
  pleat bench sim --cases coarse --substeps 1           # one substep per frame: faster, coarser contacts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			if cases != "" {
				opt.Cases = strings.Split(cases, ",")
				for i := range opt.Cases {
					opt.Cases[i] = strings.TrimSpace(opt.Cases[i])
				}
			}
			if !quiet {
				opt.Log = cmd.ErrOrStderr()
			}
			if !opt.NoBlender {
				if _, err := bench.FindBlender(opt.Blender); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning:", err, "- running pleat only")
				}
			}
			rep, err := bench.SimBench(ctx, opt)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return benchWriteJSON(w, rep)
			}
			return bench.WriteTable(w, rep)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opt.Frames, "frames", 60, "30 fps frames simulated, frame 0 (the settled first pose, not timed) included")
	fl.StringVar(&opt.Assets, "assets", os.Getenv("PLEAT_ASSETS"), "shared assets folder with makehuman/ and mocap/ (default $PLEAT_ASSETS)")
	fl.StringVar(&opt.Blender, "blender", "", "blender executable (default: blender on the PATH)")
	fl.BoolVar(&opt.NoBlender, "no-blender", false, "run pleat only")
	fl.IntVar(&opt.Verts, "verts", 25000, "garment vertices asked of the walk case (adaptive refinement)")
	fl.IntVar(&opt.CoarseVerts, "coarse-verts", 700, "resolution of the coarse procedural garments")
	fl.StringVar(&cases, "cases", "", "comma-separated cases: walk, coarse (default both)")
	fl.StringVar(&opt.Fabric, "fabric", "denim", "fabric preset of every garment")
	fl.IntVar(&opt.BlenderQuality, "blender-quality", 0, "Blender cloth steps per frame (0: pleat's substeps)")
	fl.IntVar(&opt.Substeps, "substeps", 0, "pleat's cloth substeps per frame (0: one per 1/60 s); fewer is faster and less accurate")
	fl.StringVar(&opt.WorkDir, "keep", "", "keep the files exchanged with Blender in this folder")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fl.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

func benchWriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
