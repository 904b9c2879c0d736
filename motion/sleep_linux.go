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
//
// The request and the remainder are separate, and a remainder longer than
// what was asked is not slept: qemu-user 7.2 writes an uninitialised
// remainder when a signal lands just before the call and then restarts the
// call with the same arguments, so one shared timespec became an 8-hour
// sleep and hung the robot's shutdown under emulation.
func preciseSleep(d time.Duration) {
	if d <= 0 {
		return
	}
	req := syscall.NsecToTimespec(d.Nanoseconds())
	var rem syscall.Timespec
	for syscall.Nanosleep(&req, &rem) == syscall.EINTR {
		// Interrupted by a signal: sleep the rest, if the rest is sane.
		left := rem.Nano()
		if left <= 0 || left > req.Nano() {
			return
		}
		req = rem
	}
}

const havePreciseSleep = true
