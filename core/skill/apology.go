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
	if _, err := h.act(actx, t, jcp.NewAction(jcp.Say("<sfx name='error'/>"+text))); err != nil {
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
