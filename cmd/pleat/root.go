package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "pleat",
		Short: "Animate fitted garments on motion-captured characters, with wrinkles",
		Long: `pleat animates fitted garments (shirts, trousers) on motion-captured
characters with fine, believable wrinkles, and reads and writes the formats
the 3D world uses: OBJ, PLY, PC2 point caches and glTF 2.0.

Real assets: most commands accept MakeHuman, BVH and glTF files by path; the
environment variable PLEAT_ASSETS names the folder of the shared test assets.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newInspectCmd(), newConvertCmd(), newPoseCmd(), newRenderCmd(), newCompressCmd(), newDecompressCmd(), newServeCmd(), newSimulateCmd(), newDemoCmd(), newBenchCmd())
	return root
}

// newBar returns a progress bar on stderr for n steps. It draws only when
// stderr is a terminal, so logs and CI output stay clean.
func newBar(w io.Writer, n int, desc string) *progressbar.ProgressBar {
	visible := false
	if f, ok := w.(*os.File); ok {
		visible = term.IsTerminal(int(f.Fd()))
	}
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetVisibility(visible),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}
