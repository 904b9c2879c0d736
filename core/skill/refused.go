package skill

import (
	"context"
	"errors"

	"github.com/openjibo/jibod/core/skill/registry"
)

// TopicSkillRefused says that a skill call was refused rather than made or
// run: over one of the manifest's limits (calls_per_minute, when
// utterances come in a burst), or without a permission its request or
// action needs. It is derived from the dispatch, so it carries the
// utterance's context: {skill_id, intent_name, reason, error, and limit
// or permission; retry_after_ms for a rate limit}. The utterance's
// lifecycle still ends as a refusal does, with ovos.intent.handler.error
// and ovos.utterance.handled.
const TopicSkillRefused = "jibo.skill.refused"

// refused says on the bus that the skill call of turn t was refused, when
// err is a refusal.
func (h *Host) refused(ctx context.Context, t turn, intentName string, err error) {
	var d *registry.DeniedError
	if !errors.As(err, &d) {
		return
	}
	data := map[string]any{"skill_id": t.skillID, "intent_name": intentName, "reason": d.Reason, "error": err.Error()}
	if d.Limit != "" {
		data["limit"] = d.Limit
	}
	if d.Permission != "" {
		data["permission"] = string(d.Permission)
	}
	if d.RetryAfter > 0 {
		data["retry_after_ms"] = d.RetryAfter.Milliseconds()
	}
	m := t.origin.Forward(TopicSkillRefused, data)
	if perr := h.cfg.Bus.Publish(ctx, m); perr != nil {
		h.log.Warn("publishing a skill refusal", "skill_id", t.skillID, "err", perr)
	}
}
