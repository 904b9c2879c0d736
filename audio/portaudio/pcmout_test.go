package portaudio

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
)

// The board's sound output, stereo at 16 kHz, plays on the device at its
// own rate: what the robot says reaches the speaker, mixed to mono.
func TestPCMOutPlaysTheBoardsSound(t *testing.T) {
	f := newFake(analog)
	s, err := NewHost(f, quiet()).OpenSink(context.Background(), "ALC892", SinkOptions{})
	require.NoError(t, err)
	out, err := NewPCMOut(s, device.PCMFormat{SampleRate: 16000, Channels: 2})
	require.NoError(t, err)
	assert.Equal(t, device.PCMFormat{SampleRate: 16000, Channels: 2}, out.Format())

	mono := tone16(16000, 1000, 8000, 16000/2)
	stereo := make([]int16, 0, 2*len(mono))
	for _, v := range mono {
		stereo = append(stereo, v, v)
	}
	require.NoError(t, out.Write(context.Background(), stereo))
	require.Len(t, f.played, 1)
	cfg := f.opened[len(f.opened)-1]
	played := f.played[0]
	if cfg.Channels == 2 {
		left := make([]int16, 0, len(played)/2)
		for i := 0; i+1 < len(played); i += 2 {
			left = append(left, played[i])
		}
		played = left
	}
	assert.InDelta(t, cfg.Rate/2, len(played), float64(4*cfg.Frames), "half a second at the device's rate")
	assert.InDelta(t, 8000, level(played[400:cfg.Rate/2-400], cfg.Rate, 1000), 80)

	err = out.Write(context.Background(), []int16{1, 2, 3})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not whole frames")

	_, err = NewPCMOut(s, device.PCMFormat{SampleRate: 0, Channels: 1})
	assert.Error(t, err)
	_, err = NewPCMOut(nil, device.PCMFormat{SampleRate: 16000, Channels: 1})
	assert.Error(t, err)
}
