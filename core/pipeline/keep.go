package pipeline

import (
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
// once, when the orchestrator is built; Save after each commit that
// changed the context, with the whole of it. Neither may block for long.
type ContextKeeper interface {
	LoadContext() (map[string]any, error)
	SaveContext(intentContext map[string]any) error
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
	o.keepMu.Lock()
	o.kept = o.storedContext()
	o.keepMu.Unlock()
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

// keepContext saves the default store's intent context when it changed
// since it was last saved.
func (o *Orchestrator) keepContext() {
	if o.cfg.Keeper == nil {
		return
	}
	o.keepMu.Lock()
	defer o.keepMu.Unlock()
	ic := o.storedContext()
	if reflect.DeepEqual(ic, o.kept) || len(ic) == 0 && len(o.kept) == 0 {
		return
	}
	if err := o.cfg.Keeper.SaveContext(ic); err != nil {
		o.log.Warn("keeping the intent context", "err", err)
		return
	}
	o.kept = ic
}
