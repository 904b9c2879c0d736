//go:build linux

package motion

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The real-time set-up on this very system: whatever it grants or refuses
// (all of it as root, little otherwise), the loop runs and moves, each
// refusal says why, and Close leaves the process as it found it. It
// asserts no timing.
func TestRealTimeOnThisSystem(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" || os.Getenv("GOGC") != "" {
		t.Skip("GOMAXPROCS or GOGC set: the set-up leaves them alone")
	}
	procs := runtime.GOMAXPROCS(0)
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	cpus := affinities(t)

	c, logs, _ := rtController(t, RealTime{}, newRTSystem())
	require.NoError(t, c.Start(context.Background()))
	st := c.RealTime()
	t.Logf("got %s; refused %q", st, st.Refused)
	assert.Len(t, st.Refused, bytesCount(logs.String(), "level=WARN"), "one warning when anything is refused")
	if st.Priority == 0 {
		assert.Contains(t, st.Refused[0], "SCHED_FIFO priority 40: ")
	}
	j, err := c.MoveTo(Pose{0.2, 0, 0}, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(context.Background()))
	require.NoError(t, c.Close(context.Background()))

	assert.Equal(t, procs, runtime.GOMAXPROCS(0), "GOMAXPROCS as it was")
	got := debug.SetGCPercent(gc)
	assert.Equal(t, gc, got, "the collector as it was")
	for tid, set := range affinities(t) {
		if before, ok := cpus[tid]; ok {
			assert.Equal(t, before, set, "thread %d may use the CPUs it could before", tid)
		}
	}
}

// affinities returns the CPU set of each of the process's threads.
func affinities(t *testing.T) map[int]unix.CPUSet {
	ents, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	out := map[int]unix.CPUSet{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		require.NoError(t, err)
		var set unix.CPUSet
		if unix.SchedGetaffinity(tid, &set) == nil {
			out[tid] = set
		}
	}
	return out
}

func bytesCount(s, sub string) int {
	n := 0
	for i := 0; ; {
		j := indexFrom(s, sub, i)
		if j < 0 {
			return n
		}
		n++
		i = j + len(sub)
	}
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
