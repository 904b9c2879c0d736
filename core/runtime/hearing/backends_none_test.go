//go:build !portaudio

package hearing

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without the portaudio tag a PortAudio speaker is refused with the
// reason, before the robot starts.
func TestSpeakerNeedsPortaudio(t *testing.T) {
	_, _, err := Speech{Speaker: "portaudio"}.Open(slog.New(slog.DiscardHandler))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-tags portaudio")
}
