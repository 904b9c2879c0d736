package main

import (
	"cmp"
	"context"
	"errors"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

// paraphraseTrainer is how the paraphrase tier trains: nil (its own
// training) in jibod; the tests, which start many robots on the same
// skills in one process, remember the models (paraphrase.Memo).
var paraphraseTrainer runtime.Trainer

// robot is a running runtime with the voice it speaks with.
type robot struct {
	*runtime.Robot
	// speech is what the voice opened (the speaker, its recording),
	// closed after the robot.
	speech *hearing.Output
}

// newRobot opens the voice and builds and starts the runtime with it,
// this build's version and the paraphrase training.
func newRobot(ctx context.Context, rc runtime.Config, voice hearing.Speech) (*robot, error) {
	sound, sp, err := voice.Open(cmp.Or(rc.Log, slog.Default()))
	if err != nil {
		return nil, err
	}
	rc.Sound, rc.Version, rc.Trainer = sound, version, paraphraseTrainer
	rt, err := runtime.New(ctx, rc)
	if err != nil {
		return nil, errors.Join(err, sp.Close())
	}
	return &robot{Robot: rt, speech: sp}, nil
}

// Close stops the robot, then finishes the speaker recording and
// releases the speaker.
func (r *robot) Close(ctx context.Context) error {
	return errors.Join(r.Robot.Close(ctx), r.speech.Close())
}

// intentStack builds an intent stack with the paraphrase training.
func intentStack(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error) {
	return runtime.NewIntentStack(b, log, explain, paraphraseTrainer)
}
