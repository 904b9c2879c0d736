//go:build linux

package motion

import (
	"syscall"
	"time"
)

// preciseSleep sleeps d with nanosleep(2) on the calling thread: the
// kernel's high-resolution timer wakes it within microseconds, where Go's
// runtime timers, serviced by its network poller, can wake up to about a
// millisecond late. The thread is not locked to the goroutine: a locked
// thread must be handed a processor explicitly, which under load was far
// slower than taking whichever is free.
func preciseSleep(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
		// Interrupted by a signal: sleep the rest.
	}
}

const havePreciseSleep = true
