package build

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/wrinkle"
)

// Run simulates the shard's samples that the journal does not hold yet,
// up to Options.Jobs at once, and adds each to the journal as it finishes
// (the journal keeps them across an interruption; its file order does not
// matter, the database is written in index order). Before simulating, it
// checks every pending sample's pose and refuses to start, with an
// *InvalidPoseError listing them, when a moving limb passes through the
// body (unless Options.KeepInvalid, or Options.SkipInvalid, which records
// them as missing without simulating them).
//
// A sample whose simulation fails or explodes stops the run with a
// *SampleError naming it, after the samples in flight finish; a sample
// that does not come to rest is recorded (as missing with
// Options.SkipUnsettled) and listed in the summary. When
// ctx ends, Run stops after the samples in flight and returns ctx's error;
// the summary holds what was done.
func (b *Builder) Run(ctx context.Context, j *wrinkle.Journal) (Summary, error) {
	start := time.Now()
	sum := Summary{StrainLimit: b.prep.StrainLimit()}
	if j.Build() != b.build {
		return sum, errors.New("build: the journal is for another build")
	}
	pending := j.Pending()
	total := len(b.build.ShardSamples())
	sum.Resumed = total - len(pending)
	reports := make(map[int]PoseReport, len(pending))
	var invalid []PoseReport
	for _, k := range pending {
		r, err := b.checkSample(k)
		if err != nil {
			return sum, err
		}
		reports[k] = r
		if !r.Valid {
			invalid = append(invalid, r)
		}
	}
	if len(invalid) > 0 && !b.opt.KeepInvalid && !b.opt.SkipInvalid {
		return sum, &InvalidPoseError{Reports: invalid}
	}
	jobs := b.opt.Jobs
	if jobs == 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, len(pending))

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		res SampleResult
		err error
	}
	work := make(chan int)
	results := make(chan done)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				res, err := b.runSample(ctx, j, k, reports[k])
				results <- done{res, err}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, k := range pending {
			select {
			case work <- k:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	var sampleErr error // the first failure other than the cancellation
	n := sum.Resumed
	for d := range results {
		if d.err != nil {
			if sampleErr == nil && ctx.Err() == nil {
				sampleErr = d.err
			}
			cancel()
			continue
		}
		d.res.Pose = reports[d.res.Sample.Index]
		sum.add(d.res)
		n++
		if b.opt.Progress != nil {
			el := time.Since(start)
			ran := n - sum.Resumed
			eta := time.Duration(float64(el) / float64(ran) * float64(total-n))
			b.opt.Progress(Progress{Done: n, Total: total, Elapsed: el, ETA: eta, Last: d.res})
		}
	}
	sort.Slice(sum.Samples, func(a, c int) bool { return sum.Samples[a].Sample.Index < sum.Samples[c].Sample.Index })
	sort.Ints(sum.NotConverged)
	sort.Ints(sum.Stalled)
	sort.Ints(sum.Overstretched)
	sort.Ints(sum.Invalid)
	sort.Ints(sum.Missing)
	sum.Wall = time.Since(start)
	if sampleErr != nil {
		return sum, sampleErr
	}
	return sum, parent.Err()
}

// runSample simulates sample k, or skips it, and records it in the
// journal.
func (b *Builder) runSample(ctx context.Context, j *wrinkle.Journal, k int, pose PoseReport) (SampleResult, error) {
	if !pose.Valid && b.opt.SkipInvalid {
		res := SampleResult{Sample: pose.Sample, Pose: pose, Missing: "pose: " + pose.String()}
		if err := j.AddMissing(k, res.Missing, res.Stats); err != nil {
			return res, &SampleError{res.Sample, err}
		}
		return res, nil
	}
	out, res, err := b.simulate(ctx, k)
	if err != nil {
		return res, err
	}
	if !res.Stats.Converged && b.opt.SkipUnsettled {
		res.Missing = fmt.Sprintf("not at rest after %d frames (residual %.3g)", res.Stats.Steps, res.Stats.Residual)
		err = j.AddMissing(k, res.Missing, res.Stats)
	} else {
		err = j.AddCoarse(k, out.pos, out.coarse, res.Stats)
	}
	if err != nil {
		return res, &SampleError{res.Sample, err}
	}
	return res, nil
}

// add records one finished sample in the summary.
func (s *Summary) add(r SampleResult) {
	k := r.Sample.Index
	if len(s.Samples) == 0 || r.Stats.MaxStrain > s.WorstStrain {
		s.WorstStrain, s.WorstStrainSample = r.Stats.MaxStrain, k
	}
	if len(s.Samples) == 0 || r.Stats.MaxPenetration > s.WorstPenetration {
		s.WorstPenetration, s.WorstPenetrationSample = r.Stats.MaxPenetration, k
	}
	s.Samples = append(s.Samples, r)
	if !r.Stats.Converged {
		s.NotConverged = append(s.NotConverged, k)
	}
	if r.Stalled {
		s.Stalled = append(s.Stalled, k)
	}
	if s.StrainLimit > 0 && r.Stats.MaxStrain > OverstretchFactor*s.StrainLimit {
		s.Overstretched = append(s.Overstretched, k)
	}
	if !r.Pose.Valid {
		s.Invalid = append(s.Invalid, k)
	}
	if r.Missing != "" {
		s.Missing = append(s.Missing, k)
	}
}

// Timing sums this run's per-sample wall times over the n samples it
// simulated (not those skipped as invalid): simulator setup
// (sim.Prepared.New) and settling, their CPU time (0 where it is not
// measured), and the mean frames per settle.
func (s *Summary) Timing() (n int, setup, settle, cpu time.Duration, frames float64) {
	for _, r := range s.Samples {
		if r.Stats.Steps == 0 {
			continue
		}
		n++
		setup += r.Setup
		settle += r.Settle
		cpu += r.CPU
		frames += float64(r.Stats.Steps)
	}
	if n > 0 {
		frames /= float64(n)
	}
	return n, setup, settle, cpu, frames
}

// Settle simulates one sample of the build outside a journal and returns
// its settled positions in the database's vertex order (for inspection
// and tests).
func (b *Builder) Settle(ctx context.Context, k int) ([]geom.Vec3, SampleResult, error) {
	if k < 0 || k >= b.build.Spec().NumSamples() {
		return nil, SampleResult{}, fmt.Errorf("build: sample %d out of range [0, %d)", k, b.build.Spec().NumSamples())
	}
	out, res, err := b.simulate(ctx, k)
	if err == nil {
		res.Pose, err = b.checkSample(k)
	}
	return out.pos, res, err
}
