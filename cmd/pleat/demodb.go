package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/build"
	"github.com/pleat-dev/pleat/wrinkle/online"
)

// demoDBFlags say which wrinkle database the demo uses and where it is
// cached.
type demoDBFlags struct {
	spec      string
	cacheDir  string
	rebuild   bool
	settle    float64 // s, builddb's --settle-time
	transient float64 // s, builddb's --transition
	jobs      int
}

func (f *demoDBFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.spec, "spec", "small", `sampling spec of the wrinkle database: "small" (embedded, 53 samples), "default" (embedded, 469 samples) or a JSON file`)
	fl.StringVar(&f.cacheDir, "cache-dir", "", "folder of the cached wrinkle databases (default: the user's cache directory/pleat/demo)")
	fl.BoolVar(&f.rebuild, "rebuild-db", false, "build the wrinkle database again even when a cached one of the same inputs exists")
	fl.Float64Var(&f.settle, "settle-time", 4, "longest simulated seconds per database sample (builddb --settle-time)")
	fl.Float64Var(&f.transient, "transition", 0.5, "seconds over which the body moves into each database sample's pose (builddb --transition)")
	fl.IntVar(&f.jobs, "jobs", 0, "database samples simulated at once (0: one per CPU)")
}

// dir returns the folder the demo's databases are cached in.
func (f *demoDBFlags) dir() (string, error) {
	if f.cacheDir != "" {
		return f.cacheDir, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (%v): give --cache-dir", err)
	}
	return filepath.Join(d, "pleat", "demo"), nil
}

// demoDBKey names a database by what its samples depend on: the garment,
// rig, spec, simulator and settle settings, quantum and format version
// (the build header holds them as hashes or values) and the simulator's
// code, through simFingerprint. A change to any of them gives another
// name, so a stale database is not used.
func demoDBKey(h wrinkle.Header, simPrint string) (string, error) {
	data, err := json.Marshal(struct {
		Header  wrinkle.Header `json:"header"`
		Version int            `json:"version"`
		Sim     string         `json:"sim"`
	}{h, wrinkle.Version, simPrint})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8]), nil
}

// simFingerprint hashes the garment after the first frames of the
// build's simulation of the spec's last sample. The simulator is
// deterministic, so a change to its code that changes the samples it
// settles changes this hash too (and one that keeps its results does
// not). It costs one simulator setup and three frames.
func simFingerprint(ctx context.Context, s *scene.Scene, opt build.Options, b *build.Builder) (string, error) {
	so := opt.Sim
	so.Workers = 1
	simr, err := sim.New(s.Character, s.Garments, so)
	if err != nil {
		return "", err
	}
	defer simr.Close()
	pose, err := b.Build().SamplePose(b.Build().Header().Samples - 1)
	if err != nil {
		return "", err
	}
	var fr sim.Frame
	if _, err := simr.SettleTo(ctx, pose, sim.SettleOptions{Transition: 0.1, MaxTime: 0.1}, &fr); err != nil {
		return "", err
	}
	h := sha256.New()
	var buf [8]byte
	for _, x := range fr.X {
		for _, v := range x {
			for _, c := range [3]float64{v.X, v.Y, v.Z} {
				binary.LittleEndian.PutUint64(buf[:], math.Float64bits(c))
				h.Write(buf[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// demoDatabase returns the wrinkle database of s's character and
// garments under the flags' spec and simulator settings, and its path:
// the cached file when one of the same inputs is there, else a new build
// (with progress on stderr) written to the cache. A build interrupted by
// Ctrl-C continues on the next run (its journal is kept beside it).
func demoDatabase(ctx context.Context, cmd *cobra.Command, s *scene.Scene, mf *simFlags, f *demoDBFlags) (*wrinkle.DB, string, error) {
	w := cmd.OutOrStdout()
	opt, err := builderOptions(mf, &builddbFlags{shard: "0/1", jobs: f.jobs, transition: f.transient,
		maxTime: f.settle, poseTol: build.DefaultPoseTolerance * 1000})
	if err != nil {
		return nil, "", err
	}
	spec, err := loadSpec(f.spec)
	if err != nil {
		return nil, "", err
	}
	dir, err := f.dir()
	if err != nil {
		return nil, "", err
	}
	prog := newBuildProgress(cmd)
	opt.Progress = prog.update
	b, err := build.New(s.Character, s.Garments, spec, opt)
	if err != nil {
		return nil, "", err
	}
	h := b.Build().Header()
	fp, err := simFingerprint(ctx, s, opt, b)
	if err != nil {
		return nil, "", fmt.Errorf("demo: simulator fingerprint: %w", err)
	}
	key, err := demoDBKey(h, fp)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%dv-%s.pdb", sanitizeName(h.Garment.Name), h.Garment.Verts, key))
	journal := build.JournalPath(path)
	if f.rebuild {
		for _, p := range []string{path, journal} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, "", fmt.Errorf("--rebuild-db: %w", err)
			}
		}
	} else if db, err := readDemoDB(path, s); err == nil {
		fmt.Fprintf(w, "database   %s (cached: %d samples; --rebuild-db builds it again)\n", path, len(db.Samples))
		return db, path, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(w, "database   %s is unusable (%v): building it again\n", path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("--cache-dir: %w", err)
	}
	fmt.Fprintf(w, "database   building %d samples of %s (%d vertices), %d at a time; cached in %s for later runs\n",
		h.Samples, h.Garment.Name, b.NumVerts(), buildJobs(opt.Jobs), path)
	sum, err := b.BuildFile(ctx, path, journal)
	prog.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, "", fmt.Errorf("interrupted: the finished database samples are kept in %s; run the demo again to continue", journal)
		}
		return nil, "", err
	}
	fmt.Fprintf(w, "database   built in %.1f s\n", sum.Wall.Seconds())
	db, err := readDemoDB(path, s)
	if err != nil {
		return nil, "", err
	}
	return db, path, nil
}

// buildProgress shows a database build's progress: a bar on a terminal,
// else a line per tenth of the samples.
type buildProgress struct {
	w     io.Writer
	bar   interface{ Finish() error }
	set   func(done, total int, eta time.Duration)
	lines bool
	next  int
}

func newBuildProgress(cmd *cobra.Command) *buildProgress {
	errw := cmd.ErrOrStderr()
	bar := newBar(errw, 1, "database")
	p := &buildProgress{w: errw, bar: bar, lines: !isTerminal(errw)}
	p.set = func(done, total int, eta time.Duration) {
		bar.ChangeMax(total)
		bar.Describe(fmt.Sprintf("database (ETA %s)", eta.Round(time.Second)))
		_ = bar.Set(done)
	}
	return p
}

func (p *buildProgress) update(pr build.Progress) {
	p.set(pr.Done, pr.Total, pr.ETA)
	if p.lines && (pr.Done >= p.next || pr.Done == pr.Total) {
		fmt.Fprintf(p.w, "database   %d/%d samples, ETA %s\n", pr.Done, pr.Total, pr.ETA.Round(time.Second))
		p.next = pr.Done + max(1, pr.Total/10)
	}
}

func (p *buildProgress) finish() { _ = p.bar.Finish() }

// readDemoDB reads a cached database and checks it is of s's garments.
func readDemoDB(path string, s *scene.Scene) (*wrinkle.DB, error) {
	db, err := wrinkle.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := online.CheckGarments(db, s.Character, s.Garments); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

func buildJobs(jobs int) int {
	if jobs > 0 {
		return jobs
	}
	return runtime.GOMAXPROCS(0)
}

// sanitizeName keeps the letters, digits, '-' and '_' of a garment name
// for a file name ('+' between pieces becomes '_').
func sanitizeName(s string) string {
	out := []rune{}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			out = append(out, r)
		default:
			out = append(out, '_')
		}
		if len(out) >= 40 {
			break
		}
	}
	return string(out)
}
