package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/flow"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/meshio/pc2"
)

func newDecompressCmd() *cobra.Command {
	var pc2Out, gltfOut, objDir, meshOut string
	cmd := &cobra.Command{
		Use:   "decompress FILE.pflow",
		Short: "Expand a .pflow wrinkle-flow file to a PC2 cache, OBJ frames or glTF",
		Long: `decompress reads a .pflow file (pleat compress) and writes the garment
animation it encodes: a PC2 point cache (with --mesh for its rest mesh), a
folder of OBJ frames, or a glTF with GPU skinning and morph targets.`,
		Example: `  pleat decompress garment.pflow --pc2 garment.pc2 --mesh garment.obj
  pleat decompress garment.pflow --obj-dir frames/
  pleat decompress garment.pflow --gltf garment.glb`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if pc2Out == "" && gltfOut == "" && objDir == "" && meshOut == "" {
				return fmt.Errorf("nothing to write: give --pc2, --mesh, --obj-dir or --gltf")
			}
			if err := checkWritable(pc2Out, gltfOut, meshOut, dirPath(objDir)); err != nil {
				return err
			}
			f, err := flow.ReadFile(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s: %s, %d vertices, %d frames at %g fps, k = %d\n", args[0], f.Name, len(f.Base), len(f.Poses), f.FPS, f.K)
			if meshOut != "" {
				if err := obj.WriteFile(meshOut, f.Mesh()); err != nil {
					return err
				}
				fmt.Fprintln(w, "wrote", meshOut)
			}
			if pc2Out != "" || objDir != "" {
				frames := f.Decompress()
				if pc2Out != "" {
					c := &pc2.Cache{NumPoints: len(f.Base), Start: 0, SampleRate: 1, Frames: frames}
					if err := pc2.WriteFile(pc2Out, c); err != nil {
						return err
					}
					fmt.Fprintln(w, "wrote", pc2Out)
				}
				if objDir != "" {
					if err := writeOBJFrames(objDir, f.Mesh(), frames); err != nil {
						return err
					}
					fmt.Fprintf(w, "wrote %d OBJ frames to %s\n", len(frames), objDir)
				}
			}
			if gltfOut != "" {
				gs, err := f.GLTF()
				if err != nil {
					return err
				}
				if err := gltfio.WriteFile(gltfOut, gs); err != nil {
					return err
				}
				fmt.Fprintln(w, "wrote", gltfOut)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&pc2Out, "pc2", "", "write the frames as a PC2 point cache")
	cmd.Flags().StringVar(&meshOut, "mesh", "", "write the garment rest mesh (OBJ) for the PC2 cache")
	cmd.Flags().StringVar(&objDir, "obj-dir", "", "write one OBJ per frame into this folder")
	cmd.Flags().StringVar(&gltfOut, "gltf", "", "write a glTF with skinning and morph targets")
	return cmd
}

// writeOBJFrames writes frame_NNNNN.obj files with m's topology and UVs.
func writeOBJFrames(dir string, m *mesh.Mesh, frames [][]geom.Vec3) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fm := *m
	for i, fr := range frames {
		fm.Verts = fr
		if err := obj.WriteFile(filepath.Join(dir, fmt.Sprintf("frame_%05d.obj", i)), &fm); err != nil {
			return err
		}
	}
	return nil
}
