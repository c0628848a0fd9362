package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/refine"
	"github.com/pleat-dev/pleat/sim"
)

// errCoarseStopped is what the refinement reads when the coarse run ends
// before the clip does; the coarse run's own error is reported instead.
var errCoarseStopped = errors.New("the coarse simulation stopped")

// coarseBesideRefine runs the coarse simulation and the refinement at
// the same time: sim.Stream hands each coarse frame to refine.Run, which
// refines a block as soon as the frames its regions need are simulated
// (Params.Every + Params.Lead frames ahead). Neither keeps every core
// busy alone (a small coarse garment's solver loops leave a core idle), so
// each fills the other's idle time; the frames are those of the coarse
// run followed by the refinement (refine.Input.Next). It sets r.coarse,
// r.res and the time of the two together.
func (r *refineRun) coarseBesideRefine(ctx context.Context, cmd *cobra.Command, copt, opt sim.Options, p refine.Params) error {
	s := r.s
	n := len(s.Clip.Poses)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inputs := make(chan refine.Input, 1)
	frames := make(chan [][]geom.Vec3, n) // never full: the coarse run never waits
	done := make(chan struct{})
	var coarse *sim.Result
	var coarseErr error
	t, c := time.Now(), cpuNow()
	go func() {
		defer close(done)
		defer close(frames)
		coarse, coarseErr = sim.Stream(ctx, s, copt, func(f int, res *sim.Result) error {
			if f == 0 {
				in, err := refineInput(s, res, opt, false)
				if err != nil {
					return err
				}
				inputs <- in
			}
			x := make([][]geom.Vec3, len(res.Frames))
			for i := range x {
				x[i] = res.Frames[i][f]
			}
			frames <- x
			return nil
		})
		if coarseErr == nil && coarse.Interrupted {
			coarseErr = errors.New("coarse simulation interrupted")
		}
		r.tCoarse = time.Since(t)
	}()
	var in refine.Input
	select {
	case in = <-inputs:
	case <-done:
		if coarseErr == nil {
			coarseErr = errCoarseStopped
		}
		return coarseErr
	}
	in.Frames = n
	in.Next = func() ([][]geom.Vec3, error) {
		x, ok := <-frames
		if !ok {
			return nil, errCoarseStopped
		}
		return x, nil
	}
	bar := newBar(cmd.ErrOrStderr(), n, "simulating coarse and refining")
	res, err := refine.Run(ctx, in, p, func(done, total int) { bar.Set(done) })
	bar.Finish()
	if err != nil {
		cancel()
	}
	<-done
	// A refinement that failed on its own stopped the coarse run (cancel):
	// its error is the one to report. One that ran out of frames failed
	// because the coarse run did.
	if err != nil && !errors.Is(err, errCoarseStopped) {
		return err
	}
	if coarseErr != nil {
		return fmt.Errorf("coarse simulation: %w", coarseErr)
	}
	if err != nil {
		return err
	}
	r.coarse, r.res = coarse, res
	r.tBoth, r.cBoth = time.Since(t), cpuNow()-c
	return nil
}
