package sim

import (
	"runtime"
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
