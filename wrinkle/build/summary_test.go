package build

import (
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/wrinkle"
)

// TestSummaryLists checks which of a run's samples Summary.add lists as
// not converged, stalled and overstretched.
func TestSummaryLists(t *testing.T) {
	res := func(k int, conv, stalled bool, strain float64) SampleResult {
		return SampleResult{
			Sample:  wrinkle.Sample{Index: k},
			Stats:   wrinkle.SampleStats{Converged: conv, MaxStrain: strain},
			Pose:    PoseReport{Valid: true},
			Stalled: stalled,
		}
	}
	for _, tc := range []struct {
		name                      string
		limit                     float64
		notConv, stalled, overStr []int
	}{
		{"mass-spring limit", 0.1, []int{1, 2, 3}, []int{2, 3}, []int{3}},
		// Weft/warp cloth holds edges to 25 %: 25.7 % is within a fifth.
		{"weft/warp limit", 0.25, []int{1, 2, 3}, []int{2, 3}, nil},
		{"no strain limit", 0, []int{1, 2, 3}, []int{2, 3}, nil},
	} {
		s := Summary{StrainLimit: tc.limit}
		s.add(res(0, true, false, 0.094))
		s.add(res(1, false, false, 0.094))
		s.add(res(2, false, true, 0.115))
		s.add(res(3, false, true, 0.257))
		if !slices.Equal(s.NotConverged, tc.notConv) || !slices.Equal(s.Stalled, tc.stalled) || !slices.Equal(s.Overstretched, tc.overStr) {
			t.Errorf("%s: not converged %v, stalled %v, overstretched %v; want %v, %v, %v",
				tc.name, s.NotConverged, s.Stalled, s.Overstretched, tc.notConv, tc.stalled, tc.overStr)
		}
		if s.WorstStrain != 0.257 || s.WorstStrainSample != 3 {
			t.Errorf("%s: worst strain %g at sample %d, want 0.257 at 3", tc.name, s.WorstStrain, s.WorstStrainSample)
		}
	}
}
