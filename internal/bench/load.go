package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
)

// LoadOptions configure LoadBench. Zero fields take the defaults given.
type LoadOptions struct {
	// Exe is the pleat executable whose `bench load-child` and
	// `bench load-hog` subcommands run the timed simulations and the
	// competing load, each in a process of its own.
	Exe string
	// Cases are procedural suit resolutions (garment vertices); nil means
	// 700 and 25000.
	Cases []int
	// Frames are the 30 fps walk frames timed per run after the settle;
	// 0 means 30 for cases up to 5000 vertices and 12 above.
	Frames int
	// Procs is the number of competing processes (busy loops) and of
	// simulations run at once; 0 means runtime.NumCPU().
	Procs int
	// Log receives progress lines (may be nil).
	Log io.Writer
}

// LoadRun is one timed run: the median wall time per frame of a case at a
// worker count, in a setting.
type LoadRun struct {
	Verts   int     `json:"verts"`
	Workers int     `json:"workers"`
	Setting string  `json:"setting"`
	MsFrame float64 `json:"ms_per_frame"`
}

// Settings of LoadRun.
const (
	SettingIdle = "idle"
	SettingHog  = "beside busy loops"
	SettingSims = "simulations at once"
)

// LoadReport is LoadBench's result.
type LoadReport struct {
	Cores int       `json:"cores"`
	Procs int       `json:"procs"`
	Runs  []LoadRun `json:"runs"`
}

// LoadBench times procedural suit walks idle and under load, each run in a
// child process: one and two workers alone, one and two workers beside
// Procs busy-loop processes, and Procs one-worker simulations at once (as
// a database build runs its shards), whose median is reported.
func LoadBench(ctx context.Context, opt LoadOptions) (*LoadReport, error) {
	if opt.Exe == "" {
		return nil, errors.New("bench: load: no executable")
	}
	if opt.Cases == nil {
		opt.Cases = []int{700, 25000}
	}
	if opt.Procs <= 0 {
		opt.Procs = runtime.NumCPU()
	}
	rep := &LoadReport{Cores: runtime.NumCPU(), Procs: opt.Procs}
	for _, verts := range opt.Cases {
		frames := opt.Frames
		if frames <= 0 {
			frames = 30
			if verts > 5000 {
				frames = 12
			}
		}
		add := func(workers int, setting string, ms float64) {
			rep.Runs = append(rep.Runs, LoadRun{Verts: verts, Workers: workers, Setting: setting, MsFrame: ms})
			if opt.Log != nil {
				fmt.Fprintf(opt.Log, "%6d vertices, %d worker(s), %-20s %9.2f ms/frame\n", verts, workers, setting, ms)
			}
		}
		for _, w := range []int{1, 2} {
			ms, err := childRuns(ctx, opt.Exe, verts, w, frames, 1)
			if err != nil {
				return nil, err
			}
			add(w, SettingIdle, ms)
		}
		for _, w := range []int{1, 2} {
			stop, err := startHogs(opt.Exe, opt.Procs)
			if err != nil {
				return nil, err
			}
			ms, err := childRuns(ctx, opt.Exe, verts, w, frames, 1)
			stop()
			if err != nil {
				return nil, err
			}
			add(w, SettingHog, ms)
		}
		ms, err := childRuns(ctx, opt.Exe, verts, 1, frames, opt.Procs)
		if err != nil {
			return nil, err
		}
		add(1, SettingSims, ms)
	}
	return rep, nil
}

// find returns the run of a case, worker count and setting.
func (r *LoadReport) find(verts, workers int, setting string) (float64, bool) {
	for _, run := range r.Runs {
		if run.Verts == verts && run.Workers == workers && run.Setting == setting {
			return run.MsFrame, true
		}
	}
	return 0, false
}

// WriteLoadTable prints the runs and the ratios the engine's goals name:
// two workers against one under load (at most 1), and Procs simulations at
// once against one alone (at most 1.2).
func WriteLoadTable(w io.Writer, r *LoadReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cores\t%d\tcompeting processes / simulations at once\t%d\n\n", r.Cores, r.Procs)
	fmt.Fprintln(tw, "verts\tworkers\tsetting\tms/frame (median)\t")
	for _, run := range r.Runs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.2f\t\n", run.Verts, run.Workers, run.Setting, run.MsFrame)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "verts\tload/idle (1 worker)\tload/idle (2 workers)\t2 workers/1 under load (goal ≤ 1)\tsims at once/alone (goal ≤ 1.2)\t")
	var verts []int
	for _, run := range r.Runs {
		if !slices.Contains(verts, run.Verts) {
			verts = append(verts, run.Verts)
		}
	}
	for _, v := range verts {
		i1, _ := r.find(v, 1, SettingIdle)
		i2, _ := r.find(v, 2, SettingIdle)
		h1, _ := r.find(v, 1, SettingHog)
		h2, _ := r.find(v, 2, SettingHog)
		s1, _ := r.find(v, 1, SettingSims)
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", v, h1/i1, h2/i2, h2/h1, s1/i1)
	}
	return tw.Flush()
}

// childRuns runs n child simulations at once and returns the median of
// their medians, ms per frame.
func childRuns(ctx context.Context, exe string, verts, workers, frames, n int) (float64, error) {
	res := make([]float64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, exe, "bench", "load-child", "--verts", strconv.Itoa(verts),
				"--workers", strconv.Itoa(workers), "--frames", strconv.Itoa(frames))
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				errs[k] = fmt.Errorf("bench: load: child %d: %w", k, err)
				return
			}
			var r ChildResult
			if err := json.Unmarshal(out, &r); err != nil {
				errs[k] = fmt.Errorf("bench: load: child %d output: %w", k, err)
				return
			}
			res[k] = r.MsFrame
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return median(res), nil
}

// startHogs starts n busy-loop processes and returns a function that ends
// them.
func startHogs(exe string, n int) (func(), error) {
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}
	for range n {
		c := exec.Command(exe, "bench", "load-hog")
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("bench: load: busy loop: %w", err)
		}
		cmds = append(cmds, c)
	}
	time.Sleep(200 * time.Millisecond) // let them get going
	return stop, nil
}

// ChildResult is what `bench load-child` prints.
type ChildResult struct {
	MsFrame float64 `json:"ms_per_frame"`
}

// TimeChild simulates the procedural suit at verts vertices walking for
// frames frames after the settle with the given workers and returns the
// median wall time per frame.
func TimeChild(ctx context.Context, verts, workers, frames int) (ChildResult, error) {
	if verts < 100 || verts > 200000 || workers < 1 || workers > 256 || frames < 1 || frames > 10000 {
		return ChildResult{}, fmt.Errorf("bench: load-child: verts %d, workers %d or frames %d out of range", verts, workers, frames)
	}
	s, err := scene.Load(scene.Spec{Resolution: verts, End: frames + 1})
	if err != nil {
		return ChildResult{}, err
	}
	res, err := sim.Run(ctx, s, sim.Options{Workers: workers}, nil)
	if err != nil {
		return ChildResult{}, err
	}
	var ms []float64
	for _, st := range res.Stats[1:] {
		ms = append(ms, float64(st.Wall)/1e6)
	}
	return ChildResult{MsFrame: median(ms)}, nil
}

// Hog spins until the process is killed (the competing load of LoadBench).
func Hog() {
	for {
	}
}
