//go:build linux

package motion

import (
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleep sleeps d with clock_nanosleep(2) on the calling thread: the
// kernel's high-resolution timer wakes it within microseconds, where Go's
// runtime timers, serviced by its network poller, can wake up to about a
// millisecond late. It does not lock the thread to the goroutine: alone,
// a locked thread must be handed a processor explicitly, which under load
// was far slower than taking whichever is free. Config.RealTime locks it,
// with what makes that pay (see RealTime).
//
// It sleeps until an absolute deadline on the monotonic clock, so a signal
// only means calling again with the same deadline. A relative sleep has to
// trust the remainder the call reports, and under qemu-user 7.2 that went
// wrong both ways: an uninitialised remainder once became an 8-hour sleep
// that hung shutdown, and in CI a 3 ms sleep under a stream of signals
// ended after 2.4 ms.
func preciseSleep(d time.Duration) {
	if d <= 0 {
		return
	}
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
		time.Sleep(d)
		return
	}
	deadline := unix.NsecToTimespec(now.Nano() + d.Nanoseconds())
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &deadline, nil)
		if err == nil || err == unix.EINTR {
			// Check the clock rather than the call's word for it; the
			// deadline is fixed, so going round again never oversleeps.
			if unix.ClockGettime(unix.CLOCK_MONOTONIC, &now) != nil || now.Nano() >= deadline.Nano() {
				return
			}
			continue
		}
		// No usable clock_nanosleep: sleep what is left the runtime's way.
		if unix.ClockGettime(unix.CLOCK_MONOTONIC, &now) == nil {
			time.Sleep(time.Duration(deadline.Nano() - now.Nano()))
		} else {
			time.Sleep(d)
		}
		return
	}
}

const havePreciseSleep = true
