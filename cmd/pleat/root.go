package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// version may be set at build time with -ldflags "-X main.version=...";
// otherwise --version shows the module version from the build info (see
// moduleVersion).
var version = ""

// moduleVersion returns what --version prints: the -ldflags version when
// set; else the main module's version recorded in the build info, which is
// the release for `go install github.com/pleat-dev/pleat/cmd/pleat@v1.2.3`
// and, since Go 1.24, a pseudo-version naming the commit (with +dirty for
// uncommitted changes) for `go build` or `go install` in a git checkout;
// else the VCS revision; else "devel".
func moduleVersion(ldflags string, bi *debug.BuildInfo, ok bool) string {
	if ldflags != "" {
		return ldflags
	}
	if !ok || bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "+dirty"
	}
	return "devel " + rev
}

func newRootCmd() *rootCmd {
	bi, biOK := debug.ReadBuildInfo()
	root := &cobra.Command{
		Use:   "pleat",
		Short: "Animate fitted garments on motion-captured characters, with wrinkles",
		Long: `pleat animates fitted garments (shirts, trousers) on motion-captured
characters with fine, believable wrinkles, and reads and writes the formats
the 3D world uses: OBJ, PLY, PC2 point caches and glTF 2.0.

Real assets: most commands accept MakeHuman, BVH and glTF files by path; the
environment variable PLEAT_ASSETS names the folder of the shared test assets.`,
		Version:       moduleVersion(version, bi, biOK),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	r := &rootCmd{Command: root}
	// --cpuprofile writes a pprof CPU profile of any command: for finding
	// where time goes, and for regenerating default.pgo (see README).
	root.PersistentFlags().StringVar(&r.profile, "cpuprofile", "", "write a CPU profile (pprof format) of the command to this file")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return r.startProfile() }
	// One subcommand per line, so that work on different commands does not
	// touch the same line.
	root.AddCommand(
		newInspectCmd(),
		newConvertCmd(),
		newPoseCmd(),
		newRenderCmd(),
		newCompressCmd(),
		newDecompressCmd(),
		newServeCmd(),
		newSimulateCmd(),
		newDemoCmd(),
		newBenchCmd(),
		newBuilddbCmd(),
		newDBCmd(),
		newSynthCmd(),
		newEvalCmd(),
		newRefineCmd(),
		newResynthCmd(),
		newRealtimeCmd(),
	)
	return r
}

// rootCmd is the pleat command; its Execute also ends the --cpuprofile
// profile, whether the command succeeded or not.
type rootCmd struct {
	*cobra.Command
	profile  string
	profFile *os.File
}

func (r *rootCmd) startProfile() error {
	if r.profile == "" {
		return nil
	}
	f, err := os.Create(r.profile)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile %s: %w", r.profile, err)
	}
	r.profFile = f
	return nil
}

// Execute runs the command and writes out the CPU profile if one was asked
// for.
func (r *rootCmd) Execute() error {
	err := r.Command.Execute()
	if r.profFile != nil {
		pprof.StopCPUProfile()
		if cerr := r.profFile.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--cpuprofile %s: %w", r.profile, cerr)
		}
		r.profFile = nil
	}
	return err
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
