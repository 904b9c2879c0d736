package runtime

import (
	"context"
	"encoding/json"
	"errors"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/motion"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MeasureLoop reports the loop it ran (board, rate, timer, what moved)
// and refuses an animation the body does not have, naming the ones it has.
func TestMeasureLoop(t *testing.T) {
	tests := []struct {
		name, anim, moving, err string
		goTimers, process       bool
	}{
		{name: "holding still", goTimers: true},
		{name: "moving", anim: "look-around", moving: "look-around"},
		{name: "in a process of its own", anim: "look-around", moving: "look-around", process: true},
		{name: "no such animation", anim: "moonwalk", err: `--move "moonwalk": no such animation`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof, err := board.LoadAny("sim")
			require.NoError(t, err)
			rep, err := MeasureLoop(context.Background(), LoopConfig{Profile: prof, Duration: 100 * time.Millisecond,
				Animation: tt.anim, GoTimers: tt.goTimers, LoopProcess: tt.process})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "sim", rep.Board)
			assert.Equal(t, tt.moving, rep.Moving)
			assert.Positive(t, rep.Rate)
			assert.False(t, rep.Load)
			assert.Equal(t, tt.process, rep.LoopProcess)
			if tt.goTimers {
				assert.Equal(t, "go", rep.Timer)
			} else {
				assert.Equal(t, "precise", rep.Timer)
			}
		})
	}
}

// LoopProfile loads the board with the rate asked for, or the profile's
// own; the report prints for people or as JSON.
func TestLoopProfileAndReport(t *testing.T) {
	own, err := LoopProfile("sim", 0)
	require.NoError(t, err)
	prof, err := LoopProfile("sim", 100)
	require.NoError(t, err)
	assert.Equal(t, 100, prof.Motion.RateHz)
	assert.NotEqual(t, 100, own.Motion.RateHz, "the sim profile's own rate is another")
	_, err = LoopProfile("no-such-board", 0)
	require.Error(t, err)

	rep := &LoopReport{Board: "sim", Rate: 100, Seconds: 1, Timer: "go", Ticks: 100, P50us: 12, P99us: 1500, MaxUs: 2000}
	var text, js strings.Builder
	require.NoError(t, rep.Write(&text, false))
	assert.Contains(t, text.String(), "control loop: 100 Hz (go timer) for 1.0 s on the sim board, holding still, no other load\n")
	assert.Contains(t, text.String(), "lateness: p50 12 µs  p99 1.50 ms  max 2.00 ms\n")
	require.NoError(t, rep.Write(&js, true))
	var back LoopReport
	require.NoError(t, json.Unmarshal([]byte(js.String()), &back))
	assert.Equal(t, *rep, back)
}

// With --rest the report says the resident memory when the load ended and
// after the rest; without it, nothing about memory.
func TestLoopReportSaysTheMemoryAtRest(t *testing.T) {
	var b strings.Builder
	rep := &LoopReport{Board: "sim", Rate: 200, Seconds: 30, Load: true, RestSeconds: 20, RSSLoadMB: 310.4, RSSRestMB: 24.2}
	require.NoError(t, rep.WriteText(&b))
	assert.Contains(t, b.String(), "resident memory: 310.4 MB when the load ended, 24.2 MB after 20 s at rest\n")
	b.Reset()
	rep.RSSLoadMB, rep.RSSRestMB = 0, 0
	require.NoError(t, rep.WriteText(&b))
	assert.NotContains(t, b.String(), "resident memory")
	if goruntime.GOOS == "linux" {
		assert.Greater(t, residentBytes("self"), int64(1<<20), "this process's VmRSS")
	}
}

// The report names the kernel's preemption model and, where the loop had
// its priority and the kernel does not preempt, lays the ticks missed
// after a late wake-up at its door and says what a robot needs.
func TestLoopReportNamesTheKernel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kernel  motion.Preemption
		missed  uint64
		has     []string
		hasNot  []string
		rtPrio  int
		loopCPU int
	}{
		{name: "not preemptible, ticks missed", kernel: motion.Preemption{Mode: "none", From: "the boot log: Dynamic Preempt: none"},
			missed: 3, rtPrio: 40, loopCPU: 1,
			has: []string{"kernel: not preemptible (none, from the boot log: Dynamic Preempt: none)",
				"the ticks missed after a late wake-up (3) are most likely the kernel's doing",
				"preempt=full", "isolcpus=1"}},
		{name: "not preemptible, none missed", kernel: motion.Preemption{Mode: "none", From: "uname -v"}, rtPrio: 40, loopCPU: 1,
			has: []string{"preempt=full"}, hasNot: []string{"most likely"}},
		{name: "preemptible and isolated", kernel: motion.Preemption{Mode: "rt", Preemptible: true, From: "/sys/kernel/realtime", IsolatedCPUs: []int{1}},
			missed: 2, rtPrio: 40, loopCPU: 1,
			has: []string{"kernel: preemptible (rt, from /sys/kernel/realtime)"}, hasNot: []string{"most likely", "a robot needs"}},
		{name: "no real-time priority", kernel: motion.Preemption{Mode: "none", From: "uname -v"}, missed: 5, loopCPU: -1,
			has: []string{"kernel: not preemptible"}, hasNot: []string{"most likely", "a robot needs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &LoopReport{Board: "sim", Rate: 200, Seconds: 30, Timer: "precise", Ticks: 6000, Missed: tc.missed, Kernel: tc.kernel,
				RealTime: motion.RealTimeStatus{Priority: tc.rtPrio, CPU: tc.loopCPU}}
			var b strings.Builder
			require.NoError(t, rep.WriteText(&b))
			for _, s := range tc.has {
				assert.Contains(t, b.String(), s)
			}
			for _, s := range tc.hasNot {
				assert.NotContains(t, b.String(), s)
			}
		})
	}
}

// The report says how much the hypervisor stole and, for each missed
// tick, whether the machine or the process made it late, so that a
// technician sees which; the kernel's guess gives way to it.
func TestLoopReportTakesMissesApart(t *testing.T) {
	at := time.Unix(1700000000, 0)
	rep := &LoopReport{Board: "sim", Rate: 200, Seconds: 30, Timer: "precise", Ticks: 6000, Missed: 5,
		Kernel:   motion.Preemption{Mode: "none", From: "uname -v"},
		RealTime: motion.RealTimeStatus{Priority: 40, CPU: 1}}
	steal := motion.NewStealLog(0)
	s := motion.Stats{Missed: 5, Misses: []motion.Miss{
		{At: at.Add(2 * time.Second), Late: 15 * time.Millisecond, Ran: 50 * time.Microsecond, Skipped: 3, Accounted: true, Queued: 20 * time.Microsecond},
		{At: at.Add(4 * time.Second), Late: 7 * time.Millisecond, Ran: 50 * time.Microsecond, Skipped: 1, Accounted: true, Waits: 1},
		{At: at.Add(5 * time.Second), Late: 6 * time.Millisecond, Ran: 50 * time.Microsecond, Skipped: 1},
	}}
	rep.explainMisses(s, steal, errors.New("no /proc/stat"), at, 5*time.Millisecond)
	assert.Equal(t, uint64(3), rep.MissedByMachine)
	assert.Equal(t, uint64(1), rep.MissedByProcess)
	assert.Equal(t, uint64(1), rep.MissedUnexplained)
	require.Len(t, rep.Misses, 3)
	assert.InDelta(t, 2.0, rep.Misses[0].AtSeconds, 1e-9)
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	out := b.String()
	for _, want := range []string{
		"steal: not read (no /proc/stat)",
		"missed ticks by cause: 3 the machine's (hypervisor, timer, kernel), 1 the process's (Go runtime, the tick), 1 not taken apart",
		"at 2.00 s: 3 missed after a tick 15.00 ms late that ran 50 µs: machine: its timer woke it 15.0 ms late",
		"at 4.00 s: 1 missed after a tick 7.00 ms late that ran 50 µs: process: ",
		"at 5.00 s: 1 missed after a tick 6.00 ms late that ran 50 µs: unknown: ",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "most likely", "the misses taken apart, no guess")

	rep.StealMs, rep.StealError = map[string]float64{"cpu0": 30, "cpu1": 120}, ""
	b.Reset()
	require.NoError(t, rep.WriteText(&b))
	assert.Contains(t, b.String(), "steal (the hypervisor running something else on a CPU with work): cpu0 30 ms, cpu1 120 ms (the loop's)")
}
