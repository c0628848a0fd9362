//go:build linux

package build

import (
	"runtime"
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD: getrusage for the calling thread.
const rusageThread = 1

// threadCPU locks the calling goroutine to its thread and returns a
// function that returns the CPU time (user + system) the thread has used
// since and unlocks it; ok is false where it cannot be read. A one-worker simulator steps on the goroutine that calls
// it, so the difference is the sample's own CPU time, whatever else loads
// the machine (the collector's background work excepted).
func threadCPU() (since func() (time.Duration, bool)) {
	runtime.LockOSThread()
	t0, ok0 := readThreadCPU()
	return func() (time.Duration, bool) {
		t1, ok1 := readThreadCPU()
		runtime.UnlockOSThread()
		if !ok0 || !ok1 {
			return 0, false
		}
		return t1 - t0, true
	}
}

func readThreadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
