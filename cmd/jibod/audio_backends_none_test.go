//go:build !portaudio

package main

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without the portaudio tag a PortAudio speaker is refused with the
// reason, before the robot starts.
func TestSpeakerNeedsPortaudio(t *testing.T) {
	_, err := speechConfig{Speaker: "portaudio"}.apply(&bodyOptions{}, slog.New(slog.DiscardHandler))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-tags portaudio")
}
