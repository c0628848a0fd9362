//go:build unix

package layers

import (
	"syscall"
	"time"
)

// processCPU returns the process's CPU time (user + system, all threads).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
