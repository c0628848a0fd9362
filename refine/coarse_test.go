package refine

import (
	"testing"

	"github.com/pleat-dev/pleat/sim"
)

// TestCoarseOptions: the coarse run steps CoarseMaxDt with the fast
// frames' substeps, unless the options set a substep (kept as it is), and
// the other options pass through.
func TestCoarseOptions(t *testing.T) {
	got := CoarseOptions(sim.Options{Thickness: 0.004, Settle: 0.2})
	if got.MaxDt != CoarseMaxDt || !got.FastSubsteps || got.Thickness != 0.004 || got.Settle != 0.2 {
		t.Errorf("CoarseOptions of the defaults: %+v", got)
	}
	set := sim.Options{MaxDt: 1.0 / 120}
	if got := CoarseOptions(set); got.MaxDt != set.MaxDt || got.FastSubsteps {
		t.Errorf("CoarseOptions with MaxDt 1/120 s: MaxDt %g, FastSubsteps %v", got.MaxDt, got.FastSubsteps)
	}
}
