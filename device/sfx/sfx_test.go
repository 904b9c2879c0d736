package sfx_test

import (
	"context"
	"encoding/binary"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sfx"
	"github.com/openjibo/jibod/device/sim"
)

func wav(rate, channels int, samples ...int16) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVEfmt ")
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, uint16(channels))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*channels*2))
	b = binary.LittleEndian.AppendUint16(b, uint16(channels*2))
	b = binary.LittleEndian.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(2*len(samples)))
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

func TestPlayEffectsAndClips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink, err := sim.NewPCMSink(sim.PCMSinkOptions{})
		require.NoError(t, err)
		clips := fstest.MapFS{
			"hello.wav":  {Data: wav(16000, 1, make([]int16, 1600)...)},
			"stereo.wav": {Data: wav(16000, 2, 1, 2)},
			"junk.wav":   {Data: []byte("not a wave")},
		}
		p, err := sfx.NewPlayer(sink, clips)
		require.NoError(t, err)
		ctx := context.Background()
		start := time.Now()
		require.NoError(t, p.PlaySound(ctx, "sfx", "chime"))
		assert.Equal(t, 500*time.Millisecond, time.Since(start), "chime: two notes, 0.5 s")
		require.NoError(t, p.PlaySound(ctx, "audio", "/hello.wav"))
		assert.Equal(t, 600*time.Millisecond, sink.Played())

		tests := []struct{ kind, name, want string }{
			{"sfx", "kazoo", `play sfx "kazoo": unknown sound (have beep, boing, chime, click, error, success)`},
			{"audio", "missing.wav", "unknown sound: no clip missing.wav"},
			{"audio", "../../etc/passwd", "is not a path inside the clip folder"},
			{"audio", "stereo.wav", "clip is 16000 Hz × 2 channels, the speaker plays 16000 Hz × 1"},
			{"audio", "junk.wav", "not a RIFF/WAVE file"},
			{"video", "x", `sound kind "video"`},
		}
		for _, tt := range tests {
			err := p.PlaySound(ctx, tt.kind, tt.name)
			require.Error(t, err, tt.name)
			assert.Contains(t, err.Error(), tt.want)
		}
		assert.ErrorIs(t, p.PlaySound(ctx, "sfx", "kazoo"), sfx.ErrUnknown)
	})
}

func TestEveryEffectPlays(t *testing.T) {
	sink, err := sim.NewPCMSink(sim.PCMSinkOptions{Instant: true, Format: device.PCMFormat{SampleRate: 22050, Channels: 2}})
	require.NoError(t, err)
	p, err := sfx.NewPlayer(sink, nil)
	require.NoError(t, err)
	for _, n := range sfx.Names() {
		require.NoError(t, p.PlaySound(context.Background(), "sfx", n), n)
	}
	assert.Greater(t, sink.Played(), time.Second)
	_, err = sfx.NewPlayer(nil, nil)
	assert.Error(t, err)
}
