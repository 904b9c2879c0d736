package diag

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Log book limits.
const (
	// DefaultLogCapacity is how many records a LogBook keeps.
	DefaultLogCapacity = 1000
	// maxLogMsg and maxLogAttrs bound one record's message and attributes
	// in the book (the process log itself is not cut).
	maxLogMsg   = 1024
	maxLogAttrs = 2048
	// maxFollowers bounds live `log follow` readers.
	maxFollowers = 16
	// followQueue is each follower's queue; a follower that falls behind
	// loses records (counted) rather than slow the robot's logging.
	followQueue = 256
)

// LogEntry is one log record as the shell shows it.
type LogEntry struct {
	Time    time.Time  `json:"time"`
	Level   slog.Level `json:"level"`
	Message string     `json:"msg"`
	// Attrs are the record's attributes, "key=value" in order, groups
	// joined with dots.
	Attrs []string `json:"attrs,omitempty"`
}

// Line formats e as the shell prints it.
func (e LogEntry) Line() string {
	var b strings.Builder
	b.WriteString(e.Time.Format("15:04:05.000"))
	b.WriteByte(' ')
	lv := e.Level.String()
	b.WriteString(lv)
	b.WriteString(strings.Repeat(" ", max(5-len(lv), 0)+1))
	b.WriteString(e.Message)
	for _, a := range e.Attrs {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

// LogBook keeps the runtime's newest log records for the shell (`log`,
// the last errors of `status`) and hands new ones to live followers
// (`log follow`). Its Handler tees a process logger into it. Safe for
// concurrent use.
type LogBook struct {
	// keep is the lowest level the book keeps; records below it reach
	// only followers that asked for them.
	keep slog.Level

	mu      sync.Mutex
	ring    []LogEntry
	next    int
	full    bool
	follows map[*logFollower]struct{}
	// followMin is the lowest level any follower wants (a large value
	// when there are none), read without the lock by Enabled.
	followMin atomic.Int64
}

type logFollower struct {
	min     slog.Level
	ch      chan LogEntry
	dropped atomic.Uint64
}

// NewLogBook returns a book keeping the newest capacity records at keep
// and above (0 capacity means DefaultLogCapacity).
func NewLogBook(capacity int, keep slog.Level) *LogBook {
	if capacity <= 0 {
		capacity = DefaultLogCapacity
	}
	b := &LogBook{keep: keep, ring: make([]LogEntry, capacity), follows: map[*logFollower]struct{}{}}
	b.followMin.Store(int64(slog.LevelError + 100))
	return b
}

func (b *LogBook) wants(l slog.Level) bool {
	return l >= b.keep || int64(l) >= b.followMin.Load()
}

func (b *LogBook) add(e LogEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.Level >= b.keep {
		b.ring[b.next] = e
		b.next++
		if b.next == len(b.ring) {
			b.next, b.full = 0, true
		}
	}
	for f := range b.follows {
		if e.Level < f.min {
			continue
		}
		select {
		case f.ch <- e:
		default:
			f.dropped.Add(1)
		}
	}
}

// Recent returns up to n of the newest kept records at min and above,
// oldest first (n <= 0: all of them).
func (b *LogBook) Recent(min slog.Level, n int) []LogEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	var all []LogEntry
	if b.full {
		all = append(all, b.ring[b.next:]...)
	}
	all = append(all, b.ring[:b.next]...)
	var out []LogEntry
	for i := len(all) - 1; i >= 0 && (n <= 0 || len(out) < n); i-- {
		if all[i].Level >= min {
			out = append(out, all[i])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Follow delivers every new record at min and above until stop is called.
// dropped counts the records lost because the reader fell behind.
func (b *LogBook) Follow(min slog.Level) (entries <-chan LogEntry, dropped func() uint64, stop func(), err error) {
	f := &logFollower{min: min, ch: make(chan LogEntry, followQueue)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.follows) >= maxFollowers {
		return nil, nil, nil, errTooMany("log followers", maxFollowers)
	}
	b.follows[f] = struct{}{}
	b.refreshLocked()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.follows, f)
			b.refreshLocked()
			b.mu.Unlock()
		})
	}
	return f.ch, f.dropped.Load, stop, nil
}

func (b *LogBook) refreshLocked() {
	m := int64(slog.LevelError + 100)
	for f := range b.follows {
		m = min(m, int64(f.min))
	}
	b.followMin.Store(m)
}

// Handler returns a handler that passes every record next handles to next
// and also writes the records the book wants into it. next's own level
// still decides what reaches the process log.
func (b *LogBook) Handler(next slog.Handler) slog.Handler {
	return &teeHandler{book: b, next: next}
}

// teeHandler is LogBook.Handler.
type teeHandler struct {
	book   *LogBook
	next   slog.Handler
	prefix string   // group prefix for attributes, "a.b."
	attrs  []string // attributes added with WithAttrs, formatted
}

func (h *teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l) || h.book.wants(l)
}

func (h *teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r)
	}
	if h.book.wants(r.Level) {
		e := LogEntry{Time: r.Time, Level: r.Level, Message: clip(r.Message, maxLogMsg)}
		size := 0
		add := func(s string) {
			if size > maxLogAttrs {
				return
			}
			size += len(s)
			if size > maxLogAttrs {
				s = "..."
			}
			e.Attrs = append(e.Attrs, s)
		}
		for _, a := range h.attrs {
			add(a)
		}
		r.Attrs(func(a slog.Attr) bool {
			for _, s := range formatAttr(h.prefix, a) {
				add(s)
			}
			return true
		})
		h.book.add(e)
	}
	return err
}

func (h *teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	n := &teeHandler{book: h.book, next: h.next.WithAttrs(as), prefix: h.prefix, attrs: append([]string(nil), h.attrs...)}
	for _, a := range as {
		n.attrs = append(n.attrs, formatAttr(h.prefix, a)...)
	}
	return n
}

func (h *teeHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &teeHandler{book: h.book, next: h.next.WithGroup(name), prefix: h.prefix + name + ".", attrs: h.attrs}
}

// formatAttr renders a as key=value strings (a group gives one per member).
func formatAttr(prefix string, a slog.Attr) []string {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		var out []string
		for _, g := range v.Group() {
			out = append(out, formatAttr(p, g)...)
		}
		return out
	}
	if a.Key == "" {
		return nil
	}
	s := v.String()
	if s == "" || strings.ContainsAny(s, " \t\n\"=") || !utf8.ValidString(s) {
		s = strconv.Quote(s)
	}
	return []string{prefix + a.Key + "=" + clip(s, 256)}
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut with
// "..." (plain ASCII: the terminal may be a dumb one).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
