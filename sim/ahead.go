package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ahead is work for a coming frame that depends only on the clip (the
// collision body's positions and the attachment targets at the frame's
// end), done while the current frame is stepped. The pieces are stepped
// concurrently, one goroutine each, and a piece that finishes its substep
// before the others would wait for them: its goroutine takes up ahead's
// tasks instead, until every piece has finished (help). What is left at the
// start of the coming frame runs there (finish), as all of it did before:
// this work was the serial part of a coarse frame (7 %).
//
// Tasks are claimed in order, and a task starts only when as many tasks as
// its need are done (the targets read every chunk of the body). Every task
// writes its own results, so they are the same whichever goroutine runs
// it and however far the helpers got.
type ahead struct {
	tasks []func()
	need  []int32
	next  atomic.Int32 // tasks claimed
	done  atomic.Int32 // tasks finished
	armed bool
}

// add appends a task that starts after the first need tasks are done.
func (a *ahead) add(need int, task func()) {
	a.tasks = append(a.tasks, task)
	a.need = append(a.need, int32(need))
}

// arm makes the tasks available again (no helper may be running).
func (a *ahead) arm() {
	a.next.Store(0)
	a.done.Store(0)
	a.armed = true
}

// help runs tasks while busy (the pieces still stepping) is positive and
// tasks are left. It returns within one task of busy reaching zero.
func (a *ahead) help(busy *atomic.Int32) {
	if !a.armed {
		return
	}
	n := int32(len(a.tasks))
	for busy.Load() > 0 {
		k := a.next.Load()
		if k >= n {
			return
		}
		if a.done.Load() < a.need[k] {
			// Another helper is finishing a task this one needs.
			runtime.Gosched()
			continue
		}
		if a.next.CompareAndSwap(k, k+1) {
			a.tasks[k]()
			a.done.Add(1)
		}
	}
}

// finish runs the tasks left, in order, and disarms. No helper may be
// running.
func (a *ahead) finish() {
	for k := a.next.Load(); int(k) < len(a.tasks); k++ {
		a.tasks[k]()
	}
	a.armed = false
}

// crew steps the pieces concurrently through the substeps of one frame:
// the calling goroutine steps piece 0, and one goroutine per other piece,
// started with the frame, waits for each substep by spinning
// (runtime.Gosched) instead of parking. Starting a goroutine per piece and
// substep, the second core's goroutine began 12–18 µs late and the caller
// woke from WaitGroup.Wait as late again: a few per cent of a coarse
// frame. A piece done before the others takes up pre's tasks (see ahead).
// Pieces that split their own loops are stepped by a goroutine per piece
// and substep instead, which use the crew's step, busy and done alone.
type crew struct {
	step func(i int) // steps piece i by the current substep
	n    int
	pre  *ahead
	gen  atomic.Uint64 // substeps begun
	stop atomic.Bool
	busy atomic.Int32 // pieces still stepping in this substep
	wg   sync.WaitGroup
}

// start launches the goroutines of pieces 1..n−1.
func (c *crew) start() {
	seen := c.gen.Load()
	for i := 1; i < c.n; i++ {
		c.wg.Go(func() { c.work(i, seen) })
	}
}

// work steps piece i in every substep after seen until stopped.
func (c *crew) work(i int, seen uint64) {
	for {
		g := c.gen.Load()
		for g == seen && !c.stop.Load() {
			runtime.Gosched()
			g = c.gen.Load()
		}
		if g == seen {
			return
		}
		seen = g
		c.step(i)
		c.done()
	}
}

// done marks a piece's substep finished; until the others are, its
// goroutine does pre's tasks.
func (c *crew) done() {
	if c.busy.Add(-1) > 0 {
		c.pre.help(&c.busy)
	}
}

// substep steps every piece once and returns when all are done.
func (c *crew) substep() {
	c.busy.Store(int32(c.n))
	c.gen.Add(1)
	c.step(0)
	c.done()
	for c.busy.Load() > 0 {
		runtime.Gosched()
	}
}

// end stops the goroutines (between substeps).
func (c *crew) end() {
	c.stop.Store(true)
	c.wg.Wait()
	c.stop.Store(false)
}
