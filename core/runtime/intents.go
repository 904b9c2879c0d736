package runtime

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/intent/paraphrase"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/builtin/fallback"
)

// Trainer is how the paraphrase tier trains (paraphrase.TierOptions):
// nil is its own training; processes that start many robots on the same
// skills remember the models (paraphrase.Memo).
type Trainer = func(ctx context.Context, tag string, intents []paraphrase.Intent, o paraphrase.Options) (*paraphrase.Model, error)

// NewIntentStack builds the robot's intent stack: the template and keyword
// engines, the registration service on b (none when b is nil), and the
// paraphrase tier. The robot and the intent tools all get theirs here.
func NewIntentStack(b *bus.Bus, log *slog.Logger, explain bool, trainer Trainer) (*intent.Stack, error) {
	st, _, err := paraphrase.NewStack(intent.StackConfig{Bus: b, Logger: log, Explain: explain},
		paraphrase.TierOptions{Trainer: trainer})
	return st, err
}

// StartIntentStack builds the intent stack on b and starts it: its
// registration service, and the learning of what registers.
func StartIntentStack(b *bus.Bus, log *slog.Logger, explain bool, trainer Trainer) (*intent.Stack, error) {
	st, err := NewIntentStack(b, log, explain, trainer)
	if err != nil {
		return nil, err
	}
	if err := st.Start(); err != nil {
		return nil, fmt.Errorf("starting the intent service: %w", err)
	}
	return st, nil
}

// stackGuesser finds what an utterance nothing claimed might have meant,
// for the fallback skill to ask about: the intent stack's guess (a parse
// below the claiming bands, a paraphrase too unsure to act on, or a
// fragment that only names a skill's topic). It also understands the
// answer to a topic's choices (fallback.Understander).
type stackGuesser struct{ stack *intent.Stack }

var _ fallback.Understander = stackGuesser{}

func (g stackGuesser) Guess(ctx context.Context, utterance, lang string) (fallback.Guess, bool) {
	c, ok, err := g.stack.Guess(ctx, intent.Query{Hypotheses: intent.Texts(utterance), Lang: lang, Session: session.Empty()})
	if err != nil || !ok {
		return fallback.Guess{}, false
	}
	return fallback.Guess{SkillID: c.SkillID, IntentName: c.IntentName, Slots: c.Slots, Missing: c.Missing, Topic: c.Topic, Determiner: c.Determiner}, true
}

// Understand takes an answer as a request: what the stack would claim of
// it among skillID's intents, else among all, or an intent of theirs whose
// required part was not said. An answer that is only a value ("five
// minutes") completes the one intent of skillID's whose requests are
// about a slot it fills (intent.Stack.Fills): the topic named the skill,
// the answer says the rest. Nothing else: a guess is no request, and a
// value two intents could take is neither's.
func (g stackGuesser) Understand(ctx context.Context, utterance, lang, skillID string) (fallback.Guess, bool) {
	for _, only := range []string{skillID, ""} {
		q := intent.Query{Hypotheses: intent.Texts(utterance), Lang: lang, Session: session.Empty(), Skill: only}
		m, _, _, err := g.stack.Claim(ctx, q)
		if err != nil {
			return fallback.Guess{}, false
		}
		if m != nil {
			return fallback.Guess{SkillID: m.SkillID, IntentName: m.IntentName, Slots: m.Slots}, true
		}
		if c, ok, err := g.stack.Guess(ctx, q); err == nil && ok && len(c.Missing) > 0 {
			return fallback.Guess{SkillID: c.SkillID, IntentName: c.IntentName, Slots: c.Slots, Missing: c.Missing}, true
		}
		if only != "" {
			if fs := g.stack.Fills(ctx, q); len(fs) == 1 {
				return fallback.Guess{SkillID: fs[0].SkillID, IntentName: fs[0].IntentName, Slots: map[string]string{fs[0].Slot: fs[0].Value}}, true
			}
		}
		if only == "" {
			break
		}
	}
	return fallback.Guess{}, false
}
