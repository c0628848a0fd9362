package cloth

import (
	"sync"
	"sync/atomic"
)

// pool runs loops over [0,n) split into fixed-size chunks. The split depends
// only on n and the chunk size, never on the number of workers, and every
// reduction combines per-chunk partials in chunk order, so results are
// bit-identical whatever GOMAXPROCS or Options.Workers is.
type pool struct {
	workers int
	partial []float64 // per-chunk partial sums, reused
}

// serialBelow is the loop length under which pool runs chunks on the calling
// goroutine: spawning workers costs about a microsecond each, more than a
// short loop over a few hundred vertices.
const serialBelow = 8192

// chunkSize is the fixed chunk length of parallel loops.
const chunkSize = 1024

func nChunks(n, chunk int) int { return (n + chunk - 1) / chunk }

// run calls fn(lo, hi) for every chunk of [0,n).
func (p *pool) run(n, chunk int, fn func(lo, hi int)) {
	nc := nChunks(n, chunk)
	if nc == 0 {
		return
	}
	w := p.workers
	if w > nc {
		w = nc
	}
	if w <= 1 || n < serialBelow {
		for c := 0; c < nc; c++ {
			lo := c * chunk
			fn(lo, min(lo+chunk, n))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(w)
	for k := 0; k < w; k++ {
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= nc {
					return
				}
				lo := c * chunk
				fn(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

// sum runs fn on every chunk of [0,n) and returns the sum of its results,
// added in chunk order.
func (p *pool) sum(n int, fn func(lo, hi int) float64) float64 {
	nc := nChunks(n, chunkSize)
	if cap(p.partial) < nc {
		p.partial = make([]float64, nc)
	}
	part := p.partial[:nc]
	p.run(n, chunkSize, func(lo, hi int) { part[lo/chunkSize] = fn(lo, hi) })
	s := 0.0
	for _, v := range part {
		s += v
	}
	return s
}

// maxOf runs fn on every chunk of [0,n) and returns the largest result
// (fn's results must not be NaN; max is order independent).
func (p *pool) maxOf(n int, fn func(lo, hi int) float64) float64 {
	nc := nChunks(n, chunkSize)
	if cap(p.partial) < nc {
		p.partial = make([]float64, nc)
	}
	part := p.partial[:nc]
	p.run(n, chunkSize, func(lo, hi int) { part[lo/chunkSize] = fn(lo, hi) })
	m := 0.0
	for _, v := range part {
		if v > m || v != v {
			m = v
		}
	}
	return m
}
