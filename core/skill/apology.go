package skill

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
	text := "Sorry, something went wrong."
	if m, err := h.cfg.Registry.Get(t.skillID); err == nil {
		if name := SpokenName(m); name != "" {
			text = "Sorry, something went wrong with " + esmlText(name) + "."
		}
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), apologyTimeout)
	defer cancel()
	if _, err := h.act(actx, t, jcp.NewAction(jcp.Say("<sfx name='error'/>"+text))); err != nil {
		h.log.Warn("apologising for a failed skill", "skill_id", t.skillID, "err", err)
	}
}

// esmlText escapes text for ESML.
var esmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace
