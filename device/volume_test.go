package device_test

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
)

// recordSink keeps what is written to it.
type recordSink struct {
	mu     sync.Mutex
	writes [][]int16
}

func (s *recordSink) Format() device.PCMFormat {
	return device.PCMFormat{SampleRate: 16000, Channels: 1}
}

func (s *recordSink) Write(_ context.Context, samples []int16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, append([]int16(nil), samples...))
	return nil
}

func (s *recordSink) last() []int16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes[len(s.writes)-1]
}

func TestVolumeScalesSamples(t *testing.T) {
	in := []int16{0, 1, -1, 1000, -1000, 32767, -32768}
	tests := []struct {
		gain float64
		want []int16
	}{
		{1, in},
		{0.5, []int16{0, 1, 0, 500, -500, 16384, -16384}},
		{0.1, []int16{0, 0, 0, 100, -100, 3277, -3277}},
		{0, []int16{0, 0, 0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		sink := &recordSink{}
		v, err := device.NewVolume(sink, tt.gain, nil)
		require.NoError(t, err)
		require.NoError(t, v.Write(context.Background(), in))
		assert.Equal(t, tt.want, sink.last(), "gain %v", tt.gain)
	}
	assert.Equal(t, []int16{0, 1, -1, 1000, -1000, 32767, -32768}, in, "the caller's samples are untouched")
}

// TestVolumeSetGainReports: a change is reported as a device event; an
// invalid gain is refused and changes nothing.
func TestVolumeSetGainReports(t *testing.T) {
	var events []device.Event
	sink := &recordSink{}
	v, err := device.NewVolume(sink, 1, func(e device.Event) { events = append(events, e) })
	require.NoError(t, err)
	assert.Equal(t, device.PCMFormat{SampleRate: 16000, Channels: 1}, v.Format())

	require.NoError(t, v.SetGain(0.25))
	assert.Equal(t, 0.25, v.Gain())
	require.Len(t, events, 1)
	assert.Equal(t, device.VolumeName, events[0].Device)
	assert.Equal(t, "set", events[0].Kind)
	assert.Equal(t, map[string]any{"gain": 0.25}, events[0].Values)

	for _, bad := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		assert.ErrorContains(t, v.SetGain(bad), "want 0..1")
	}
	assert.Equal(t, 0.25, v.Gain())
	assert.Len(t, events, 1)

	_, err = device.NewVolume(sink, 2, nil)
	assert.ErrorContains(t, err, "gain 2: want 0..1")
	_, err = device.NewVolume(nil, 1, nil)
	assert.ErrorContains(t, err, "no sink")
}

// TestVolumeConcurrent: writes and gain changes from many goroutines
// (run with -race); every write is scaled by one gain, never a mix.
func TestVolumeConcurrent(t *testing.T) {
	sink := &recordSink{}
	v, err := device.NewVolume(sink, 1, nil)
	require.NoError(t, err)
	in := make([]int16, 256)
	for i := range in {
		in[i] = 20000
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				if i%2 == 0 {
					assert.NoError(t, v.SetGain(float64(j%3)/2))
				} else {
					assert.NoError(t, v.Write(context.Background(), in))
				}
			}
		})
	}
	wg.Wait()
	for _, w := range sink.writes {
		for _, s := range w {
			assert.Equal(t, w[0], s)
		}
		assert.Contains(t, []int16{0, 10000, 20000}, w[0])
	}
}

func BenchmarkVolumeWrite(b *testing.B) {
	v, err := device.NewVolume(discard{}, 0.5, nil)
	require.NoError(b, err)
	samples := make([]int16, 1600) // 100 ms at 16 kHz
	b.ReportAllocs()
	for b.Loop() {
		_ = v.Write(context.Background(), samples)
	}
}

type discard struct{}

func (discard) Format() device.PCMFormat             { return device.PCMFormat{SampleRate: 16000, Channels: 1} }
func (discard) Write(context.Context, []int16) error { return nil }
