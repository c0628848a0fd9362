//go:build !linux

package build

import "time"

// threadCPU is not measured on this platform: since reports !ok.
func threadCPU() (since func() (time.Duration, bool)) {
	return func() (time.Duration, bool) { return 0, false }
}
