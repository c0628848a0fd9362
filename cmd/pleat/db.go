package main

import (
	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/wrinkle/build"
)

func newDBCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Wrinkle databases (.pdb): inspect, render",
		Example: `  pleat db inspect out/suit.pdb
  pleat db render out/suit.pdb --character $PLEAT_ASSETS/makehuman`,
	}
	cmd.AddCommand(newDBRenderCmd())
	cmd.AddCommand(&cobra.Command{
		Use:   "inspect FILE",
		Short: "List a wrinkle database's joints, samples, sizes and build settings",
		Long: `inspect reads and verifies a wrinkle database (.pdb) or shard: checksums,
header and every sample. It prints the garment, rig and spec it was built
for, the joints with their sampling grids and the samples' worst strain,
penetration and settle frames, the file's sections and their sizes, and the
simulator settings recorded by the build. A truncated, corrupt or
unreadable file gives an error naming the part that is wrong.`,
		Example: `  pleat db inspect out/suit.pdb`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := build.Inspect(args[0])
			if err != nil {
				return err
			}
			return r.Write(cmd.OutOrStdout())
		},
	})
	return cmd
}
