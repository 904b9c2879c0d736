package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/session"
)

// Limits of an intent context entry a skill writes (CONTEXT-1), which a
// kept entry is held to again when it is read back.
const (
	// MaxContextTurns caps how many utterances an entry may live for.
	MaxContextTurns = 100
	// MaxContextTTL caps how long an entry may live.
	MaxContextTTL = 24 * time.Hour
)

// ContextKeeper keeps the default session's intent context (CONTEXT-1)
// across restarts of the robot, as skills' conversations and timers are
// kept: a follow-up gated on context ("cancel it" right after a timer was
// set) still matches within its window after a restart. Load is asked
// once, when the orchestrator is built. Save is given the whole context
// after commits that changed it, on the orchestrator's own writer, never
// on an utterance's path: it may be slow (a disk write), and it should
// give up when ctx ends.
type ContextKeeper interface {
	LoadContext() (map[string]any, error)
	SaveContext(ctx context.Context, intentContext map[string]any) error
}

// restoreContext puts the kept intent context into the default store;
// entries malformed or dead by now are dropped (CTX-04), as a match round
// would drop them.
func (o *Orchestrator) restoreContext() {
	ic, err := o.cfg.Keeper.LoadContext()
	if err != nil {
		o.log.Warn("kept intent context unreadable; starting without it", "err", err)
		return
	}
	ic = boundKept(ic, o.cfg.Now())
	if len(ic) == 0 {
		return
	}
	s, warns, err := session.Parse(map[string]any{session.FieldSessionID: session.DefaultID, session.FieldIntentContext: ic})
	if err != nil {
		o.log.Warn("kept intent context refused; starting without it", "err", err)
		return
	}
	for _, w := range warns {
		o.log.Warn("kept intent context", "warning", w)
	}
	s, _ = s.PruneContext(nowSeconds(o.cfg.Now()), o.cfg.MaxContextEntries)
	o.store.Merge(s)
	o.keep.last = o.storedContext()
}

// boundKept is the kept intent context ic as it may come back at now:
// an entry that would never count down (no turns_remaining) is dropped,
// as the file may be stale or edited; turns and expiry are capped at what
// a skill could have set now (MaxContextTurns, now + MaxContextTTL).
// Entries of the wrong shape are left for session.Parse to refuse.
func boundKept(ic map[string]any, now time.Time) map[string]any {
	out := make(map[string]any, len(ic))
	latest := float64(now.Add(MaxContextTTL).Unix())
	for k, v := range ic {
		e, ok := v.(map[string]any)
		if !ok {
			out[k] = v
			continue
		}
		turns, ok := e["turns_remaining"]
		if !ok || turns == nil {
			continue
		}
		b := make(map[string]any, len(e))
		for f, x := range e {
			b[f] = x
		}
		switch n := turns.(type) {
		case float64:
			if n > MaxContextTurns {
				b["turns_remaining"] = float64(MaxContextTurns)
			}
		case int64:
			if n > MaxContextTurns {
				b["turns_remaining"] = int64(MaxContextTurns)
			}
		}
		if at, ok := e["expires_at"].(float64); ok && at > latest {
			b["expires_at"] = latest
		}
		out[k] = b
	}
	return out
}

// storedContext is the default store's intent context, nil for none.
func (o *Orchestrator) storedContext() map[string]any {
	v, _ := o.store.Get().Get(session.FieldIntentContext)
	ic, _ := v.(map[string]any)
	return ic
}

// keepContext hands the default store's intent context to the writer
// when it changed since it was last handed over; it never waits for a
// save.
func (o *Orchestrator) keepContext() {
	if o.keep != nil {
		o.keep.submit(o.storedContext())
	}
}

// keepWriter saves the intent context off the utterances' path: a turn
// hands it a snapshot and goes on, and one goroutine saves the latest.
// A snapshot handed over while another is being saved replaces any still
// waiting, so a slow disk holds back no turn and nothing queues up.
type keepWriter struct {
	keeper ContextKeeper
	log    *slog.Logger

	mu sync.Mutex
	// last is the snapshot handed over last, sequence seq; known says
	// whether last is saved or on its way (false until the first one and
	// after a failed save, so the same context is handed over again).
	last  map[string]any
	known bool
	seq   uint64
	// pending waits to be saved when due.
	pending map[string]any
	due     bool
	wake    chan struct{} // one slot: the writer has something to save

	cancel context.CancelFunc // the writer's context: its saves give up
	stop   chan struct{}
	done   chan struct{}
}

func newKeepWriter(k ContextKeeper, log *slog.Logger, last map[string]any) *keepWriter {
	return &keepWriter{keeper: k, log: log, last: last, known: true, wake: make(chan struct{}, 1)}
}

// submit hands ic over to be saved unless it is what was handed over last.
func (w *keepWriter) submit(ic map[string]any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.known && sameIntentContext(ic, w.last) {
		return
	}
	w.last, w.known, w.seq = ic, true, w.seq+1
	w.pending, w.due = ic, true
	select {
	case w.wake <- struct{}{}:
	default: // already woken: it will find the newest pending
	}
}

// sameIntentContext reports whether two intent contexts are equal, none and
// empty alike.
func sameIntentContext(a, b map[string]any) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// start runs the writer until flush.
func (w *keepWriter) start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.stop, w.done = cancel, make(chan struct{}), make(chan struct{})
	go w.run(ctx, w.stop, w.done)
}

func (w *keepWriter) run(ctx context.Context, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-stop: // first: a flush saves the newest anyway
			w.saveDue(ctx)
			return
		default:
		}
		select {
		case <-w.wake:
			w.saveDue(ctx)
		case <-stop:
			w.saveDue(ctx)
			return
		}
	}
}

// saveDue saves the pending snapshot, if one is due. A failed save is
// logged; the next snapshot handed over is saved as usual.
func (w *keepWriter) saveDue(ctx context.Context) {
	w.mu.Lock()
	ic, due, seq := w.pending, w.due, w.seq
	w.pending, w.due = nil, false
	w.mu.Unlock()
	if !due || ctx.Err() != nil { // after a flush gave up: nothing more is tried
		return
	}
	err := w.keeper.SaveContext(ctx, ic)
	if err == nil {
		return
	}
	w.log.Warn("keeping the intent context", "err", err)
	w.mu.Lock()
	if w.seq == seq {
		w.known = false // nothing newer: the same context is tried again
	}
	w.mu.Unlock()
}

// flush stops the writer once it saved what is pending, waiting until ctx
// ends; then its save is told to give up, and flush says so.
func (w *keepWriter) flush(ctx context.Context) error {
	if w.stop == nil {
		return nil
	}
	close(w.stop)
	defer func() { w.stop, w.done = nil, nil }()
	select {
	case <-w.done:
		w.cancel()
		return nil
	case <-ctx.Done():
		w.cancel()
		select {
		case <-w.done:
			return nil
		default:
			return fmt.Errorf("pipeline: the intent context was not saved before close: %w", ctx.Err())
		}
	}
}
