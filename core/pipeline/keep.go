package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
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
// on an utterance's path: it may be slow (a disk write). It must return
// promptly once ctx ends (within one step such as an fsync): Close waits
// for it.
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
	o.keep.saved = o.storedContext()
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

// keepContext tells the writer the intent context may have changed; it
// never waits for a save.
func (o *Orchestrator) keepContext() {
	if o.keep != nil {
		o.keep.submit()
	}
}

// finalSaveBound is the least time the last save at close is given, even
// when Close's ctx is spent already: the last context is still tried once.
const finalSaveBound = time.Second

// stuckWriterBound is how long after Close's ctx ends flush still waits
// for the writer: the save under way giving up, then the last save within
// finalSaveBound. A disk stuck beyond it (a write the kernel cannot
// interrupt) must not hold back the rest of shutdown, such as putting the
// motors at rest, so the writer is then left to finish on its own.
const stuckWriterBound = 5 * time.Second

// keepWriter saves the intent context off the utterances' path: a turn
// only wakes it, and its one goroutine reads the store itself and saves
// what it finds when that differs from what it saved last. So the newest
// context is what ends up saved, whatever order turns committed in; a
// slow disk holds back no turn, and nothing queues up.
type keepWriter struct {
	keeper ContextKeeper
	read   func() map[string]any
	log    *slog.Logger

	// saved is the context saved last; known says it is what is kept
	// (false after a failed save, so the next wake tries again). Only the
	// writer's goroutine uses them once it runs.
	saved map[string]any
	known bool

	wake chan struct{} // one slot: the context may have changed

	cancel context.CancelFunc // the writer's context: the save under way gives up
	final  context.Context    // flush's ctx, set before stop is closed
	stop   chan struct{}
	done   chan struct{}
	err    error // the last save's at close, set before done is closed
	stuck  bool  // a flush gave up waiting: the writer is left to itself
}

func newKeepWriter(k ContextKeeper, log *slog.Logger, read func() map[string]any) *keepWriter {
	return &keepWriter{keeper: k, log: log, read: read, known: true, wake: make(chan struct{}, 1)}
}

// submit wakes the writer.
func (w *keepWriter) submit() {
	select {
	case w.wake <- struct{}{}:
	default: // already woken: it reads the newest context anyway
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
	go w.run(ctx)
}

func (w *keepWriter) run(ctx context.Context) {
	defer close(w.done)
	for {
		select {
		case <-w.stop: // first: a flush saves the newest anyway
			w.err = w.saveLast()
			return
		default:
		}
		select {
		case <-w.wake:
			if err := w.save(ctx); err != nil {
				w.log.Warn("intent context not saved", "err", err)
			}
		case <-w.stop:
			w.err = w.saveLast()
			return
		}
	}
}

// saveLast saves the context once more at close, within flush's deadline
// or finalSaveBound from now, whichever ends later (finalSaveBound when
// flush's ctx has no deadline or has ended).
func (w *keepWriter) saveLast() error {
	end := time.Now().Add(finalSaveBound)
	if d, ok := w.final.Deadline(); ok && d.After(end) && w.final.Err() == nil {
		end = d
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(w.final), end)
	defer cancel()
	return w.save(ctx)
}

// save saves the store's context unless it is what was saved last. After
// a failure the same context is tried again on the next wake.
func (w *keepWriter) save(ctx context.Context) error {
	ic := w.read()
	if w.known && sameIntentContext(ic, w.saved) {
		return nil
	}
	if err := w.keeper.SaveContext(ctx, ic); err != nil {
		w.known = false
		return err
	}
	w.saved, w.known = ic, true
	return nil
}

// flush stops the writer once it saved the last context and says whether
// that save failed. When ctx ends first, the save under way is told to
// give up and the last one is still tried once (saveLast); flush waits
// for the writer until stuckWriterBound after ctx ends (keepers return
// promptly once their ctx ends), then says the writer did not stop and
// leaves it to finish on its own.
func (w *keepWriter) flush(ctx context.Context) error {
	if w.stuck {
		return errors.New("pipeline: the intent context writer did not stop at an earlier close")
	}
	if w.stop == nil {
		return nil
	}
	w.final = ctx
	close(w.stop)
	giveUp := context.AfterFunc(ctx, w.cancel)
	select {
	case <-w.done:
	case <-ctx.Done():
		t := time.NewTimer(stuckWriterBound)
		select {
		case <-w.done:
			t.Stop()
		case <-t.C:
			w.stuck = true
			return fmt.Errorf("pipeline: the intent context writer did not stop within %v of close's end: %w", stuckWriterBound, ctx.Err())
		}
	}
	giveUp()
	w.cancel()
	w.stop, w.done = nil, nil
	if w.err != nil {
		return fmt.Errorf("pipeline: the last intent context was not saved at close: %w", w.err)
	}
	return nil
}
