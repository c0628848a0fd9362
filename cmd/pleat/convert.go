package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/meshio"
)

func newConvertCmd() *cobra.Command {
	var scale float64
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert a mesh between OBJ, PLY and glTF",
		Long: `convert reads IN and writes OUT, choosing both formats by extension:
.obj, .ply (written binary), .glb or .gltf. Quads and n-gons are
triangulated; UVs and groups are kept where the target format holds them.`,
		Example: `  pleat convert --scale 0.1 $PLEAT_ASSETS/makehuman/body/base.obj body.glb
  pleat convert body.glb body.ply`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f, err := meshio.FormatOf(args[1]); err != nil || f == meshio.PC2 {
				return fmt.Errorf("OUT %s: convert writes .obj, .ply, .glb or .gltf", args[1])
			}
			if err := checkWritable(args[1]); err != nil {
				return err
			}
			m, err := meshio.Load(args[0], meshio.Options{Scale: scale})
			if err != nil {
				return err
			}
			if err := m.Validate(); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			if err := meshio.Save(args[1], m); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d vertices, %d triangles\n", args[1], len(m.Verts), len(m.Tris))
			return nil
		},
	}
	cmd.Flags().Float64Var(&scale, "scale", 1, "multiply positions by this factor (0.1 converts decimetres to metres)")
	return cmd
}
