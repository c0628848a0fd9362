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
// Against 1/60 s, on the MakeHuman suit (CMU walk 02_01, 6 interleaved
// runs of each at load 4-10): CPU time of coarse run and refinement over
// that of the uniform reference, median 0.337 against 0.367 (the coarse
// run's share 0.200 against 0.248; the refinement's 0.122 against 0.119,
// as the coarse walk's folds come out a little sharper and the regions
// grow from 0.083 to 0.095 m² per frame). Refined vertex-frames more than
// 2 mm inside the body 0.020 % (0.004 %), curvature inside the regions
// 1.014 of the reference's (1.008), largest strain 9.3 % (9.4 %); on the
// kick (11_01) 0.049 %, 1.042 and 9.9 %. Without the extra substeps of
// fast frames the kick's refined result had 0.34 % of its vertex-frames
// deep inside (0.15 % with them for motions over 15 cm per substep).
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
