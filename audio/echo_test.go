package audio

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
)

// memPCM is a sound output that keeps what it is given.
type memPCM struct {
	f   device.PCMFormat
	got []int16
}

func (m *memPCM) Format() device.PCMFormat { return m.f }
func (m *memPCM) Write(_ context.Context, s []int16) error {
	m.got = append(m.got, s...)
	return nil
}

func TestPlaybackMeter(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	now := t0
	m := NewPlaybackMeter(func() time.Time { return now })
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	assert.True(t, math.IsInf(m.Level(at(0), at(time.Hour)), -1), "nothing played")

	out := &memPCM{f: device.PCMFormat{SampleRate: 16000, Channels: 2}}
	p := NewMeteredPCM(out, m)
	assert.Equal(t, out.f, p.Format())
	loud := make([]int16, 2*8000) // half a second, stereo
	for i := range loud {
		loud[i] = 16384 // -6 dBFS
	}
	require.NoError(t, p.Write(context.Background(), loud))
	assert.Len(t, out.got, len(loud), "played")
	now = at(time.Second)
	m.Played(make([]int16, 16000), 1, 16000) // a second of silence

	assert.InDelta(t, -6.02, m.Level(at(100*time.Millisecond), at(200*time.Millisecond)), 0.01, "while the loud piece played")
	assert.InDelta(t, -6.02, m.Level(at(400*time.Millisecond), at(1500*time.Millisecond)), 0.01, "the loudest piece overlapping")
	assert.True(t, math.IsInf(m.Level(at(600*time.Millisecond), at(900*time.Millisecond)), -1), "between pieces")
	assert.True(t, math.IsInf(m.Level(at(1100*time.Millisecond), at(1900*time.Millisecond)), -1), "silence played")

	for range 2 * maxMeterPieces {
		m.Played(loud, 2, 16000)
	}
	assert.Len(t, m.pieces, maxMeterPieces, "bounded")
	m.Played(nil, 1, 16000)
	m.Played(loud, 0, 16000)
	assert.Len(t, m.pieces, maxMeterPieces, "nothing to record")
}
