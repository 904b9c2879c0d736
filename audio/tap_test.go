package audio

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeMic is a capture backend yielding a steady tone.
type fakeMic struct {
	mu     sync.Mutex
	closed bool
}

func (m *fakeMic) Read(ctx context.Context, buf []int16) (int, error) {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return 0, ErrClosed
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(time.Millisecond):
	}
	n := min(len(buf), 160)
	for i := range n {
		buf[i] = 3277 // -20 dBFS
		if i%2 == 1 {
			buf[i] = -3277
		}
	}
	return n, nil
}

func (m *fakeMic) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return nil
}

func TestTapHearsWhatTheRobotHears(t *testing.T) {
	assert.Nil(t, NewTap("", nil), "nothing to hear or list: no audio on this robot")

	backends := map[string]Backend{"fake": {
		Open: func(context.Context, string) (Source, error) { return &fakeMic{}, nil },
		Devices: func(context.Context) ([]Device, error) {
			return []Device{{ID: "0", Name: "Mic", Default: true, Channels: 1, SampleRate: 16000}, {ID: "1", Name: "Line in"}}, nil
		},
	}}
	tap := NewTap("fake", backends)
	require.NotNil(t, tap)
	devs, err := tap.Devices(context.Background())
	require.NoError(t, err)
	require.Len(t, devs, 2)
	assert.True(t, devs[0].InUse, "the default device is the one --audio fake opens")
	assert.False(t, devs[1].InUse)

	_, err = tap.Level(context.Background(), 100*time.Millisecond)
	assert.ErrorContains(t, err, "is not a capture device the shell can listen to", "nothing opened yet")

	// The robot's listener opens the source through the tapped backend and
	// reads it; the shell hears the same samples.
	src, err := (&Opener{Backends: tap.Backends()}).Open(context.Background(), "fake")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]int16, 320)
		for {
			if _, err := src.Read(ctx, buf); err != nil {
				return
			}
		}
	}()
	lv, err := tap.Level(context.Background(), 50*time.Millisecond)
	require.NoError(t, err)
	assert.InDelta(t, -20, lv.RMS, 0.1)
	assert.InDelta(t, -20, lv.Peak, 0.1)

	var wav bytes.Buffer
	n, rate, err := tap.Record(context.Background(), 100*time.Millisecond, &wav)
	require.NoError(t, err)
	assert.Equal(t, 1600, n)
	assert.Equal(t, SampleRate, rate)
	clip, err := DecodeWAV(&wav)
	require.NoError(t, err)
	assert.Equal(t, 16000, clip.Format.SampleRate)
	assert.Len(t, clip.Samples, 1600)

	// Cancelled while listening: the shell stops, the robot's reading goes on.
	lctx, lcancel := context.WithCancel(context.Background())
	lcancel()
	_, err = tap.Level(lctx, time.Second)
	assert.True(t, errors.Is(err, context.Canceled))

	cancel()
	<-readerDone
	require.NoError(t, src.Close())
	_, err = tap.Level(context.Background(), 50*time.Millisecond)
	assert.Error(t, err, "the source is closed: nothing to hear")

	noAudio := NewTap("", backends)
	_, err = noAudio.Level(context.Background(), time.Millisecond)
	assert.EqualError(t, err, "no audio input in use: jibod runs without --audio")
	assert.True(t, strings.HasPrefix(tap.errNoLiveInput().Error(), "the robot's audio input (fake)"))
}

func TestPeakDBFS(t *testing.T) {
	tests := []struct {
		name    string
		samples []int16
		want    float64
	}{
		{"silence", []int16{0, 0}, math.Inf(-1)},
		{"nothing", nil, math.Inf(-1)},
		{"full scale negative", []int16{0, -32768}, 0},
		{"a tenth", []int16{-3277, 3276}, -20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PeakDBFS(tt.samples)
			if math.IsInf(tt.want, -1) {
				assert.True(t, math.IsInf(got, -1), "got %v", got)
				return
			}
			assert.InDelta(t, tt.want, got, 0.01)
		})
	}
}
