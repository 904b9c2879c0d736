package skill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/registry"
)

// DefaultRegisterTimeout bounds waiting for the intent service to confirm a
// skill's registrations. The service handles every skill's registrations in
// order before it answers, which on a busy board takes seconds; the bound
// is there to name a service that is not running, not to time it.
const DefaultRegisterTimeout = 30 * time.Second

// Register announces every skill's intents and entities from its locale on
// the registration topics (INTENT-4), as any skill would, and checks that
// the engines accepted them (intent.RegisterLocale). An intent that was
// refused is an error naming it (the service logs why, REG-08). A
// ContextGated skill's intents carry its requires_context (CTX-11).
func (h *Host) Register(ctx context.Context) error {
	for _, m := range h.Skills() {
		s, ok := h.skill(m.BusID())
		if !ok {
			continue // removed meanwhile
		}
		if err := h.register(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// loadedLocale is a Skill that read and checked its locale tree when it
// was built (the built-in skills, for their dialogs): its first
// registration takes that tree instead of reading the files again.
type loadedLocale interface {
	// TakeLoadedLocale returns the tree, or nil once it has been taken.
	TakeLoadedLocale() *intent.Locale
}

func (h *Host) register(ctx context.Context, s Skill) error {
	id := s.Manifest().BusID()
	fsys := s.Locale()
	if fsys == nil {
		return nil
	}
	var loc *intent.Locale
	if l, ok := s.(loadedLocale); ok {
		loc = l.TakeLoadedLocale()
	}
	if loc == nil {
		// As ovos-core does, a bad file is refused and the rest of the
		// skill loads; the refusal is logged and `jibod skills check`
		// shows it.
		var err error
		if loc, err = intent.LoadLocaleTolerant(intent.LocaleLayer{FS: fsys, Root: "."}); err != nil {
			return fmt.Errorf("skill %s: loading locale: %w", id, err)
		}
	}
	for _, f := range loc.Refused() {
		h.log.Warn("skill locale file refused", "skill_id", id, "file", f.Path, "reason", strings.Join(f.Reasons, "; "))
	}
	var extra map[string]map[string]any
	if g, ok := s.(ContextGated); ok {
		extra = map[string]map[string]any{}
		for in, keys := range g.RequiredContext() {
			refs := make([]any, len(keys))
			for i, k := range keys {
				refs[i] = k // private to the skill (CTX-11)
			}
			extra[in] = map[string]any{"requires_context": refs}
		}
	}
	n, err := intent.RegisterLocaleWith(ctx, h.cfg.Bus, loc, id, intent.RegisterOptions{
		Extra: extra, Keywords: KeywordDecls(s.Manifest()), Timeout: DefaultRegisterTimeout})
	var refused *intent.RefusedError
	switch {
	case errors.As(err, &refused) && n > 0:
		h.log.Warn("skill intents not registered; the others are", "skill_id", id, "error", err)
	case err != nil:
		return fmt.Errorf("registering intents: %w", err)
	}
	if n > 0 {
		h.log.Info("skill registered", "skill_id", id, "intents", n)
	}
	return nil
}

// KeywordDecls returns the keyword intents a manifest declares, in the form
// the intent package registers them.
func KeywordDecls(m *registry.Manifest) []intent.KeywordDecl {
	if m == nil {
		return nil
	}
	out := make([]intent.KeywordDecl, 0, len(m.KeywordIntents))
	for _, k := range m.KeywordIntents {
		out = append(out, intent.KeywordDecl{Name: k.Name, Require: k.Require, Optionally: k.Optionally,
			OneOf: k.OneOf, Exclude: k.Exclude})
	}
	return out
}
