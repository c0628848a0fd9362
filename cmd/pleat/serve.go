package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/viewer"
)

func newServeCmd() *cobra.Command {
	var host, meshPath string
	var port int
	var fps float64
	var open bool
	cmd := &cobra.Command{
		Use:   "serve [LABEL=]PATH...",
		Short: "Play pleat outputs in a web viewer, up to four side by side",
		Long: `serve starts pleat's web viewer (an embedded WebGL2 page, no network
access needed) on the loopback interface and plays the given results in sync:
glTF animations, PC2 caches (with their mesh), folders of OBJ frames
(whose topology may change from frame to frame, as pleat refine writes),
.usda/.usdz files of time-sampled meshes, or static meshes. Controls:
play/pause, scrub, speed, orbit camera (drag; right- or shift-drag pans;
wheel zooms), a mean-curvature heat map (h), the body shown or hidden
(b), and a difference view (d): every garment whose topology matches a
garment in another panel is coloured by the per-vertex distance to it at
the same time (where topologies change, only at the frames where they
match), with the mean and largest distance printed. A garment has
the same colour in every panel (by mesh name). Each result shows its
vertex count and curvature sum per frame.

Only the given files are served. Stop with Ctrl-C.`,
		Example: `  pleat serve out/pose.glb
  pleat serve reference=out/walk.usdz synth=out/synth.usdz
  pleat serve coarse=refine/coarse.glb refined=refine/refined reference=refine/reference.glb
  pleat serve skinning=out/pose.glb simulated=sim/garment.pc2 --mesh sim/garment.obj --open`,
		Args: cobra.RangeArgs(1, viewer.MaxItems),
		RunE: func(cmd *cobra.Command, args []string) error {
			ip := net.ParseIP(host)
			if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: serving on %s makes the viewer reachable from other machines\n", host)
			}
			s, err := viewer.NewServer(args, viewer.Options{Load: viewer.LoadOptions{Mesh: meshPath, FPS: fps}})
			if err != nil {
				return err
			}
			url, err := s.Listen(net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "viewer at %s (Ctrl-C to stop)\n", url)
			if open {
				if err := viewer.OpenBrowser(url); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "could not open a browser:", err)
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			return s.Serve(ctx)
		},
	}
	cmd.Flags().StringVar(&host, "host", "127.0.0.1", "interface to bind (loopback by default)")
	cmd.Flags().IntVar(&port, "port", 7270, "port (0 picks a free one)")
	cmd.Flags().StringVar(&meshPath, "mesh", "", "mesh of a PC2 cache (default: a mesh file beside it with the same name)")
	cmd.Flags().Float64Var(&fps, "fps", 0, "frame rate of PC2 caches and OBJ folders (default 30)")
	cmd.Flags().BoolVar(&open, "open", false, "open the viewer in the default browser")
	return cmd
}
