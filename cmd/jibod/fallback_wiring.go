package main

import (
	"context"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/builtin/fallback"
)

// stackGuesser finds what an utterance nothing claimed might have meant,
// for the fallback skill to ask about: the intent stack's guess (a parse
// below the claiming bands, or a paraphrase too unsure to act on).
type stackGuesser struct{ stack *intent.Stack }

func (g stackGuesser) Guess(ctx context.Context, utterance, lang string) (fallback.Guess, bool) {
	c, ok, err := g.stack.Guess(ctx, intent.Query{Hypotheses: intent.Texts(utterance), Lang: lang, Session: session.Empty()})
	if err != nil || !ok {
		return fallback.Guess{}, false
	}
	return fallback.Guess{SkillID: c.SkillID, IntentName: c.IntentName, Slots: c.Slots, Missing: c.Missing}, true
}
