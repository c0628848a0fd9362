package workpool

import (
	"fmt"
	"runtime"
	"testing"
)

// TestRun: every index of every loop is visited exactly once, whether the
// helpers join a loop or arrive after it closed (GOMAXPROCS 1 schedules
// them late), and loops of many lengths follow each other.
func TestRun(t *testing.T) {
	for _, procs := range []int{1, runtime.GOMAXPROCS(0)} {
		prev := runtime.GOMAXPROCS(procs)
		for _, workers := range []int{1, 2, 3, 5} {
			p := New(workers)
			p.SerialBelow = 100
			for k, n := range []int{100, 300, 101, 1000, 1, 0, 700} {
				for rep := 0; rep < 20; rep++ {
					hits := make([]int32, n)
					p.Run(n, 7, func(lo, hi int) {
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
			if s := p.state.Load(); p.wake != nil && s&closed == 0 {
				t.Errorf("loop left open: state %#x", s)
			}
			p.Stop()
			if !p.Stopped() {
				t.Error("not stopped")
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

// ExamplePool sums squares over fixed chunks: the partial sums are added
// in chunk order, so the total is the same for any number of workers.
func ExamplePool() {
	p := New(2)
	defer p.Stop()
	const n, chunk = 10000, 1000
	part := make([]float64, (n+chunk-1)/chunk)
	p.Run(n, chunk, func(lo, hi int) {
		s := 0.0
		for i := lo; i < hi; i++ {
			s += float64(i) * float64(i)
		}
		part[lo/chunk] = s
	})
	total := 0.0
	for _, s := range part {
		total += s
	}
	fmt.Println(total)
	// Output: 3.33283335e+11
}
