package main

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/viewer"
)

type renderOpts struct {
	view          string
	width, height int
	heat          bool
}

func (o renderOpts) options(b geom.Box) (render.Options, error) {
	v := render.Front
	switch o.view {
	case "", "front":
	case "threequarter", "3/4":
		v = render.ThreeQuarter
	case "side":
		v = render.Side
	case "back":
		v = render.Back
	default:
		return render.Options{}, fmt.Errorf("--view %q: want front, threequarter, side or back", o.view)
	}
	return render.Options{Width: o.width, Height: o.height, View: v, Bounds: b}, nil
}

// renderScene renders frames of a scene's skinning baseline to
// PREFIX.fNNNN.png.
func renderScene(s *scene.Scene, frames []int, prefix string, ro renderOpts) ([]string, error) {
	opt, err := ro.options(geom.EmptyBox())
	if err != nil {
		return nil, err
	}
	return writePNGs(prefix, frames, func(f int) (image.Image, error) { return s.Render(f, opt) })
}

// writePNGs renders each of frames with draw and writes it as
// PREFIX.fNNNN.png; it returns the files written (those before an error
// too).
func writePNGs(prefix string, frames []int, draw func(f int) (image.Image, error)) ([]string, error) {
	var files []string
	for _, f := range frames {
		img, err := draw(f)
		if err != nil {
			return files, err
		}
		name := fmt.Sprintf("%s.f%04d.png", prefix, f)
		if err := savePNG(name, img); err != nil {
			return files, err
		}
		files = append(files, name)
	}
	return files, nil
}

func savePNG(name string, img image.Image) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := render.WritePNG(f, img); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	return f.Close()
}

func newRenderCmd() *cobra.Command {
	var ro renderOpts
	var meshPath, frames, out, size string
	var follow bool
	cmd := &cobra.Command{
		Use:   "render FILE",
		Short: "Render frames of any pleat output to PNG",
		Long: `render draws frames of a pleat output with a software rasteriser, so a
person can look without a viewer: glTF files (skinned, vertex-animated or
static), a PC2 point cache with its mesh, an OBJ/PLY mesh, or a folder of OBJ
frames. The camera frames the whole animation and stays still. --heat
colours the mean curvature (red convex, blue concave) to show wrinkles.`,
		Example: `  pleat render out/pose.glb --frames 0,100,300
  pleat render garment.pc2 --mesh garment.obj --frames all --out frames/
  pleat render body.obj --view threequarter --heat`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := fmt.Sscanf(size, "%dx%d", &ro.width, &ro.height); err != nil {
				return fmt.Errorf("--size %q: want WIDTHxHEIGHT", size)
			}
			a, err := viewer.Load(args[0], viewer.LoadOptions{Mesh: meshPath})
			if err != nil {
				return err
			}
			var list []int
			if frames == "all" {
				for f := 0; f < a.NumFrames; f++ {
					list = append(list, f)
				}
			} else if list, err = parseFrames(frames, a.NumFrames); err != nil {
				return err
			}
			// The camera: a box of the largest per-frame size over a sample of
			// frames (constant zoom); still (the union of all frames) or
			// following each frame's centre.
			box := geom.EmptyBox()
			var frameSize geom.Vec3
			for f := 0; f < a.NumFrames; f += a.NumFrames/16 + 1 {
				fr, err := a.Frame(f)
				if err != nil {
					return err
				}
				fb := geom.EmptyBox()
				for _, v := range fr {
					fb = fb.Union(geom.BoxOf(v))
				}
				box = box.Union(fb)
				frameSize = frameSize.Max(fb.Size())
			}
			opt, err := ro.options(box)
			if err != nil {
				return err
			}
			prefix := out
			if prefix == "" {
				prefix = strings.TrimSuffix(args[0], filepath.Ext(args[0]))
			} else if strings.HasSuffix(out, "/") {
				prefix = filepath.Join(out, strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0])))
			}
			bar := newBar(cmd.ErrOrStderr(), len(list), "rendering")
			for _, f := range list {
				fr, err := a.Frame(f)
				if err != nil {
					return err
				}
				if follow {
					fb := geom.EmptyBox()
					for _, v := range fr {
						fb = fb.Union(geom.BoxOf(v))
					}
					c, h := fb.Center(), frameSize.Scale(0.5)
					opt.Bounds = geom.Box{Min: geom.V(c.X-h.X, box.Min.Y, c.Z-h.Z), Max: geom.V(c.X+h.X, box.Max.Y, c.Z+h.Z)}
				}
				img, err := scene.RenderMeshes(a.Meshes, fr, ro.heat, opt)
				if err != nil {
					return err
				}
				name := fmt.Sprintf("%s.f%04d.png", prefix, f)
				if err := savePNG(name, img); err != nil {
					return err
				}
				bar.Add(1)
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", name)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&meshPath, "mesh", "", "the mesh of a PC2 point cache")
	cmd.Flags().BoolVar(&follow, "follow", true, "follow the figure (constant zoom); --follow=false keeps the camera still over the whole path")
	cmd.Flags().StringVar(&frames, "frames", "first,middle,last", `frames to render: "0,100,300", "first,middle,last" or "all"`)
	cmd.Flags().StringVarP(&out, "out", "o", "", "output prefix, or a folder ending in / (default: beside FILE)")
	cmd.Flags().StringVar(&ro.view, "view", "front", "camera: front, threequarter, side or back")
	cmd.Flags().StringVar(&size, "size", "800x800", "image size WIDTHxHEIGHT in pixels")
	cmd.Flags().BoolVar(&ro.heat, "heat", false, "colour by mean curvature")
	return cmd
}
