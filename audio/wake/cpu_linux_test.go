package wake

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used (Linux's
// RUSAGE_THREAD); ok is false when it cannot be read.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
