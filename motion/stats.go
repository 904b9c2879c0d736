package motion

import (
	"sync/atomic"
	"time"
)

// Lateness histogram: bucket i counts ticks that started between
// i·latenessBucket and (i+1)·latenessBucket late; the last bucket counts
// everything later.
const (
	latenessBucket  = 10 * time.Microsecond
	latenessBuckets = 10000 // up to 100 ms
)

// Stats describes the control loop's timing since it started or since
// ResetStats.
type Stats struct {
	// Ticks is how many ticks ran.
	Ticks uint64 `json:"ticks"`
	// Missed is how many ticks were skipped because the loop was more than
	// a period late.
	Missed uint64 `json:"missed"`
	// P50, P99 and Max are the lateness of tick starts: how long after its
	// scheduled time a tick began. Percentiles are accurate to 10 µs.
	P50 time.Duration `json:"p50"`
	P99 time.Duration `json:"p99"`
	Max time.Duration `json:"max"`
	// LongestRun is the longest a tick took to run, from its start to its
	// motors commanded.
	LongestRun time.Duration `json:"longest_run"`
	// MissedRunning counts the missed ticks that followed a tick that ran
	// longer than it started late: the tick's own doing (a motor, or a
	// wait inside the tick), not the scheduler's wake-up.
	MissedRunning uint64 `json:"missed_running"`
	// Misses takes apart the first MissRecords late ticks after which
	// ticks were missed, in order: one for each such tick, however many
	// it skipped.
	Misses []Miss `json:"misses,omitempty"`
}

// latency records tick lateness without allocating or locking: the loop is
// the only writer, readers take a consistent-enough snapshot.
type latency struct {
	buckets [latenessBuckets]atomic.Uint32
	ticks   atomic.Uint64
	missed  atomic.Uint64
	max     atomic.Int64
	run     atomic.Int64
	running atomic.Uint64
	// misses[:nmiss] are the first missed ticks taken apart (explain).
	misses [MissRecords]missRecord
	nmiss  atomic.Uint64
}

// ran records how long a tick ran.
func (l *latency) ran(d time.Duration) {
	if int64(d) > l.run.Load() {
		l.run.Store(int64(d))
	}
}

// miss records n ticks skipped after a tick; slow says the tick ran
// longer than it started late.
func (l *latency) miss(n uint64, slow bool) {
	l.missed.Add(n)
	if slow {
		l.running.Add(n)
	}
}

func (l *latency) record(late time.Duration) {
	if late < 0 {
		late = 0
	}
	i := int(late / latenessBucket)
	if i >= latenessBuckets {
		i = latenessBuckets - 1
	}
	l.buckets[i].Add(1)
	l.ticks.Add(1)
	if int64(late) > l.max.Load() {
		l.max.Store(int64(late))
	}
}

func (l *latency) reset() {
	for i := range l.buckets {
		l.buckets[i].Store(0)
	}
	l.ticks.Store(0)
	l.missed.Store(0)
	l.max.Store(0)
	l.run.Store(0)
	l.running.Store(0)
	l.nmiss.Store(0)
}

func (l *latency) snapshot() Stats {
	s := Stats{Ticks: l.ticks.Load(), Missed: l.missed.Load(), Max: time.Duration(l.max.Load()),
		LongestRun: time.Duration(l.run.Load()), MissedRunning: l.running.Load(), Misses: l.missesSnapshot()}
	var counts [latenessBuckets]uint32
	total := uint64(0)
	for i := range l.buckets {
		counts[i] = l.buckets[i].Load()
		total += uint64(counts[i])
	}
	if total == 0 {
		return s
	}
	s.P50 = percentile(counts[:], total, 0.50, s.Max)
	s.P99 = percentile(counts[:], total, 0.99, s.Max)
	return s
}

// percentile returns the upper edge of the bucket holding quantile q,
// capped by the exact maximum.
func percentile(counts []uint32, total uint64, q float64, maxSeen time.Duration) time.Duration {
	rank := uint64(q*float64(total) + 0.5)
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range counts {
		seen += uint64(c)
		if seen >= rank {
			return min(time.Duration(i+1)*latenessBucket, maxSeen)
		}
	}
	return maxSeen
}
