package skill

import (
	"context"
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/intent"
)

// DefaultRegisterTimeout bounds waiting for the intent service to confirm a
// skill's registrations.
const DefaultRegisterTimeout = 5 * time.Second

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

func (h *Host) register(ctx context.Context, s Skill) error {
	id := s.Manifest().BusID()
	fsys := s.Locale()
	if fsys == nil {
		return nil
	}
	loc, err := intent.LoadLocale(fsys, ".")
	if err != nil {
		return fmt.Errorf("skill %s: loading locale: %w", id, err)
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
	n, err := intent.RegisterLocaleExtra(ctx, h.cfg.Bus, loc, id, extra, DefaultRegisterTimeout)
	if err != nil {
		return fmt.Errorf("registering intents: %w", err)
	}
	if n > 0 {
		h.log.Info("skill registered", "skill_id", id, "intents", n)
	}
	return nil
}
