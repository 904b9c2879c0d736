package skill

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// apologyTimeout bounds the apology: it is said even when the failed turn's
// own time ran out.
const apologyTimeout = 10 * time.Second

// maxSpokenName bounds a skill's name in the robot's speech, in runes.
const maxSpokenName = 60

// SpokenName is how the robot names a skill in a sentence: "the timer" for
// a one-word name, the name with its first letter lowered otherwise ("what
// I can do"); "" for a skill without a usable name.
func SpokenName(m *Manifest) string {
	if m == nil {
		return ""
	}
	name := strings.Join(strings.Fields(m.Name), " ")
	if name == "" || utf8.RuneCountInString(name) > maxSpokenName {
		return ""
	}
	if !strings.Contains(name, " ") {
		return "the " + strings.ToLower(name)
	}
	r, n := utf8.DecodeRuneInString(name)
	if next, _ := utf8.DecodeRuneInString(name[n:]); unicode.IsUpper(r) && !unicode.IsUpper(next) {
		name = string(unicode.ToLower(r)) + name[n:]
	}
	return name
}

// apologize says, in the robot's voice, that the skill of turn t failed
// (cause): no failure is only text on a console. It is not said when the
// failure is the robot stopping or being shut down.
func (h *Host) apologize(ctx context.Context, t turn, cause error) {
	if errors.Is(cause, errStopped) || errors.Is(context.Cause(ctx), errStopped) || h.baseCtx.Err() != nil {
		return
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return // cancelled by whoever asked (shutting down): nobody to tell
	}
	name := ""
	if m, err := h.cfg.Registry.Get(t.skillID); err == nil {
		name = esmlText(SpokenName(m))
	}
	text := apologyText(name, cause)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), apologyTimeout)
	defer cancel()
	a, err := jcp.Check(jcp.NewAction(jcp.Say("<sfx name='error'/>" + text)))
	if err == nil {
		_, err = h.act(actx, t, a)
	}
	if err != nil {
		h.log.Warn("apologising for a failed skill", "skill_id", t.skillID, "err", err)
	}
}

// apologyText is what the robot says when the skill called name ("" when
// it has none to say) failed with cause. A skill refused for being asked
// too often is not broken, only busy for a moment; anything else (an
// action beyond its permissions too) went wrong with the skill.
func apologyText(name string, cause error) string {
	var denied *registry.DeniedError
	switch {
	case errors.As(cause, &denied) && denied.RetryAfter > 0:
		if name == "" {
			return "Sorry, I can't do that again just yet. Please try again in a moment."
		}
		return "Sorry, " + name + " needs a moment. Please try again shortly."
	case name == "":
		return "Sorry, something went wrong."
	}
	return "Sorry, something went wrong with " + name + "."
}

// esmlText escapes text for ESML.
var esmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

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
