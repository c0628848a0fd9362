//go:build unix

package wrinkle

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user and system CPU time so far, all
// threads together: on a machine shared with other work it measures a
// benchmark's own cost better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
