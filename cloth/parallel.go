package cloth

import "sync/atomic"

// pool runs loops over [0,n) split into fixed-size chunks. The split depends
// only on n and the chunk size, never on the number of workers, and every
// reduction combines per-chunk partials in chunk order, so results are
// bit-identical whatever GOMAXPROCS or Options.Workers is, and whichever
// goroutine runs a chunk.
//
// The pool keeps Workers−1 helper goroutines parked on channels between
// loops (started at the first parallel loop, stopped by a cleanup when the
// Cloth is collected), and loop bodies are method values stored once at
// construction, so a loop allocates nothing. A pool is used by one goroutine
// at a time.
//
// The caller of run takes chunks itself and waits only for the helpers that
// joined the loop. A woken helper joins by a compare-and-swap on state,
// which succeeds only while the loop is open; the caller closes the loop
// when it finds no chunk left and then parks until every joined helper has
// reported. A helper the OS has not scheduled by then (the machine is busy)
// finds the loop closed when it runs and goes back to sleep, instead of
// holding the caller for a timeslice.
type pool struct {
	workers int
	partial []float64 // per-chunk partial sums, reused

	wake  []chan struct{} // one per helper, buffered (1)
	done  chan struct{}   // one send per joined helper, buffered (workers−1)
	state atomic.Uint64   // generation<<32 | closed | joined

	fn      func(lo, hi int) // loop body of the running loop; nil when idle
	n       int
	chunk   int
	nc      int
	next    atomic.Int64
	stopped bool
	single  bool // run every loop on the calling goroutine (SetSingleThreaded)
}

// Bits of pool.state: the loop's generation in the high 32 bits, the
// closed flag, and the number of helpers that joined in the low bits.
const (
	loopGenShift        = 32
	loopClosed   uint64 = 1 << 31
	loopJoined   uint64 = loopClosed - 1
)

// serialBelow is the loop length under which pool runs chunks on the calling
// goroutine: waking a helper costs a few microseconds, more than a short loop
// over a few thousand vertices.
const serialBelow = 4096

// chunkSize is the fixed chunk length of parallel loops.
const chunkSize = 1024

func nChunks(n, chunk int) int { return (n + chunk - 1) / chunk }

func newPool(workers int) *pool { return &pool{workers: workers} }

// start launches the helpers.
func (p *pool) start() {
	p.wake = make([]chan struct{}, p.workers-1)
	p.done = make(chan struct{}, p.workers-1)
	p.state.Store(loopClosed)
	for k := range p.wake {
		ch := make(chan struct{}, 1)
		p.wake[k] = ch
		go p.helper(ch)
	}
}

// stop ends the helpers (run by the Cloth's cleanup).
func (p *pool) stop() {
	for _, ch := range p.wake {
		close(ch)
	}
	p.wake = nil
	p.stopped = true
}

// helper joins the open loop, if any, each time it is woken. A wake may be
// stale (sent for a loop that closed before the helper ran); then it finds
// the loop closed and parks again.
func (p *pool) helper(wake chan struct{}) {
	for range wake {
		if p.join() {
			p.loop()
			p.done <- struct{}{} // never blocks: one slot per helper
		}
	}
}

// join counts the calling helper into the open loop; it reports false if
// no loop is open.
func (p *pool) join() bool {
	for {
		s := p.state.Load()
		if s&loopClosed != 0 {
			return false
		}
		if p.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// loop takes chunks until none is left.
func (p *pool) loop() {
	fn, n, chunk, nc := p.fn, p.n, p.chunk, p.nc
	for {
		c := int(p.next.Add(1) - 1)
		if c >= nc {
			return
		}
		lo := c * chunk
		fn(lo, min(lo+chunk, n))
	}
}

// run calls fn(lo, hi) for every chunk of [0,n). fn must be safe to call
// concurrently on disjoint chunks.
func (p *pool) run(n, chunk int, fn func(lo, hi int)) {
	nc := nChunks(n, chunk)
	if nc == 0 {
		return
	}
	w := min(p.workers, nc)
	if w <= 1 || n < serialBelow || p.stopped || p.single {
		for c := 0; c < nc; c++ {
			lo := c * chunk
			fn(lo, min(lo+chunk, n))
		}
		return
	}
	if p.wake == nil {
		p.start()
	}
	p.fn, p.n, p.chunk, p.nc = fn, n, chunk, nc
	p.next.Store(0)
	// Open the loop (a new generation, nobody joined), then wake the
	// helpers without blocking: a helper whose channel is full has a wake
	// pending and will try to join this loop when it runs.
	gen := p.state.Load()>>loopGenShift + 1
	p.state.Store(gen << loopGenShift)
	for k := 0; k < w-1; k++ {
		select {
		case p.wake[k] <- struct{}{}:
		default:
		}
	}
	p.loop()
	// No chunk is left to hand out: close the loop and wait for the
	// helpers that joined it, some of which may still run a chunk.
	joined := int(p.state.Or(loopClosed) & loopJoined)
	for range joined {
		<-p.done
	}
	p.fn = nil // drop the reference to the Cloth while idle
}

// parts returns the partial-sum buffer for nc chunks.
func (p *pool) parts(nc int) []float64 {
	if cap(p.partial) < nc {
		p.partial = make([]float64, nc)
	}
	return p.partial[:nc]
}

// sumParts adds the partials in chunk order.
func sumParts(part []float64) float64 {
	s := 0.0
	for _, v := range part {
		s += v
	}
	return s
}

// maxParts returns the largest partial, NaN if any is NaN.
func maxParts(part []float64) float64 {
	m := 0.0
	for _, v := range part {
		if v > m || v != v {
			m = v
		}
	}
	return m
}

// stopPool is the Cloth cleanup.
func stopPool(p *pool) { p.stop() }
