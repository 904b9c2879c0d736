//go:build linux

package motion

import (
	"time"

	"golang.org/x/sys/unix"
)

// preciseClock sleeps with clock_nanosleep(2) on the calling thread: the
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
//
// The sleep is the only system call per tick: deadlines come from Go's
// monotonic clock (the same CLOCK_MONOTONIC, read without a system call),
// offset once. Each system call gives the Go scheduler a chance to take
// the loop's processor away or run a pending collector request on the
// loop's thread, and getting it back can mean waiting for another thread.
type preciseClock struct {
	base   time.Time // a Go clock reading...
	baseNs int64     // ...and CLOCK_MONOTONIC at the same moment
	ok     bool      // clock_nanosleep is usable
}

// newPreciseClock ties Go's monotonic clock to CLOCK_MONOTONIC.
func newPreciseClock() preciseClock {
	var ts unix.Timespec
	before := time.Now()
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return preciseClock{}
	}
	after := time.Now()
	return preciseClock{base: before.Add(after.Sub(before) / 2), baseNs: ts.Nano(), ok: true}
}

// sleepUntil returns at t or soon after, never before, and says how
// many times it called clock_nanosleep (each one that slept is one
// voluntary context switch of the thread's). It allocates nothing.
func (p preciseClock) sleepUntil(t time.Time) int {
	if !p.ok {
		time.Sleep(time.Until(t))
		return 1
	}
	deadline := unix.NsecToTimespec(p.baseNs + t.Sub(p.base).Nanoseconds())
	calls := 0
	for time.Now().Before(t) {
		calls++
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &deadline, nil)
		if err != nil && err != unix.EINTR {
			// No usable clock_nanosleep: sleep what is left the
			// runtime's way.
			time.Sleep(time.Until(t))
			return calls + 1
		}
		// Check Go's clock rather than the call's word for it; the
		// deadline is fixed, so going round again never oversleeps.
	}
	return calls
}

const havePreciseSleep = true
