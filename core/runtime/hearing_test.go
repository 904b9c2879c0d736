package runtime

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

// The robot starts its ear when the configuration names an audio source;
// Close stops it and releases the recogniser once. Without an audio
// source there is no ear, and waiting on it waits for the run to end.
func TestRobotOwnsItsEar(t *testing.T) {
	freed := 0
	r, err := newTestRobot(context.Background(), Config{StateDir: NoState, Hearing: hearing.Config{Audio: "null"},
		Recognizer: func(context.Context, hearing.Parts, hearing.Options) (audio.Recognizer, func() error, error) {
			return silentASR{}, func() error { freed++; return nil }, nil
		}})
	require.NoError(t, err)
	require.NotNil(t, r.Hearing().Listener())
	require.NoError(t, r.Close(context.Background()))
	assert.Equal(t, 1, freed, "the recogniser is released with the robot")

	quiet := startRobot(t, Config{StateDir: NoState})
	assert.Nil(t, quiet.Hearing())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.NoError(t, quiet.Hearing().Wait(ctx), "no ear: the run ends when it is stopped")
}

// A recogniser that cannot be built fails New, naming the audio source
// and the reason.
func TestRobotWithoutARecogniserDoesNotStart(t *testing.T) {
	boom := errors.New("no model")
	_, err := newTestRobot(context.Background(), Config{StateDir: NoState, Hearing: hearing.Config{Audio: "null"},
		Recognizer: func(context.Context, hearing.Parts, hearing.Options) (audio.Recognizer, func() error, error) {
			return nil, nil, boom
		}})
	require.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "--audio null")
}
