package collide

import (
	"runtime"
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
// goroutines. A loop that runs on the calling goroutine allocates nothing
// (a hook stepping a small garment calls it every substep): pass a method
// value made once, not a closure made per call.
func parallel(n, workers int, fn func(lo, hi int)) {
	nc := (n + chunk - 1) / chunk
	if n < parallelBelow || nc <= 1 || workerCount(workers) <= 1 {
		for c := range nc {
			fn(c*chunk, min((c+1)*chunk, n))
		}
		return
	}
	each(nc, workers, func(c int) { fn(c*chunk, min((c+1)*chunk, n)) })
}

// each calls fn(i) for every i in [0, n), on the calling goroutine and up
// to workers−1 more, which take the items in turn from a shared counter.
//
// The caller waits only for the goroutines that joined: a goroutine joins
// (joinLoop) only while the loop is open, and the caller closes it when it
// finds no item left. On a busy machine a goroutine that the OS has not run
// by then finds the loop closed and exits, instead of holding the caller
// until it is scheduled; the caller parks (on done) while the ones that
// joined finish their items.
func each(n, workers int, fn func(i int)) {
	w := min(workerCount(workers), n)
	if w <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var state atomic.Uint32
	done := make(chan struct{}, w-1) // one send per joined goroutine: never blocks
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(i)
		}
	}
	for range w - 1 {
		go func() {
			if joinLoop(&state) {
				work()
				done <- struct{}{}
			}
		}()
	}
	work()
	for range closeLoop(&state) {
		<-done
	}
}

// loopClosed is the flag of a loop state word (each) whose other bits
// count the goroutines that joined the loop.
const loopClosed = 1 << 31

// joinLoop counts one more goroutine into the loop of state s; it reports
// false if the loop is closed.
func joinLoop(s *atomic.Uint32) bool {
	for {
		v := s.Load()
		if v&loopClosed != 0 {
			return false
		}
		if s.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// closeLoop closes the loop of state s and returns how many goroutines
// joined it.
func closeLoop(s *atomic.Uint32) int {
	return int(s.Or(loopClosed) &^ loopClosed)
}
