package main

import (
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline/scenario"
)

// startIntentStack builds the robot's intent stack on b and starts its
// registration service. The robot, `jibod intents match` and the scenario
// runner all get theirs here.
func startIntentStack(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error) {
	st, err := intent.NewStack(intent.StackConfig{Bus: b, Logger: log, Explain: explain})
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
	return intent.NewStack(intent.StackConfig{Bus: b, Logger: log})
}
