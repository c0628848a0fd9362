package wrinkle

import "sync/atomic"

// pool runs a loop over [0,n) split into fixed-size chunks on the calling
// goroutine and up to workers−1 helpers. Which goroutine runs a chunk
// never changes its result: Synthesize's chunks write disjoint vertices
// and reduce nothing.
//
// The helpers are parked on channels between loops (started at the first
// parallel loop, ended by stop). The caller takes chunks itself and waits
// only for the helpers that joined the loop: a woken helper joins by a
// compare-and-swap on state, which succeeds only while the loop is open;
// the caller closes the loop when no chunk is left and then waits for the
// joined helpers. A helper that the operating system schedules late (a
// busy machine) finds the loop closed and parks again, instead of holding
// the caller for a timeslice. Nobody spins. A pool is used by one
// goroutine at a time.
type pool struct {
	workers int
	wake    []chan struct{} // one per helper, buffered (1)
	done    chan struct{}   // one send per joined helper, buffered
	state   atomic.Uint64   // generation<<32 | closed | joined

	fn      func(lo, hi int) // the running loop's body; nil while idle
	n       int
	chunk   int
	nc      int
	next    atomic.Int64
	stopped bool
}

// Bits of pool.state: the loop's generation in the high 32 bits, the
// closed flag, and the number of helpers that joined in the low bits.
const (
	poolGenShift        = 32
	poolClosed   uint64 = 1 << 31
	poolJoined   uint64 = poolClosed - 1
)

func newPool(workers int) *pool { return &pool{workers: max(1, workers)} }

func (p *pool) start() {
	p.wake = make([]chan struct{}, p.workers-1)
	p.done = make(chan struct{}, p.workers-1)
	p.state.Store(poolClosed)
	for k := range p.wake {
		ch := make(chan struct{}, 1)
		p.wake[k] = ch
		go p.helper(ch)
	}
}

// stop ends the helpers; later loops run on the caller alone.
func (p *pool) stop() {
	for _, ch := range p.wake {
		close(ch)
	}
	p.wake = nil
	p.stopped = true
}

// stopPool is the Synthesizer's cleanup.
func stopPool(p *pool) { p.stop() }

// helper joins the open loop, if any, each time it is woken.
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
		if s&poolClosed != 0 {
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

// run calls fn(lo, hi) for every chunk [lo, hi) of [0,n) and returns when
// all are done. fn must be safe to call concurrently on disjoint chunks.
func (p *pool) run(n, chunk int, fn func(lo, hi int)) {
	nc := (n + chunk - 1) / chunk
	w := min(p.workers, nc)
	if w <= 1 || p.stopped {
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
	// Open the loop (a new generation, nobody joined), then wake helpers
	// without blocking: a full channel means a wake is pending already.
	gen := p.state.Load()>>poolGenShift + 1
	p.state.Store(gen << poolGenShift)
	for k := 0; k < w-1; k++ {
		select {
		case p.wake[k] <- struct{}{}:
		default:
		}
	}
	p.loop()
	joined := int(p.state.Or(poolClosed) & poolJoined)
	for range joined {
		<-p.done
	}
	p.fn = nil // no reference to the Synthesizer while idle
}
