package cloth

import "github.com/pleat-dev/pleat/internal/workpool"

// pool runs the cloth's loops over [0,n) in fixed-size chunks on its
// Workers goroutines (workpool.Pool: helpers parked between loops, the
// caller taking chunks too and waiting only for helpers that joined), and
// keeps the per-chunk partial sums of its reductions. The split depends
// only on n and the chunk size, and every reduction combines the partials
// in chunk order, so results are bit-identical whatever GOMAXPROCS or
// Options.Workers is. Loop bodies are method values stored once at
// construction, so a loop allocates nothing; the helpers are stopped by a
// cleanup when the Cloth is collected. A pool is used by one goroutine at
// a time.
type pool struct {
	*workpool.Pool
	partial []float64 // per-chunk partial sums, reused
}

// serialBelow is the loop length under which pool runs chunks on the calling
// goroutine: waking a helper costs a few microseconds, more than a short loop
// over a few thousand vertices.
const serialBelow = 4096

// chunkSize is the fixed chunk length of parallel loops.
const chunkSize = 1024

func nChunks(n, chunk int) int { return (n + chunk - 1) / chunk }

func newPool(workers int) *pool {
	p := &pool{Pool: workpool.New(workers)}
	p.SerialBelow = serialBelow
	return p
}

// run calls fn(lo, hi) for every chunk of [0,n). fn must be safe to call
// concurrently on disjoint chunks.
func (p *pool) run(n, chunk int, fn func(lo, hi int)) { p.Run(n, chunk, fn) }

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
func stopPool(p *workpool.Pool) { p.Stop() }
