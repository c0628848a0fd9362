package cloth

import (
	"math"
	"testing"
)

// A soft sheet pinned at two corners sags far beyond 10 % strain; with
// StrainLimit no edge ends a substep longer than the limit allows, and
// the pins do not move.
func TestStrainLimit(t *testing.T) {
	soft := &SpringParams{Stretch: 50, StretchDamping: 0.01, Bend: 1e-6}
	for _, tc := range []struct {
		name  string
		limit float64
		// wantMax bounds the max strain from above (limited) or below
		// (unlimited, to show the scene needs the limit).
		wantMax, wantMin float64
	}{
		{"unlimited", 0, math.Inf(1), 0.3},
		{"10%", 0.1, 0.1 * 1.002, 0},
		{"5%", 0.05, 0.05 * 1.002, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := SheetScene(Material{Model: MassSpring, Fabric: Denim(), Springs: soft}, 10, 10, Options{StrainLimit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			p0 := s.Cloth.X[0]
			worst := 0.0
			if err := s.Run(1, func(st StepStats) { worst = math.Max(worst, st.MaxStretch) }); err != nil {
				t.Fatal(err)
			}
			t.Logf("max strain %.4f", worst)
			if worst > tc.wantMax || worst < tc.wantMin {
				t.Errorf("max strain %.4f outside [%g, %g]", worst, tc.wantMin, tc.wantMax)
			}
			if s.Cloth.X[0] != p0 {
				t.Errorf("pinned vertex moved to %v", s.Cloth.X[0])
			}
			for i, x := range s.Cloth.X {
				if !x.IsFinite() || !s.Cloth.V[i].IsFinite() {
					t.Fatalf("vertex %d not finite", i)
				}
			}
		})
	}
}
