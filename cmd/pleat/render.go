package main

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/pc2"
	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/scene"
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
	var files []string
	for _, f := range frames {
		img, err := s.Render(f, opt)
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

// animation is a sequence of frames of one or more meshes.
type animation struct {
	meshes []*mesh.Mesh
	frames int
	at     func(f int) ([][]geom.Vec3, error)
}

// loadAnimation opens any pleat output: a glTF (skinned, vertex-animated or
// static), a PC2 cache with its mesh, a static OBJ/PLY, or a folder of OBJ
// frames.
func loadAnimation(path, meshPath string) (*animation, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		files, err := filepath.Glob(filepath.Join(path, "*.obj"))
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("%s: no .obj frames in the folder", path)
		}
		sort.Strings(files)
		first, err := meshio.Load(files[0], meshio.Options{})
		if err != nil {
			return nil, err
		}
		return &animation{meshes: []*mesh.Mesh{first}, frames: len(files), at: func(f int) ([][]geom.Vec3, error) {
			m, err := meshio.Load(files[f], meshio.Options{})
			if err != nil {
				return nil, err
			}
			if len(m.Verts) != len(first.Verts) {
				return nil, fmt.Errorf("%s: %d vertices, but %s has %d", files[f], len(m.Verts), files[0], len(first.Verts))
			}
			return [][]geom.Vec3{m.Verts}, nil
		}}, nil
	}
	format, err := meshio.FormatOf(path)
	if err != nil {
		return nil, err
	}
	switch format {
	case meshio.GLB, meshio.GLTF:
		gs, err := gltfio.ReadFile(path)
		if err != nil {
			return nil, err
		}
		pl, err := scene.NewPlayer(gs, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		a := &animation{frames: pl.NumFrames(), at: pl.Frame}
		for _, m := range gs.Meshes {
			a.meshes = append(a.meshes, m.Mesh)
		}
		return a, nil
	case meshio.PC2:
		if meshPath == "" {
			return nil, fmt.Errorf("%s: a PC2 cache needs its mesh (--mesh FILE)", path)
		}
		m, err := meshio.Load(meshPath, meshio.Options{})
		if err != nil {
			return nil, err
		}
		c, err := pc2.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if c.NumPoints != len(m.Verts) {
			return nil, fmt.Errorf("%s: %d points, but %s has %d vertices", path, c.NumPoints, meshPath, len(m.Verts))
		}
		return &animation{meshes: []*mesh.Mesh{m}, frames: len(c.Frames), at: func(f int) ([][]geom.Vec3, error) {
			return [][]geom.Vec3{c.Frames[f]}, nil
		}}, nil
	default:
		m, err := meshio.Load(path, meshio.Options{})
		if err != nil {
			return nil, err
		}
		return &animation{meshes: []*mesh.Mesh{m}, frames: 1, at: func(int) ([][]geom.Vec3, error) {
			return [][]geom.Vec3{m.Verts}, nil
		}}, nil
	}
}

func newRenderCmd() *cobra.Command {
	var ro renderOpts
	var meshPath, frames, out, size string
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
			a, err := loadAnimation(args[0], meshPath)
			if err != nil {
				return err
			}
			var list []int
			if frames == "all" {
				for f := 0; f < a.frames; f++ {
					list = append(list, f)
				}
			} else if list, err = parseFrames(frames, a.frames); err != nil {
				return err
			}
			// A still camera: bounds over a sample of frames.
			box := geom.EmptyBox()
			for f := 0; f < a.frames; f += a.frames/16 + 1 {
				fr, err := a.at(f)
				if err != nil {
					return err
				}
				for _, v := range fr {
					box = box.Union(geom.BoxOf(v))
				}
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
				fr, err := a.at(f)
				if err != nil {
					return err
				}
				img, err := scene.RenderMeshes(a.meshes, fr, ro.heat, opt)
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
	cmd.Flags().StringVar(&frames, "frames", "first,middle,last", `frames to render: "0,100,300", "first,middle,last" or "all"`)
	cmd.Flags().StringVarP(&out, "out", "o", "", "output prefix, or a folder ending in / (default: beside FILE)")
	cmd.Flags().StringVar(&ro.view, "view", "front", "camera: front, threequarter, side or back")
	cmd.Flags().StringVar(&size, "size", "800x800", "image size WIDTHxHEIGHT in pixels")
	cmd.Flags().BoolVar(&ro.heat, "heat", false, "colour by mean curvature")
	return cmd
}
