package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pleat-dev/pleat/skel"
)

// SettleOptions say how Simulator.SettleTo moves into a pose and when the
// garments are at rest. Zero fields take the defaults given.
type SettleOptions struct {
	// Transition is the time (s) over which the body moves from its
	// current pose to the target (smoothstep in time, joints slerped);
	// 0 means 0.5 s.
	Transition float64
	// MaxTime is the longest simulated time (s), transition included;
	// 0 means 4 s.
	MaxTime float64
	// KineticEnergy is the rest threshold of the garments' kinetic energy
	// per kilogram, J/kg (half their mean square speed); 0 means 1e-4
	// (an r.m.s. speed of 1.4 cm/s).
	KineticEnergy float64
	// MaxSpeed is the rest threshold of the fastest garment vertex, m/s;
	// 0 means 0.1.
	MaxSpeed float64
	// Hold is the number of consecutive frames after the transition that
	// must meet both thresholds; 0 means 3.
	Hold int
}

// SettleResult says how a settle ended.
type SettleResult struct {
	// Converged is true when the garments came to rest before MaxTime.
	Converged bool
	// Time is the simulated time, s, and Frames the frames stepped.
	Time   float64
	Frames int
	// KineticEnergy (J/kg) and MaxSpeed (m/s) are those of the last frame.
	KineticEnergy, MaxSpeed float64
	// Stats are the last frame's statistics, with the stepping counts
	// (CG iterations, substeps, ...) summed over the settle and Wall its
	// whole time.
	Stats FrameStats
}

func (o *SettleOptions) defaults() error {
	if o.Transition == 0 {
		o.Transition = 0.5
	}
	if o.MaxTime == 0 {
		o.MaxTime = 4
	}
	if o.KineticEnergy == 0 {
		o.KineticEnergy = 1e-4
	}
	if o.MaxSpeed == 0 {
		o.MaxSpeed = 0.1
	}
	if o.Hold == 0 {
		o.Hold = 3
	}
	switch {
	case !(o.Transition >= 0 && o.Transition <= 60):
		return fmt.Errorf("sim: settle transition %g s out of range [0, 60]", o.Transition)
	case !(o.MaxTime > 0 && o.MaxTime <= 600):
		return fmt.Errorf("sim: settle time limit %g s out of range (0, 600]", o.MaxTime)
	case !(o.KineticEnergy > 0) || math.IsInf(o.KineticEnergy, 0):
		return fmt.Errorf("sim: settle kinetic energy threshold %g J/kg must be positive", o.KineticEnergy)
	case !(o.MaxSpeed > 0) || math.IsInf(o.MaxSpeed, 0):
		return fmt.Errorf("sim: settle speed threshold %g m/s must be positive", o.MaxSpeed)
	case o.Hold < 0:
		return fmt.Errorf("sim: settle hold %d frames is negative", o.Hold)
	}
	return nil
}

// SettleTo moves the body from its current pose (the rest pose after New)
// into pose over opt.Transition and holds it until the garments are at
// rest (their kinetic energy per kilogram and their fastest vertex below
// the thresholds for opt.Hold frames) or opt.MaxTime has passed, and
// fills out (may be nil) with the final positions and statistics. A settle
// that does not converge is not an error: the result says so. When ctx
// ends, SettleTo returns its error after the current frame.
func (s *Simulator) SettleTo(ctx context.Context, pose skel.Pose, opt SettleOptions, out *Frame) (SettleResult, error) {
	var res SettleResult
	if err := opt.defaults(); err != nil {
		return res, err
	}
	if err := s.checkPose(pose); err != nil {
		return res, err
	}
	start := time.Now()
	s.bind()
	from := skel.Pose{Root: s.pose.Root, Rot: slices.Clone(s.pose.Rot)}
	move := int(math.Ceil(opt.Transition/s.dt - 1e-9))
	limit := max(move+1, int(math.Ceil(opt.MaxTime/s.dt-1e-9)))
	mass := s.totalMass()
	var cur skel.Pose
	st := &res.Stats
	calm := 0
	for k := 1; k <= limit; k++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		a := 1.0
		if k < move {
			a = float64(k) / float64(move)
			a = a * a * (3 - 2*a)
		}
		skel.InterpPose(&cur, from, pose, a)
		if a == 1 {
			copyPose(&cur, pose)
		}
		s.skin = skel.SkinMatrices(s.sk, cur, s.skin)
		t0 := s.cloths[0].Time
		if err := s.advance(cur, s.skin, t0, t0+s.dt, s.dt, 0, st); err != nil {
			return res, err
		}
		res.Frames = k
		ke, vmax := s.motion()
		res.KineticEnergy, res.MaxSpeed = ke/mass, vmax
		if k < move || res.KineticEnergy > opt.KineticEnergy || vmax > opt.MaxSpeed {
			calm = 0
			continue
		}
		if calm++; calm >= opt.Hold {
			res.Converged = true
			break
		}
	}
	res.Time = float64(res.Frames) * s.dt
	s.moves.reset(s.skin)
	s.frame++
	st.Frame = s.frame
	st.Wall = time.Since(start)
	err := s.measure(s.skin, st, out)
	return res, err
}

// totalMass returns the garments' mass, kg.
func (s *Simulator) totalMass() float64 {
	m := 0.0
	for _, c := range s.cloths {
		for _, w := range c.Mass {
			m += w
		}
	}
	return m
}

// motion returns the garments' kinetic energy (J) and their fastest
// vertex's speed (m/s).
func (s *Simulator) motion() (ke, vmax float64) {
	v2 := 0.0
	for _, c := range s.cloths {
		ke += c.KineticEnergy()
		for _, v := range c.V {
			v2 = max(v2, v.Len2())
		}
	}
	return ke, math.Sqrt(v2)
}
