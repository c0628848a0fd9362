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
        rate, attachment targets and collision proxy, with Blender's steps
        per frame searched until its quality reaches pleat's.`,
		Example: `  pleat bench sim --frames 60
  pleat bench sim --no-blender --cases coarse
  pleat bench synth --verts 46000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newBenchSimCmd(), newBenchLoadCmd(), newBenchChildCmd(), newBenchHogCmd(), newBenchSynthCmd())
	return cmd
}

func newBenchLoadCmd() *cobra.Command {
	var opt bench.LoadOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Time simulation idle, beside busy processes and beside other simulations",
		Long: `load times the procedural suit walking, each run in a process of its own:
with one and two workers alone, with one and two workers beside --procs
busy-loop processes, and --procs one-worker simulations at once (as a
wrinkle database build runs its shards). It prints the median ms per frame
and the ratios the engine aims at: two workers never slower than one under
load, and N simulations at once on N cores each at most 1.2 times slower
than one alone.`,
		Example: `  pleat bench load
  pleat bench load --verts 700 --frames 60
  pleat bench load --procs 16 --json > load.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			opt.Exe, opt.Log = exe, cmd.ErrOrStderr()
			rep, err := bench.LoadBench(ctx, opt)
			if err != nil {
				return err
			}
			if asJSON {
				return benchWriteJSON(cmd.OutOrStdout(), rep)
			}
			return bench.WriteLoadTable(cmd.OutOrStdout(), rep)
		},
	}
	fl := cmd.Flags()
	fl.IntSliceVar(&opt.Cases, "verts", nil, "procedural suit resolutions (default 700,25000)")
	fl.IntVar(&opt.Frames, "frames", 0, "walk frames timed per run (default 30, 12 above 5000 vertices)")
	fl.IntVar(&opt.Procs, "procs", 0, "busy processes and simulations at once (default: the number of CPUs)")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// newBenchChildCmd is the timed run of bench load, in its own process.
func newBenchChildCmd() *cobra.Command {
	var verts, workers, frames int
	cmd := &cobra.Command{
		Use:    "load-child",
		Short:  "one timed run of bench load (prints JSON)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := bench.TimeChild(cmd.Context(), verts, workers, frames)
			if err != nil {
				return err
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(r)
		},
	}
	cmd.Flags().IntVar(&verts, "verts", 700, "procedural suit resolution")
	cmd.Flags().IntVar(&workers, "workers", 1, "workers")
	cmd.Flags().IntVar(&frames, "frames", 30, "frames timed")
	return cmd
}

// newBenchHogCmd is the competing load of bench load: a busy loop.
func newBenchHogCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "load-hog",
		Short:  "a busy loop until killed (the competing load of bench load)",
		Hidden: true,
		Args:   cobra.NoArgs,
		Run:    func(cmd *cobra.Command, args []string) { bench.Hog() },
	}
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
that settled frame 0 (brought up to the clip's initial velocity over 8
untimed frames) with the same rest shape, collides with pleat's own
collision proxy (the body simplified and moved out to enclose it, skinned
per frame), pins the attached loops (waistband, collar) to the targets pleat
computed for them each frame, keeps a collision distance equal to pleat's
3 mm thickness, runs with self-collision off, and has mass and stiffness
converted from the same fabric (see bench/README.md). Blender runs headless
(blender -b) with the script bench/blender_cloth.py, embedded in this
binary.

Blender runs first at its default 5 steps per frame (--blender-quality).
Then its steps per frame are searched (doubling, then bisecting, up to
--max-quality) for the fewest at which its max edge strain and its
penetrations deeper than 2 mm are at most pleat's; each try is one more
Blender run. The search is skipped with --no-search.

Reported per side: median (min–max) ms per frame over frames 1.., frames/s,
the largest edge strain against the rest lengths, and the vertex-frames more
than 2 mm inside the full body; the speed ratio of this run at Blender's
default and at matched quality (or, when Blender never reaches pleat's
quality, at the most steps tried), also net of Blender's frame-update
overhead (shape keys and collision BVH, timed with the cloth disabled). A
missing blender or a failing side is reported and the other side still
runs.`,
		Example: `  pleat bench sim                                   # both cases, 60 frames, with Blender if installed
  pleat bench sim --frames 20 --no-blender
  pleat bench sim --assets /data/pleat-assets --blender /opt/blender/blender --json > bench.json
  pleat bench sim --cases coarse --coarse-verts 700
  pleat bench sim --cases coarse --frames 20            # the quickest comparison with Blender's quality search
  pleat bench sim --cases coarse --blender-quality 2 --no-search
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
	fl.IntVar(&opt.BlenderQuality, "blender-quality", bench.BlenderDefaultQuality, "Blender cloth steps per frame of its first run, reported as Blender's default")
	fl.IntVar(&opt.MaxQuality, "max-quality", 20, "most Blender steps per frame the quality search tries")
	fl.BoolVar(&opt.NoSearch, "no-search", false, "run Blender at --blender-quality only, without searching the steps that match pleat's quality")
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
