package motion

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
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

// maxStealCPUs bounds the CPU numbers /proc/stat may name.
const maxStealCPUs = 8192

// noCPU marks, in a reading, a CPU number /proc/stat did not list.
const noCPU time.Duration = -1

// parseSteal reads each CPU's steal time from /proc/stat's text into
// into (reused), indexed by CPU number; numbers not listed hold noCPU.
// It allocates nothing unless into must grow: the sampler runs inside the
// process whose ticks it explains.
func parseSteal(b []byte, into []time.Duration) ([]time.Duration, error) {
	out := into[:0]
	found := false
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) < 4 || !bytes.HasPrefix(line, []byte("cpu")) || line[3] == ' ' {
			continue
		}
		// cpuN user nice system idle iowait irq softirq steal ...
		name, rest := nextField(line)
		cpu, ok := parseDigits(name[3:])
		if !ok || cpu >= maxStealCPUs {
			return nil, fmt.Errorf("/proc/stat: bad CPU %q", name)
		}
		var f []byte
		for range 8 {
			f, rest = nextField(rest)
		}
		if len(f) == 0 {
			return nil, fmt.Errorf("/proc/stat: %s: no steal column", name)
		}
		ticks, ok := parseDigits(f)
		if !ok || ticks > math.MaxInt64/int64(time.Second/userHZ) {
			return nil, fmt.Errorf("/proc/stat: %s: bad steal %q", name, f)
		}
		for int64(len(out)) <= cpu {
			out = append(out, noCPU)
		}
		out[cpu] = time.Duration(ticks) * (time.Second / userHZ)
		found = true
	}
	if !found {
		return nil, fmt.Errorf("/proc/stat: no CPU lines")
	}
	return out, nil
}

// nextField splits off the first space-separated field of b.
func nextField(b []byte) (field, rest []byte) {
	b = bytes.TrimLeft(b, " ")
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		return b[:i], b[i:]
	}
	return b, nil
}

// parseDigits reads a decimal number of at most 18 digits.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// procStat reads /proc/stat into a buffer kept between readings.
type procStat struct {
	f   *os.File
	buf []byte
}

func openProcStat() (*procStat, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return nil, fmt.Errorf("reading the steal time: %w", err)
	}
	return &procStat{f: f, buf: make([]byte, 16<<10)}, nil
}

// read returns each CPU's steal time, into into (parseSteal).
func (p *procStat) read(into []time.Duration) ([]time.Duration, error) {
	for {
		n, err := p.f.ReadAt(p.buf, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading the steal time: %w", err)
		}
		if n < len(p.buf) {
			return parseSteal(p.buf[:n], into)
		}
		if len(p.buf) >= maxProcStat {
			return nil, fmt.Errorf("reading the steal time: /proc/stat is over %d bytes", maxProcStat)
		}
		p.buf = make([]byte, 2*len(p.buf))
	}
}

func (p *procStat) Close() error { return p.f.Close() }

// StealLog records the machine's steal time while it runs: in all, and
// when it grew, so that a missed tick can be matched with the steal
// around it. Its zero value is not usable; NewStealLog makes one.
type StealLog struct {
	every time.Duration
	// read returns a reading into the slice it is given (parseSteal);
	// nil: /proc/stat, opened by Run.
	read func([]time.Duration) ([]time.Duration, error)
	now  func() time.Time

	mu          sync.Mutex
	first, last []time.Duration // by CPU number; noCPU where not listed
	spare       []time.Duration // the next reading's memory
	start, at   time.Time
	changes     []stealChange // the first maxStealChanges
}

// stealChangesAhead is the room made for changes before Run, so that a
// little steal does not make the sampler allocate.
const stealChangesAhead = 256

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
	return &StealLog{every: every, now: time.Now, changes: make([]stealChange, 0, stealChangesAhead)}
}

// Run reads the counters until ctx ends. It returns the first error
// reading them, or nil; on an error nothing more is recorded.
func (l *StealLog) Run(ctx context.Context) error {
	if l.read == nil {
		p, err := openProcStat()
		if err != nil {
			return err
		}
		defer p.Close()
		l.read = p.read
		defer func() { l.read = nil }()
	}
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
	s, err := l.read(l.spare)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		return err
	}
	if l.first == nil {
		l.first = append([]time.Duration(nil), s...)
		l.last, l.start, l.at = s, now, now
		return nil
	}
	for cpu, d := range s {
		if d == noCPU || cpu >= len(l.last) || l.last[cpu] == noCPU {
			continue
		}
		if grew := d - l.last[cpu]; grew > 0 && len(l.changes) < maxStealChanges {
			l.changes = append(l.changes, stealChange{from: l.at, to: now, cpu: cpu, d: grew})
		}
	}
	l.last, l.spare, l.at = s, l.last, now
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
		if d != noCPU && cpu < len(l.first) && l.first[cpu] != noCPU {
			out[cpu] = d - l.first[cpu]
		}
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
