package main

import (
	"context"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/builtin/fallback"
)

// guessTiers are the guarded tiers whose refusals the fallback skill asks
// about, surest first: a match too unsure to act on is worth a question.
var guessTiers = []string{"templates-medium", "templates-low", "keywords-low"}

// tierGuesser finds what an utterance nothing matched might have meant:
// the match a guarded intent tier refused as implausible. The engines
// never match without a required slot (they drop samples that do not bind
// one), so its guesses never miss a part; skills ask for their own.
type tierGuesser struct{ tiers []*intent.TierPlugin }

func newTierGuesser(e *intentEngines) tierGuesser {
	var g tierGuesser
	for _, id := range guessTiers {
		if t, ok := e.tiers[id].(*intent.TierPlugin); ok {
			g.tiers = append(g.tiers, t)
		}
	}
	return g
}

func (g tierGuesser) Guess(ctx context.Context, utterance, lang string) (fallback.Guess, bool) {
	for _, t := range g.tiers {
		ref, err := t.Refused(ctx, []string{utterance}, lang, session.Empty())
		if err != nil || ref == nil {
			continue
		}
		return fallback.Guess{SkillID: ref.Match.SkillID, IntentName: ref.Match.IntentName, Slots: ref.Match.Slots}, true
	}
	return fallback.Guess{}, false
}
