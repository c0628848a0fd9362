package collide

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// chunk is the fixed chunk length of parallel loops: the split depends only
// on the loop length, never on the number of workers, and every chunk writes
// only its own entries, so results are identical to a serial run.
const chunk = 512

// parallelBelow is the loop length under which loops run on the calling
// goroutine (starting goroutines costs more than a short loop).
const parallelBelow = 2048

// workerCount returns w, or runtime.GOMAXPROCS(0) when w ≤ 0.
func workerCount(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// parallel calls fn(lo, hi) for every chunk of [0, n) on up to workers
// goroutines.
func parallel(n, workers int, fn func(lo, hi int)) {
	nc := (n + chunk - 1) / chunk
	if n < parallelBelow {
		workers = 1
	}
	each(nc, workers, func(c int) { fn(c*chunk, min((c+1)*chunk, n)) })
}

// each calls fn(i) for every i in [0, n), on up to workers goroutines that
// take the items in turn (on the calling goroutine for one worker).
func each(n, workers int, fn func(i int)) {
	w := min(workerCount(workers), n)
	if w <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
