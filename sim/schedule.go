package sim

import (
	"sync/atomic"
)

// team steps the pieces of one substep concurrently: the calling goroutine
// and up to len(wake) helper goroutines, parked on channels between
// substeps, claim pieces from one atomic counter. The caller claims pieces
// too, so a helper that the operating system has not scheduled yet (a
// machine busy with other work) costs nothing: the caller steps its pieces
// and waits only for pieces that a helper has actually started. A
// participant whose pieces are done while others still step takes up the
// coming frame's preparation (ahead) instead of waiting.
//
// Which goroutine steps a piece does not change its result: each piece
// collides with the others' states at the start of the substep
// (collide.Snapshot) and its own copy of the body.
type team struct {
	wake []chan struct{} // one per helper, buffered: a wake never blocks
	done chan struct{}   // the helper that finishes the last piece signals

	// state is n<<32 | claimed for the running substep: a claim is a
	// compare-and-swap on the whole word, so a helper that wakes late
	// cannot claim a piece of a substep that has ended.
	state    atomic.Uint64
	finished atomic.Int32 // pieces stepped in the running substep, +1 when the caller has arrived

	task func(i int) // steps piece i; nil while idle
	pre  *ahead      // the coming frame's preparation; nil while idle
}

// newTeam returns a team with the given number of helpers (started at the
// first run, ended by stop).
func newTeam(helpers int) *team {
	return &team{wake: make([]chan struct{}, helpers), done: make(chan struct{}, 1)}
}

func (t *team) start() {
	for k := range t.wake {
		ch := make(chan struct{}, 1)
		t.wake[k] = ch
		go t.helper(ch)
	}
}

// stop ends the helpers (no run may be in progress).
func (t *team) stop() {
	for k, ch := range t.wake {
		if ch != nil {
			close(ch)
			t.wake[k] = nil
		}
	}
}

func (t *team) helper(wake chan struct{}) {
	for range wake {
		n, _, pre := t.claimAll()
		if n == 0 {
			continue // woken for a substep that others finished
		}
		total := int32(t.state.Load()>>32) + 1 // the pieces and the caller's arrival
		// Until the others are done, prepare the coming frame.
		pre.help(func() bool { return t.finished.Load()+n < total })
		if t.finished.Add(n) == total {
			// Last: the caller has arrived (its count is in) and waits.
			t.done <- struct{}{}
		}
	}
}

// claimAll steps pieces until none is left unclaimed and returns how many
// it stepped, with the task and preparation of the substep they belong to.
func (t *team) claimAll() (n int32, task func(int), pre *ahead) {
	for {
		s := t.state.Load()
		k, total := uint32(s), uint32(s>>32)
		if k >= total {
			return n, task, pre
		}
		if !t.state.CompareAndSwap(s, s+1) {
			continue
		}
		if task == nil {
			// Set before the claim's state was stored.
			task, pre = t.task, t.pre
		}
		task(int(k))
		n++
	}
}

// run steps pieces 0..n−1 by task and returns when all are done; pre (may
// be nil) is helped while some are still stepping. serial runs them all
// on the calling goroutine.
func (t *team) run(n int, task func(int), pre *ahead, serial bool) {
	if len(t.wake) == 0 || n <= 1 || serial {
		for i := range n {
			task(i)
		}
		return
	}
	if t.wake[0] == nil {
		t.start()
	}
	t.task, t.pre = task, pre
	t.finished.Store(0)
	t.state.Store(uint64(n) << 32)
	for _, ch := range t.wake[:min(len(t.wake), n-1)] {
		select {
		case ch <- struct{}{}:
		default: // a wake is pending already
		}
	}
	mine, _, _ := t.claimAll()
	// finished counts the pieces stepped and, once, the caller's arrival:
	// whoever brings it to n+1 is the last, and only a helper that is last
	// signals done, when the caller is sure to wait for it (a caller that
	// stepped no piece and arrived after the helpers finished must not
	// leave a signal behind for the next substep).
	pieces := int32(n)
	if t.finished.Load()+mine < pieces {
		pre.help(func() bool { return t.finished.Load()+mine < pieces })
	}
	if t.finished.Add(mine+1) < pieces+1 {
		<-t.done
	}
	t.task, t.pre = nil, nil
}

// ahead is work for a coming frame that depends only on its pose (the
// collision body's positions and the attachment targets at the frame's
// end), done while the current frame is stepped by the team's goroutines
// whose pieces are done before the others' (help). What is left at the
// start of the coming frame runs there (finish): this work was the serial
// part of a coarse frame (7 %).
//
// Tasks are claimed in order, and a task starts only when as many tasks as
// its need are done (the targets read every chunk of the body); a helper
// that finds the next task not ready returns rather than wait. Every task
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

// help runs tasks while busy() (pieces still stepping) and ready tasks are
// left. It returns within one task of busy turning false.
func (a *ahead) help(busy func() bool) {
	if a == nil || !a.armed {
		return
	}
	n := int32(len(a.tasks))
	for busy() {
		k := a.next.Load()
		if k >= n || a.done.Load() < a.need[k] {
			return
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

// disarm drops the preparation (no helper may be running).
func (a *ahead) disarm() { a.armed = false }

// pacer picks, frame by frame, whether the pieces are stepped by the team
// and their own loops split over the workers (in parallel), or all of it
// by the calling goroutine alone (serially; see Simulator.setMode): on a
// machine busy with other work, goroutines that wait for each other every
// substep can be slower than one goroutine, since each wait costs a
// scheduling delay. It keeps a moving average of the time per substep of
// the mode in use and uses the faster, timing the other one now and then
// to follow a changing load (first after probeMin frames, then twice as
// long each time the faster mode stays the faster, up to probeMax); a
// probe replaces the other mode's estimate, which is stale. The first
// paceWarmup frames (first-use costs: goroutines started, buffers
// touched) are not timed. The mode never changes results.
type pacer struct {
	est      [2]float64 // s per substep: [serial, parallel]
	measured [2]bool
	frames   int // frames recorded
	wait     int // frames until the next probe
	interval int
	best     int
	probing  bool
}

const (
	modeSerial, modeParallel = 0, 1
	probeMin, probeMax       = 4, 64
	// paceWeight is the weight of the newest frame in a mode's average.
	paceWeight = 0.3
	// paceWarmup is the number of first frames not timed.
	paceWarmup = 2
)

// mode returns the mode of the coming frame.
func (p *pacer) mode() int {
	switch {
	case !p.measured[modeParallel]:
		return modeParallel
	case !p.measured[modeSerial]:
		return modeSerial
	}
	if p.wait <= 0 {
		p.probing = true
		return 1 - p.best
	}
	p.wait--
	return p.best
}

// record adds a frame stepped in mode at perSub seconds per substep.
func (p *pacer) record(mode int, perSub float64) {
	if p.frames++; p.frames <= paceWarmup {
		return
	}
	if !p.measured[mode] || p.probing {
		p.est[mode], p.measured[mode] = perSub, true
	} else {
		p.est[mode] += paceWeight * (perSub - p.est[mode])
	}
	if !p.measured[1-mode] {
		return
	}
	best := modeSerial
	if p.est[modeParallel] <= p.est[modeSerial] {
		best = modeParallel
	}
	switch {
	case p.interval == 0 || best != p.best:
		p.interval = probeMin
	case p.probing:
		p.interval = min(2*p.interval, probeMax)
	}
	if p.probing || best != p.best {
		p.wait = p.interval
	}
	p.best, p.probing = best, false
}
