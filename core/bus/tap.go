package bus

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// Tap writes every message it is handed as one JSON object per line
// ({"type","data","context"}), for traces and tools. Subscribe its Handle
// method with the Block policy so the trace is complete.
type Tap struct {
	mu   sync.Mutex
	w    *bufio.Writer
	log  *slog.Logger
	err  error
	sync bool
}

// NewTap returns a tap writing to w. With flushEach, every line is flushed as
// it is written (for live viewing); otherwise call Flush.
func NewTap(w io.Writer, flushEach bool, log *slog.Logger) *Tap {
	if log == nil {
		log = slog.Default()
	}
	return &Tap{w: bufio.NewWriterSize(w, 64<<10), log: log, sync: flushEach}
}

// Handle writes one message; it has the Handler signature.
func (t *Tap) Handle(_ context.Context, m Message) {
	b, err := EncodeJSON(m)
	if err != nil {
		t.log.Warn("tap: message not recorded", "topic", m.Type, "err", err)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	if _, err := t.w.Write(append(b, '\n')); err != nil {
		t.err = fmt.Errorf("writing trace: %w", err)
		t.log.Error("tap stopped", "err", t.err)
		return
	}
	if t.sync {
		if err := t.w.Flush(); err != nil {
			t.err = fmt.Errorf("flushing trace: %w", err)
		}
	}
}

// Flush writes buffered lines and returns the first write error, if any.
func (t *Tap) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	if err := t.w.Flush(); err != nil {
		t.err = fmt.Errorf("flushing trace: %w", err)
	}
	return t.err
}
