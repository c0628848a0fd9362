package wrinkle

import "github.com/pleat-dev/pleat/internal/workpool"

// pool runs the package's per-frame loops (synthesis, transfer,
// pre-alignment, push-out) over [0,n) in fixed-size chunks on the calling
// goroutine and up to workers−1 parked helpers (workpool.Pool: the caller
// takes chunks too and waits only for helpers that joined). Which
// goroutine runs a chunk never changes its result: the chunks write
// disjoint outputs, and any statistics are combined in chunk order.
type pool struct{ *workpool.Pool }

func newPool(workers int) *pool { return &pool{workpool.New(workers)} }

// run calls fn(lo, hi) for every chunk [lo, hi) of [0,n) and returns when
// all are done. fn must be safe to call concurrently on disjoint chunks.
func (p *pool) run(n, chunk int, fn func(lo, hi int)) { p.Run(n, chunk, fn) }

// stop ends the helpers; later loops run on the caller alone.
func (p *pool) stop() { p.Stop() }

// stopPool is the owners' cleanup.
func stopPool(p *workpool.Pool) { p.Stop() }
