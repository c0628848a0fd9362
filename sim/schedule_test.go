package sim

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestPacer feeds the pacer frame times in which one mode is faster, then
// the other: it uses the faster mode in all but its probes, probes less
// often while the faster mode stays faster, and follows a change.
func TestPacer(t *testing.T) {
	for _, tc := range []struct {
		name       string
		perSub     [2]float64 // s per substep: serial, parallel
		want       int
		maxOther   int    // frames of the other mode allowed in 200
		minOther   int    // probes at least
		firstModes [4]int // warm-up, then each mode timed
	}{
		{"parallel faster", [2]float64{2, 1}, modeParallel, 12, 3, [4]int{modeParallel, modeParallel, modeParallel, modeSerial}},
		{"serial faster", [2]float64{1, 1.3}, modeSerial, 12, 3, [4]int{modeParallel, modeParallel, modeParallel, modeSerial}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p pacer
			other := 0
			for f := range 200 {
				m := p.mode()
				if f < 4 && m != tc.firstModes[f] {
					t.Fatalf("frame %d in mode %d, want %d (warm-up, then each mode timed)", f, m, tc.firstModes[f])
				}
				if f >= 4 && m != tc.want {
					other++
				}
				perSub := tc.perSub[m]
				if f < paceWarmup {
					perSub *= 10 // first-use costs, not timed
				}
				p.record(m, perSub)
			}
			if other > tc.maxOther || other < tc.minOther {
				t.Errorf("%d of 196 frames in the slower mode, want %d to %d", other, tc.minOther, tc.maxOther)
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

// TestTeam runs many substeps of a few tiny pieces on teams of one to
// three helpers: every piece runs exactly once per substep, and none is
// still running when run returns (a helper that signalled a substep the
// caller did not wait for would let the next substep start early).
func TestTeam(t *testing.T) {
	for _, helpers := range []int{1, 2, 3} {
		tm := newTeam(helpers)
		var active, ran [4]atomic.Int32
		for it := range 20000 {
			n := 1 + it%4
			task := func(i int) {
				if active[i].Add(1) != 1 {
					t.Errorf("piece %d stepped twice at once", i)
				}
				for range it % 7 { // a little work, uneven
					runtime.Gosched()
				}
				ran[i].Add(1)
				active[i].Add(-1)
			}
			tm.run(n, task, nil, false)
			for i := range n {
				if a := active[i].Load(); a != 0 {
					t.Fatalf("helpers %d, substep %d: piece %d still running after run returned", helpers, it, i)
				}
				if r := ran[i].Swap(0); r != 1 {
					t.Fatalf("helpers %d, substep %d: piece %d ran %d times", helpers, it, i, r)
				}
			}
		}
		tm.stop()
	}
}

// TestPacerProbeReplaces checks that a probe replaces a mode's stale
// estimate: a first timed parallel frame made slow by a passing load does
// not keep the pacer serial once a probe finds parallel faster.
func TestPacerProbeReplaces(t *testing.T) {
	var p pacer
	var modes []int
	for f := range 40 {
		m := p.mode()
		modes = append(modes, m)
		perSub := [2]float64{2, 1}[m]
		if f == paceWarmup && m == modeParallel {
			perSub = 10 // a passing load
		}
		p.record(m, perSub)
	}
	serial := 0
	for _, m := range modes[10:] {
		if m == modeSerial {
			serial++
		}
	}
	if serial > 2 { // the probes
		t.Errorf("modes %v: %d of the last 30 frames serial", modes, serial)
	}
}
