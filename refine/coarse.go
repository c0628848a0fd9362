package refine

import "github.com/pleat-dev/pleat/sim"

// CoarseMaxDt (s) is the largest substep of the coarse simulation that Run
// refines: one substep per frame at 30 fps, twice sim's default of 1/60 s,
// with sim's extra substeps in frames where the garments move more than
// 10 cm (sim.Options.FastSubsteps). The coarse garment's edges are twice
// the refined ones', and its job is to place the folds and hold the
// patches' boundaries, not to resolve them; the refined patches keep
// Params.MaxDt (1/60 s, as the uniform reference).
//
// Against 1/60 s, on the MakeHuman suit (CMU walk 02_01 and kick 11_01,
// one run each): the coarse run's CPU time fell from about 3.0 to 2.5 s
// on the walk (4.5 to 4.0 s on the kick), vertex-frames more than 2 mm
// inside the body in the refined result were 0.020 % and 0.049 % (0.004 %
// and 0.037 %), the refined curvature inside the regions 1.014 and 1.042
// of the reference's (1.008 and 1.020), the largest refined strain 9.3 %
// and 9.9 % (9.4 % and 9.5 %); the coarse walk's folds are a little
// sharper, so the regions grew from 0.083 to 0.095 m² per frame. Without
// the extra substeps of fast frames the kick's refined result had 0.34 %
// of its vertex-frames deep inside.
const CoarseMaxDt = 1.0 / 30

// CoarseOptions returns the options of the coarse simulation to refine
// from those of the uniform reference, opt: substeps of CoarseMaxDt plus
// those of fast frames, unless opt sets MaxDt (then both runs use it).
func CoarseOptions(opt sim.Options) sim.Options {
	if opt.MaxDt == 0 {
		opt.MaxDt, opt.FastSubsteps = CoarseMaxDt, true
	}
	return opt
}
