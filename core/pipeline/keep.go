package pipeline

import (
	"reflect"

	"github.com/openjibo/jibod/core/session"
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
