package cloth

import (
	"runtime"
	"testing"
)

// TestPoolRun: every index of every loop is visited exactly once, whether the
// helpers join a loop or arrive after it closed (GOMAXPROCS 1 schedules
// them late), and loops of many lengths follow each other.
func TestPoolRun(t *testing.T) {
	for _, procs := range []int{1, runtime.GOMAXPROCS(0)} {
		prev := runtime.GOMAXPROCS(procs)
		for _, workers := range []int{2, 3, 5} {
			p := newPool(workers)
			for k, n := range []int{serialBelow, 3 * serialBelow, serialBelow + 1, 10 * serialBelow, 1, 7 * serialBelow} {
				for rep := 0; rep < 20; rep++ {
					hits := make([]int32, n)
					p.run(n, 1000, func(lo, hi int) {
						for i := lo; i < hi; i++ {
							hits[i]++
						}
					})
					for i, h := range hits {
						if h != 1 {
							t.Fatalf("GOMAXPROCS %d, %d workers, loop %d (n %d): index %d ran %d times", procs, workers, k, n, i, h)
						}
					}
				}
			}
			p.Stop()
		}
		runtime.GOMAXPROCS(prev)
	}
}
