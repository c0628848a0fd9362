// Package workpool runs loops over [0,n) in fixed-size chunks on the
// calling goroutine and up to Workers−1 helper goroutines, parked between
// loops. The split depends only on n and the chunk size, never on how many
// goroutines take part or which one runs a chunk, so a loop whose chunks
// write disjoint results (or reduce per-chunk partials in chunk order)
// gives bit-identical results for any worker count.
//
// Waiting is by parking, never spinning, and costs nothing for a helper
// the operating system has not scheduled: the caller takes chunks itself
// and waits only for the helpers that joined the loop. A woken helper
// joins by a compare-and-swap on the pool's state word (generation,
// closed flag, joined count), which succeeds only while the loop is open;
// the caller closes the loop when no chunk is left to hand out and then
// waits for the joined helpers. A helper that runs late finds the loop
// closed (or a newer generation) and parks again. Wakes are non-blocking
// sends on one-slot channels, so a stale wake is harmless.
package workpool

import "sync/atomic"

// Pool is a set of parked helper goroutines. A Pool is used by one
// goroutine at a time.
type Pool struct {
	// SerialBelow is the loop length under which Run uses the calling
	// goroutine alone: waking a helper costs a few microseconds, more
	// than a short loop.
	SerialBelow int

	workers int
	single  bool
	stopped bool
	wake    []chan struct{} // one per helper, buffered (1)
	done    chan struct{}   // one send per joined helper, buffered
	state   atomic.Uint64   // generation<<32 | closed | joined

	fn    func(lo, hi int) // the running loop's body; nil while idle
	n     int
	chunk int
	nc    int
	next  atomic.Int64
}

// Bits of Pool.state: the loop's generation in the high 32 bits, the
// closed flag, and the number of helpers that joined in the low bits.
const (
	genShift        = 32
	closed   uint64 = 1 << 31
	joined   uint64 = closed - 1
)

// New returns a pool of workers goroutines in all (the caller and
// workers−1 helpers, started at the first parallel loop); fewer than one
// means one.
func New(workers int) *Pool { return &Pool{workers: max(1, workers)} }

// Workers returns the number of goroutines a loop may use.
func (p *Pool) Workers() int { return p.workers }

// Stopped reports whether Stop was called.
func (p *Pool) Stopped() bool { return p.stopped }

// SetSingleThreaded makes later loops run on the calling goroutine alone
// (on) or on up to Workers goroutines (off, the default). Results do not
// change.
func (p *Pool) SetSingleThreaded(on bool) { p.single = on }

// Stop ends the helpers; later loops run on the calling goroutine alone.
func (p *Pool) Stop() {
	for _, ch := range p.wake {
		close(ch)
	}
	p.wake = nil
	p.stopped = true
}

func (p *Pool) start() {
	p.wake = make([]chan struct{}, p.workers-1)
	p.done = make(chan struct{}, p.workers-1)
	p.state.Store(closed)
	for k := range p.wake {
		ch := make(chan struct{}, 1)
		p.wake[k] = ch
		go p.helper(ch)
	}
}

// helper joins the open loop, if any, each time it is woken.
func (p *Pool) helper(wake chan struct{}) {
	for range wake {
		if p.join() {
			p.loop()
			p.done <- struct{}{} // never blocks: one slot per helper
		}
	}
}

// join counts the calling helper into the open loop; it reports false if
// no loop is open.
func (p *Pool) join() bool {
	for {
		s := p.state.Load()
		if s&closed != 0 {
			return false
		}
		if p.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// loop takes chunks until none is left.
func (p *Pool) loop() {
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

// Run calls fn(lo, hi) for every chunk [lo, hi) of [0,n), chunk long (the
// last one shorter), and returns when all are done. fn must be safe to
// call concurrently on disjoint chunks.
func (p *Pool) Run(n, chunk int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	chunk = max(1, chunk)
	nc := (n + chunk - 1) / chunk
	w := min(p.workers, nc)
	if w <= 1 || n < p.SerialBelow || p.stopped || p.single {
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
	gen := p.state.Load()>>genShift + 1
	p.state.Store(gen << genShift)
	for k := 0; k < w-1; k++ {
		select {
		case p.wake[k] <- struct{}{}:
		default:
		}
	}
	p.loop()
	// No chunk is left to hand out: close the loop and wait for the
	// helpers that joined it, some of which may still run a chunk.
	for range int(p.state.Or(closed) & joined) {
		<-p.done
	}
	p.fn = nil // no reference to the loop's owner while idle
}
