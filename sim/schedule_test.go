package sim

import "testing"

// TestPacer feeds the pacer frame times in which one mode is faster, then
// the other: it uses the faster mode in all but its probes, probes less
// often while the faster mode stays faster, and follows a change.
func TestPacer(t *testing.T) {
	for _, tc := range []struct {
		name       string
		perSub     [2]float64 // s per substep: serial, parallel
		want       int
		maxOther   int // frames of the other mode allowed in 200
		minOther   int // probes at least
		firstModes [2]int
	}{
		{"parallel faster", [2]float64{2, 1}, modeParallel, 12, 3, [2]int{modeParallel, modeSerial}},
		{"serial faster", [2]float64{1, 1.3}, modeSerial, 12, 3, [2]int{modeParallel, modeSerial}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p pacer
			other := 0
			for f := range 200 {
				m := p.mode()
				if f < 2 && m != tc.firstModes[f] {
					t.Fatalf("frame %d in mode %d, want %d (each mode timed first)", f, m, tc.firstModes[f])
				}
				if f >= 2 && m != tc.want {
					other++
				}
				p.record(m, tc.perSub[m])
			}
			if other > tc.maxOther || other < tc.minOther {
				t.Errorf("%d of 198 frames in the slower mode, want %d to %d", other, tc.minOther, tc.maxOther)
			}
			// The load changes: the other mode becomes faster.
			swapped := [2]float64{tc.perSub[1], tc.perSub[0]}
			var last []int
			for range 200 {
				m := p.mode()
				last = append(last, m)
				p.record(m, swapped[m])
			}
			old := 0
			for _, m := range last[len(last)-100:] {
				if m == tc.want {
					old++
				}
			}
			if old > 6 {
				t.Errorf("%d of the last 100 frames in mode %d after the load changed", old, tc.want)
			}
		})
	}
}
