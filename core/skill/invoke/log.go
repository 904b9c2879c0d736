package invoke

import "sync"

// Bounds of the in-memory log.
const (
	// DefaultLogCapacity is the number of records a Log keeps by default.
	DefaultLogCapacity = 500
	// MaxLogCapacity bounds a Log's capacity.
	MaxLogCapacity = 100_000
)

// Log keeps the newest records in memory, in a ring of fixed capacity. It
// is a Recorder, safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	buf   []Record
	next  int // where the next record goes
	full  bool
	total uint64
}

// NewLog returns a log keeping the newest capacity records: 0 or less
// means DefaultLogCapacity, more than MaxLogCapacity means MaxLogCapacity.
func NewLog(capacity int) *Log {
	switch {
	case capacity <= 0:
		capacity = DefaultLogCapacity
	case capacity > MaxLogCapacity:
		capacity = MaxLogCapacity
	}
	return &Log{buf: make([]Record, capacity)}
}

// Record keeps r, dropping the oldest record when the log is full.
func (l *Log) Record(r Record) {
	l.mu.Lock()
	l.buf[l.next] = r
	l.next++
	if l.next == len(l.buf) {
		l.next, l.full = 0, true
	}
	l.total++
	l.mu.Unlock()
}

// List returns the records f selects, newest first.
func (l *Log) List(f Filter) []Record {
	f = f.normalize()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.next
	if l.full {
		n = len(l.buf)
	}
	var out []Record
	for i := range n {
		r := &l.buf[(l.next-1-i+len(l.buf))%len(l.buf)]
		if !f.match(r) {
			continue
		}
		out = append(out, *r)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out
}

// Len returns how many records the log holds now.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.full {
		return len(l.buf)
	}
	return l.next
}

// Cap returns the log's capacity.
func (l *Log) Cap() int { return len(l.buf) }

// Total returns how many records the log has been given, dropped ones
// included.
func (l *Log) Total() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}
