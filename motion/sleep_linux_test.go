//go:build linux

package motion

import (
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The precise clock sleeps the whole request when signals interrupt it,
// and returns (rather than sleeping for hours) however the interruptions
// fall: under qemu-user a shared request/remainder timespec once became an
// 8-hour sleep.
func TestPreciseSleepSurvivesSignals(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // owned: stopped and waited for below
		defer wg.Done()
		p, _ := os.FindProcess(os.Getpid())
		for {
			select {
			case <-stop:
				return
			default:
				_ = p.Signal(syscall.SIGWINCH) // ignored by Go, but interrupts nanosleep
				time.Sleep(50 * time.Microsecond)
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	clock := newPreciseClock()
	require.True(t, clock.ok, "clock_nanosleep usable")
	for _, d := range []time.Duration{0, -time.Second, 100 * time.Microsecond, 3 * time.Millisecond} {
		start := time.Now()
		clock.sleepUntil(start.Add(d))
		assert.GreaterOrEqual(t, time.Since(start), d, "slept less than asked")
	}
}

// The loop's sleep allocates nothing: an allocation can start a
// collection, which stops the loop with everything else.
func TestPreciseSleepAllocatesNothing(t *testing.T) {
	clock := newPreciseClock()
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		clock.sleepUntil(time.Now().Add(10 * time.Microsecond))
	}))
}
