//go:build !linux

package eval

import "time"

// threadCPU cannot be read on this system.
func threadCPU() (time.Duration, bool) { return 0, false }
