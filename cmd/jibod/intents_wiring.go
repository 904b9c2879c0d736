package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/intent/paraphrase"
	"github.com/openjibo/jibod/core/pipeline/scenario"
)

// buildIntentStack builds the robot's intent stack: the template and keyword
// engines, the registration service on b (none when b is nil), and the
// paraphrase tier. The robot, `jibod intents match` and `eval` and the
// scenario runner all get theirs here.
func buildIntentStack(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error) {
	st, _, err := paraphrase.NewStack(intent.StackConfig{Bus: b, Logger: log, Explain: explain},
		paraphrase.TierOptions{Trainer: paraphraseTrainer})
	return st, err
}

// paraphraseTrainer is how the paraphrase tier trains: nil (its own
// training) in jibod; the tests, which start many robots on the same
// skills in one process, remember the models (paraphrase.Memo).
var paraphraseTrainer func(ctx context.Context, tag string, intents []paraphrase.Intent, o paraphrase.Options) (*paraphrase.Model, error)

// startIntentStack builds the intent stack on b and starts it: its
// registration service, and the learning of what registers.
func startIntentStack(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error) {
	st, err := buildIntentStack(b, log, explain)
	if err != nil {
		return nil, err
	}
	if err := st.Start(); err != nil {
		return nil, fmt.Errorf("starting the intent service: %w", err)
	}
	return st, nil
}

// scenarioIntents is the scenario runner's intent stack (scenario.Options).
func scenarioIntents(b *bus.Bus, log *slog.Logger) (scenario.IntentStack, error) {
	return buildIntentStack(b, log, false)
}
