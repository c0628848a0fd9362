//go:build !unix

package wrinkle

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
