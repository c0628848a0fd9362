//go:build !unix

package layers

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
