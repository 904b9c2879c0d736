package motion

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A missed tick is blamed on the machine or the process from the loop
// thread's accounts, as a technician reading `jibod motion loop` sees it.
func TestMissVerdict(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		m     Miss
		blame Blame
		why   string
	}{
		{"not accounted", Miss{Late: 20 * ms, Ran: 50 * time.Microsecond}, BlameUnknown, "not read"},
		{"the timer came late", Miss{Accounted: true, Late: 20 * ms, Ran: 50 * time.Microsecond, Queued: 10 * time.Microsecond},
			BlameMachine, "its timer woke it 20.0 ms late"},
		{"woken on time, no CPU", Miss{Accounted: true, Late: 12 * ms, Ran: 50 * time.Microsecond, Queued: 11 * ms},
			BlameMachine, "woken on time, it got its CPU 11.0 ms later"},
		{"the hypervisor", Miss{Accounted: true, Late: 15 * ms, Ran: 50 * time.Microsecond, Queued: 1 * ms, Stolen: 10 * ms},
			BlameMachine, "the hypervisor did not run the loop's CPU (10.0 ms stolen)"},
		{"the Go runtime after the sleep", Miss{Accounted: true, Late: 7 * ms, Ran: 50 * time.Microsecond, Queued: 3 * ms, Waits: 1},
			BlameProcess, "waited for another thread 1 times (the Go runtime)"},
		{"the Go runtime in the tick", Miss{Accounted: true, Late: 40 * time.Microsecond, Ran: 8 * ms, TickOnCPU: 60 * time.Microsecond, TickWaits: 2},
			BlameProcess, "the tick, 8.0 ms long, waited for another thread 2 times"},
		{"a tick put off its CPU", Miss{Accounted: true, Late: 40 * time.Microsecond, Ran: 8 * ms, TickOnCPU: 60 * time.Microsecond, TickQueued: 7 * ms, TickPreempted: 1},
			BlameMachine, "the tick was put off its CPU for 7.0 ms"},
		{"a tick whose CPU was not run", Miss{Accounted: true, Late: 40 * time.Microsecond, Ran: 8 * ms, TickOnCPU: 60 * time.Microsecond},
			BlameMachine, "the CPU was not run"},
		{"a tick stolen", Miss{Accounted: true, Late: 40 * time.Microsecond, Ran: 18 * ms, TickOnCPU: 60 * time.Microsecond, Stolen: 10 * ms},
			BlameMachine, "10.0 ms stolen) during the tick"},
		{"a tick stolen while its motor call blocked", Miss{Accounted: true, Late: 40 * time.Microsecond, Ran: 18 * ms, TickOnCPU: 60 * time.Microsecond, TickWaits: 3, Stolen: 10 * ms},
			BlameMachine, "10.0 ms stolen) during the tick"},
		{"a tick waiting on its motors, little stolen", Miss{Accounted: true, Late: 40 * time.Microsecond, Ran: 18 * ms, TickOnCPU: 60 * time.Microsecond, TickWaits: 3, Stolen: 5 * ms},
			BlameProcess, "the tick, 18.0 ms long, waited for another thread 3 times"},
		{"stolen while the loop also waited after its sleep", Miss{Accounted: true, Late: 15 * ms, Ran: 50 * time.Microsecond, Queued: 1 * ms, Waits: 2, Stolen: 10 * ms},
			BlameMachine, "the hypervisor did not run the loop's CPU (10.0 ms stolen)"},
		{"a long tick on its CPU", Miss{Accounted: true, Late: 40 * time.Microsecond, Ran: 6 * ms, TickOnCPU: 6 * ms},
			BlameProcess, "the tick ran 6.0 ms on its CPU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blame, why := tc.m.Verdict()
			assert.Equal(t, tc.blame, blame)
			assert.Contains(t, why, tc.why)
		})
	}
}

// The loop's record of its misses keeps the first MissRecords, taken
// apart from the accounts before the sleep, on waking and after the
// tick; a reset starts again.
func TestLatencyExplainsMisses(t *testing.T) {
	var l latency
	at := time.Unix(1700000000, 0)
	acct := [3]threadTimes{
		{onCPU: 100, queued: 1000, waits: 10, preempted: 1},
		{onCPU: 150, queued: 4000, waits: 13, preempted: 2}, // woke: 3 switches for 1 sleep
		{onCPU: 950, queued: 4500, waits: 13, preempted: 2},
	}
	l.explain(at, 7*time.Millisecond, 900*time.Nanosecond, 1, 1, &acct)
	l.explain(at.Add(time.Second), 20*time.Millisecond, time.Microsecond, 3, 1, nil)
	got := l.snapshot().Misses
	require.Len(t, got, 2)
	assert.Equal(t, Miss{At: at, Late: 7 * time.Millisecond, Ran: 900, Skipped: 1, Accounted: true,
		Queued: 3000, Waits: 2, Preempted: 1, TickOnCPU: 800, TickQueued: 500}, got[0])
	assert.False(t, got[1].Accounted)
	assert.Equal(t, 3, got[1].Skipped)
	for range MissRecords {
		l.explain(at, time.Millisecond, 0, 1, 1, nil)
	}
	assert.Len(t, l.snapshot().Misses, MissRecords, "the first ones kept")
	l.reset()
	assert.Empty(t, l.snapshot().Misses)
}

// A reset (ResetStats) that comes while the loop is writing up a miss
// is not undone: the miss is dropped, and the next one is the first of
// the new run.
func TestLatencyResetDuringExplainIsKept(t *testing.T) {
	var l latency
	at := time.Unix(1700000000, 0)
	l.explain(at, time.Millisecond, 0, 1, 1, nil)
	l.explain(at, time.Millisecond, 0, 1, 1, nil)
	n := l.nmiss.Load()
	l.reset()
	l.explainAt(n, at, time.Millisecond, 0, 1, 1, nil)
	assert.Empty(t, l.snapshot().Misses, "the reset stands")

	l.explain(at.Add(time.Second), 5*time.Millisecond, 0, 2, 1, nil)
	got := l.snapshot().Misses
	require.Len(t, got, 1)
	assert.Equal(t, 2, got[0].Skipped)
}

func TestParseSteal(t *testing.T) {
	stat := "cpu  6484700 3674026 2606184 1789585 104127 0 13257 8349 0 0\n" +
		"cpu0 3500664 1646809 1244002 904778 36296 0 1388 4046 0 0\n" +
		"cpu2 2984035 2027217 1362181 884806 67831 0 11868 4303 0 0\n" +
		"intr 1 2 3\nctxt 5\n"
	got, err := parseSteal([]byte(stat), nil)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{40460 * time.Millisecond, noCPU, 43030 * time.Millisecond}, got, "CPU 1 offline")

	for _, bad := range []string{"", "cpu 1 2 3\n", "cpu0 1 2 3 4\n", "cpux 1 2 3 4 5 6 7 8\n", "cpu0 1 2 3 4 5 6 7 -8\n",
		"cpu99999 1 2 3 4 5 6 7 8\n", "cpu0 1 2 3 4 5 6 7 999999999999999999\n"} {
		_, err := parseSteal([]byte(bad), nil)
		assert.Error(t, err, bad)
	}
}

// The steal sampler reads every 10 ms inside the process whose ticks it
// explains: once warm, a reading allocates nothing.
func TestStealSamplingDoesNotAllocate(t *testing.T) {
	l := NewStealLog(0)
	if p, err := openProcStat(); err == nil {
		t.Cleanup(func() { _ = p.Close() })
		var into []time.Duration
		into, err = p.read(into)
		require.NoError(t, err)
		assert.Zero(t, testing.AllocsPerRun(50, func() { into, _ = p.read(into) }), "reading /proc/stat")
	}
	reading := []time.Duration{0, 0}
	l.read = func(into []time.Duration) ([]time.Duration, error) { return append(into[:0], reading...), nil }
	require.NoError(t, l.sample())
	require.NoError(t, l.sample())
	assert.Zero(t, testing.AllocsPerRun(50, func() {
		reading[1] += 10 * time.Millisecond
		_ = l.sample()
	}), "recording a reading")
}

// A StealLog records when each CPU's steal grew, so that a miss is
// matched with the steal around it and not with steal seconds away.
func TestStealLogMatchesMissesWithTheStealAroundThem(t *testing.T) {
	base := time.Unix(1700000000, 0)
	readings := [][]time.Duration{
		{0, 0},
		{0, 0},
		{0, 20 * time.Millisecond}, // CPU 1 at 20..30 ms
		{10 * time.Millisecond, 20 * time.Millisecond},
	}
	i := 0
	l := NewStealLog(time.Millisecond)
	l.read = func(into []time.Duration) ([]time.Duration, error) {
		if i >= len(readings) {
			return nil, errors.New("no more")
		}
		return append(into[:0], readings[i]...), nil
	}
	l.now = func() time.Time { return base.Add(time.Duration(i) * 10 * time.Millisecond) }
	for range readings {
		require.NoError(t, l.sample())
		i++
	}
	total, over := l.Total()
	assert.Equal(t, map[int]time.Duration{0: 10 * time.Millisecond, 1: 20 * time.Millisecond}, total)
	assert.Equal(t, 30*time.Millisecond, over)
	assert.Equal(t, 20*time.Millisecond, l.Within(1, base.Add(22*time.Millisecond), base.Add(25*time.Millisecond)))
	assert.Zero(t, l.Within(1, base.Add(time.Second), base.Add(2*time.Second)), "far from the steal")
	assert.Equal(t, 10*time.Millisecond, l.Within(0, base.Add(25*time.Millisecond), base.Add(26*time.Millisecond)), "CPU 0 alone")
	assert.Equal(t, 20*time.Millisecond, l.Within(-1, base, base.Add(30*time.Millisecond)), "any CPU: the most one had")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Error(t, l.Run(ctx), "a reading that fails ends the log with its error")
}
