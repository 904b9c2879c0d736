package motion

import (
	"fmt"
	"sync/atomic"
	"time"
)

// threadTimes is what the kernel has counted for the loop's thread, read
// at one moment (threadAccount).
type threadTimes struct {
	onCPU     int64 // ns it ran
	queued    int64 // ns it waited, runnable, for a CPU (the run delay)
	waits     int64 // times it blocked (voluntary context switches)
	preempted int64 // times another task took its CPU (involuntary ones)
}

// Miss is one tick the loop missed, taken apart with the kernel's
// accounts of the loop's thread: which of the machine (the hypervisor,
// the timer, the kernel) and the process (the Go runtime, the tick's own
// code and its motors) made it late. Stats.Misses lists the first
// MissRecords of a run.
type Miss struct {
	// At is when the late tick started; Late how late, Ran how long it
	// ran; Skipped how many ticks were skipped after it.
	At      time.Time     `json:"at"`
	Late    time.Duration `json:"late"`
	Ran     time.Duration `json:"ran"`
	Skipped int           `json:"skipped"`
	// Accounted is false where the kernel's per-thread accounts could
	// not be read (not Linux, no real-time service, Go timers): then
	// nothing below is known.
	Accounted bool `json:"accounted"`
	// Of the wait before the tick: how long the thread, woken, waited
	// for a CPU (the kernel's run delay); how many times it blocked again
	// after its sleep (a wait for another thread of the process: the Go
	// runtime); how many times another task took its CPU.
	Queued    time.Duration `json:"queued"`
	Waits     int           `json:"waits"`
	Preempted int           `json:"preempted"`
	// Of the tick itself: the same, and how long it ran on a CPU.
	TickOnCPU     time.Duration `json:"tick_on_cpu"`
	TickQueued    time.Duration `json:"tick_queued"`
	TickWaits     int           `json:"tick_waits"`
	TickPreempted int           `json:"tick_preempted"`
	// Stolen is the time the hypervisor ran something else while the
	// loop's CPU had work, around the miss (the steal column of
	// /proc/stat, in 10 ms steps); the caller sets it (StealLog.Within).
	Stolen time.Duration `json:"stolen"`
}

// Blame says whose doing a missed tick was.
type Blame string

// What Miss.Verdict blames.
const (
	// BlameMachine: the hypervisor, the timer or the kernel made the
	// loop late; nothing in the process can help it.
	BlameMachine Blame = "machine"
	// BlameProcess: the process was late: the Go runtime kept the loop
	// waiting for another thread, or the tick itself (its code, a motor)
	// ran long.
	BlameProcess Blame = "process"
	// BlameUnknown: the kernel's accounts were not read.
	BlameUnknown Blame = "unknown"
)

// Verdict says whose doing the miss was, and why, in a few words.
func (m Miss) Verdict() (Blame, string) {
	if !m.Accounted {
		return BlameUnknown, "the loop thread's accounts were not read"
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	stolen := fmt.Sprintf("the hypervisor did not run the loop's CPU (%s stolen)", ms(m.Stolen))
	if m.Ran > m.Late {
		// The tick itself ran past its period.
		off := m.Ran - m.TickOnCPU - m.TickQueued
		// Steal is tested first: a motor call that blocks on its bus
		// counts as a wait in every tick, and would hide the hypervisor.
		switch {
		case m.Stolen > 0 && m.Stolen >= m.Ran/2:
			return BlameMachine, stolen + " during the tick"
		case m.TickWaits > 0:
			return BlameProcess, fmt.Sprintf("the tick, %s long, waited for another thread %d times (the Go runtime, or a motor call)", ms(m.Ran), m.TickWaits)
		case m.TickQueued >= m.Ran/2:
			return BlameMachine, fmt.Sprintf("the tick was put off its CPU for %s (%d times: the kernel, or a task of higher priority)", ms(m.TickQueued), m.TickPreempted)
		case off >= m.Ran/2:
			return BlameMachine, fmt.Sprintf("the tick, %s long, ran %s on its CPU: the CPU was not run (the hypervisor)", ms(m.Ran), ms(m.TickOnCPU))
		}
		return BlameProcess, fmt.Sprintf("the tick ran %s on its CPU (its code, or a motor driver)", ms(m.TickOnCPU))
	}
	timer := m.Late - m.Queued
	switch {
	case m.Stolen > 0 && m.Stolen >= m.Late/2:
		return BlameMachine, stolen
	case m.Waits > 0:
		return BlameProcess, fmt.Sprintf("after its sleep the loop waited for another thread %d times (the Go runtime)", m.Waits)
	case m.Queued >= timer:
		return BlameMachine, fmt.Sprintf("woken on time, it got its CPU %s later (a kernel that does not preempt, or a task of higher priority)", ms(m.Queued))
	}
	return BlameMachine, fmt.Sprintf("its timer woke it %s late (the timer's interrupt came late: the hypervisor, or interrupts held off)", ms(timer))
}

// MissRecords is how many missed ticks a run keeps taken apart
// (Stats.Misses): the first of the run.
const MissRecords = 64

// missRecord is a Miss as the loop writes it, in memory that a parent
// process may read: numbers only.
type missRecord struct {
	at, late, ran, skipped, accounted atomic.Int64
	queued, waits, preempted          atomic.Int64
	tickOnCPU, tickQueued, tickWaits  atomic.Int64
	tickPreempted                     atomic.Int64
}

// explain records a missed tick: it started at start, late, ran for ran,
// and skip ticks were skipped after it. done, woke and ran are the loop
// thread's accounts at the end of the tick before, after its sleep
// (which made sleeps calls) and at the end of this tick; nil where they
// were not read. Only the loop calls it; it allocates nothing.
func (l *latency) explain(start time.Time, late, ran time.Duration, skip uint64, sleeps int, acct *[3]threadTimes) {
	l.explainAt(l.nmiss.Load(), start, late, ran, skip, sleeps, acct)
}

// explainAt is explain writing record n, n having been read from nmiss
// before. A reset (ResetStats, from another goroutine or process) may
// have stored 0 since: the record is published only if nmiss is still
// n, so that a reset is never undone.
func (l *latency) explainAt(n uint64, start time.Time, late, ran time.Duration, skip uint64, sleeps int, acct *[3]threadTimes) {
	if n >= MissRecords {
		return
	}
	r := &l.misses[n]
	r.at.Store(start.UnixNano())
	r.late.Store(int64(late))
	r.ran.Store(int64(ran))
	r.skipped.Store(int64(skip))
	r.accounted.Store(0)
	if acct != nil {
		done, woke, end := &acct[0], &acct[1], &acct[2]
		r.accounted.Store(1)
		r.queued.Store(woke.queued - done.queued)
		r.waits.Store(max(woke.waits-done.waits-int64(sleeps), 0))
		r.preempted.Store(woke.preempted - done.preempted)
		r.tickOnCPU.Store(end.onCPU - woke.onCPU)
		r.tickQueued.Store(end.queued - woke.queued)
		r.tickWaits.Store(end.waits - woke.waits)
		r.tickPreempted.Store(end.preempted - woke.preempted)
	}
	l.nmiss.CompareAndSwap(n, n+1)
}

// missesSnapshot returns the misses recorded since the last reset.
func (l *latency) missesSnapshot() []Miss {
	n := min(l.nmiss.Load(), MissRecords)
	if n == 0 {
		return nil
	}
	out := make([]Miss, n)
	for i := range out {
		r := &l.misses[i]
		out[i] = Miss{At: time.Unix(0, r.at.Load()), Late: time.Duration(r.late.Load()), Ran: time.Duration(r.ran.Load()),
			Skipped: int(r.skipped.Load()), Accounted: r.accounted.Load() != 0,
			Queued: time.Duration(r.queued.Load()), Waits: int(r.waits.Load()), Preempted: int(r.preempted.Load()),
			TickOnCPU: time.Duration(r.tickOnCPU.Load()), TickQueued: time.Duration(r.tickQueued.Load()),
			TickWaits: int(r.tickWaits.Load()), TickPreempted: int(r.tickPreempted.Load())}
	}
	return out
}
