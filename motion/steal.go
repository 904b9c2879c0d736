package motion

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Steal time is what a virtual machine's hypervisor took from its
// virtual CPUs: time a CPU had work and the host ran something else. The
// kernel counts it per CPU in /proc/stat, in clock ticks (USER_HZ, 100 a
// second on Linux); on bare metal it stays 0.

// userHZ is the unit of /proc/stat's times: Linux reports them in 1/100 s
// whatever its own tick.
const userHZ = 100

// DefaultStealEvery is how often a StealLog reads the counters: about
// their own resolution.
const DefaultStealEvery = 10 * time.Millisecond

// maxStealChanges bounds what a StealLog keeps.
const maxStealChanges = 100000

// maxProcStat bounds how much of /proc/stat is read.
const maxProcStat = 1 << 20

// parseSteal returns each CPU's steal time from /proc/stat's text, by
// CPU number.
func parseSteal(b []byte) (map[int]time.Duration, error) {
	out := map[int]time.Duration{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxProcStat)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(f[0][3:])
		if err != nil || cpu < 0 {
			return nil, fmt.Errorf("/proc/stat: bad CPU %q", f[0])
		}
		// cpuN user nice system idle iowait irq softirq steal ...
		if len(f) < 9 {
			return nil, fmt.Errorf("/proc/stat: %s: no steal column", f[0])
		}
		ticks, err := strconv.ParseUint(f[8], 10, 63)
		if err != nil {
			return nil, fmt.Errorf("/proc/stat: %s: steal %q: %w", f[0], f[8], err)
		}
		out[cpu] = time.Duration(ticks) * (time.Second / userHZ)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("/proc/stat: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("/proc/stat: no CPU lines")
	}
	return out, nil
}

// ReadSteal returns each CPU's steal time since boot (/proc/stat), by
// CPU number.
func ReadSteal() (map[int]time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil, fmt.Errorf("reading the steal time: %w", err)
	}
	return parseSteal(b)
}

// StealLog records the machine's steal time while it runs: in all, and
// when it grew, so that a missed tick can be matched with the steal
// around it. Its zero value is not usable; NewStealLog makes one.
type StealLog struct {
	every time.Duration
	read  func() (map[int]time.Duration, error)
	now   func() time.Time

	mu          sync.Mutex
	first, last map[int]time.Duration
	start, at   time.Time
	changes     []stealChange // the first maxStealChanges
}

// stealChange is steal counted on one CPU between two readings.
type stealChange struct {
	from, to time.Time
	cpu      int
	d        time.Duration
}

// NewStealLog returns a log that reads /proc/stat every period (0:
// DefaultStealEvery) while Run runs.
func NewStealLog(every time.Duration) *StealLog {
	if every <= 0 {
		every = DefaultStealEvery
	}
	return &StealLog{every: every, read: ReadSteal, now: time.Now}
}

// Run reads the counters until ctx ends. It returns the first error
// reading them, or nil; on an error nothing more is recorded.
func (l *StealLog) Run(ctx context.Context) error {
	if err := l.sample(); err != nil {
		return err
	}
	tk := time.NewTicker(l.every)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return l.sample()
		case <-tk.C:
			if err := l.sample(); err != nil {
				return err
			}
		}
	}
}

func (l *StealLog) sample() error {
	s, err := l.read()
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		return err
	}
	if l.first == nil {
		l.first, l.last, l.start, l.at = s, s, now, now
		return nil
	}
	for cpu, d := range s {
		if grew := d - l.last[cpu]; grew > 0 {
			if len(l.changes) < maxStealChanges {
				l.changes = append(l.changes, stealChange{from: l.at, to: now, cpu: cpu, d: grew})
			}
		}
	}
	l.last, l.at = s, now
	return nil
}

// Total returns each CPU's steal time between the first reading and the
// last, by CPU number, and how long that was; nil before two readings.
func (l *StealLog) Total() (map[int]time.Duration, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil || !l.at.After(l.start) {
		return nil, 0
	}
	out := make(map[int]time.Duration, len(l.last))
	for cpu, d := range l.last {
		out[cpu] = d - l.first[cpu]
	}
	return out, l.at.Sub(l.start)
}

// stealSlack widens the window Within looks at: the kernel adds steal to
// a CPU's count at its next tick after the host ran it again, and a
// reading can come late.
const stealSlack = 20 * time.Millisecond

// Within returns the steal counted on cpu between two readings that
// overlap from..to, widened by a little (the kernel counts steal after
// the fact, at its next tick). A negative cpu means any: the most any
// one CPU had.
func (l *StealLog) Within(cpu int, from, to time.Time) time.Duration {
	from, to = from.Add(-stealSlack), to.Add(stealSlack)
	l.mu.Lock()
	defer l.mu.Unlock()
	per := map[int]time.Duration{}
	for _, c := range l.changes {
		if (cpu < 0 || c.cpu == cpu) && c.to.After(from) && c.from.Before(to) {
			per[c.cpu] += c.d
		}
	}
	var most time.Duration
	for _, d := range per {
		most = max(most, d)
	}
	return most
}
