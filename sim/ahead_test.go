package sim

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestAhead runs ahead's tasks from several helpers while a fake piece is
// busy, then finishes: every task runs once, and never before the tasks it
// needs are done.
func TestAhead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		helpers int
		busyFor int // tasks the helpers may start before busy drops to 0
	}{
		{"no help", 0, 0},
		{"one helper, stopped early", 1, 3},
		{"three helpers, all done", 3, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a ahead
			const n = 12
			var ran [n]atomic.Int32
			var doneAt [n]int32 // tasks done when task k started
			var finished atomic.Int32
			var busy atomic.Int32
			for k := range n {
				need := 0
				if k > 0 {
					need = 1
				}
				if k == n-1 {
					need = n - 1
				}
				a.add(need, func() {
					doneAt[k] = finished.Load()
					ran[k].Add(1)
					if finished.Add(1) >= int32(tc.busyFor) {
						busy.Store(0)
					}
				})
			}
			for range 2 { // arm twice: the tasks run again
				for k := range ran {
					ran[k].Store(0)
				}
				finished.Store(0)
				a.arm()
				busy.Store(1)
				if tc.busyFor == 0 {
					busy.Store(0)
				}
				var wg sync.WaitGroup
				for range tc.helpers {
					wg.Go(func() { a.help(func() bool { return busy.Load() > 0 }) })
				}
				wg.Wait()
				a.finish()
				if a.armed {
					t.Fatal("still armed after finish")
				}
				for k := range n {
					if r := ran[k].Load(); r != 1 {
						t.Fatalf("task %d ran %d times", k, r)
					}
					if need := a.need[k]; doneAt[k] < need {
						t.Errorf("task %d started with %d tasks done, needs %d", k, doneAt[k], need)
					}
				}
			}
		})
	}
}
