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
// The extra substeps of fast frames are what keeps a fixed 1/30 s from
// letting fast limbs (a kick) carry the coarse cloth into the body, which
// the refined patches then inherit at their held boundaries.
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
