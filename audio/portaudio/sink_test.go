package portaudio

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
)

func tone16(rate int, hz, amp float64, n int) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(amp * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return out
}

func TestSinkPlaysConverted(t *testing.T) {
	f := newFake(hdmi, analog, usbMic)
	f.monoFails = true // HDMI takes stereo
	s, err := NewHost(f, quiet()).OpenSink(context.Background(), "", SinkOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Write(context.Background(), tone16(22050, 1000, 9000, 22050/2), 22050))

	require.Len(t, f.played, 1)
	out := f.played[0]
	cfg := f.opened[len(f.opened)-1]
	assert.Equal(t, hdmi.Name, cfg.Device.Name)
	assert.Equal(t, 2, cfg.Channels)
	assert.Equal(t, 44100, cfg.Rate)
	assert.Zero(t, len(out)%(cfg.Frames*cfg.Channels), "whole blocks")
	assert.InDelta(t, 44100/2*2, len(out), float64(4*cfg.Frames*cfg.Channels), "half a second, two channels")
	var left, right []int16
	for i := 0; i+1 < len(out); i += 2 {
		left, right = append(left, out[i]), append(right, out[i+1])
	}
	assert.Equal(t, left, right, "mono on both channels")
	assert.InDelta(t, 9000, level(left[400:44100/2-400], 44100, 1000), 90)
	assert.Equal(t, 1, f.drained, "played to the end")
	assert.Equal(t, f.inits, f.terms, "the device is given back after each write")

	require.NoError(t, s.Write(context.Background(), nil, 16000), "nothing to play")
	assert.Len(t, f.played, 1)
}

func TestSinkStopsWhenCancelled(t *testing.T) {
	f := newFake(analog)
	s, err := NewHost(f, quiet()).OpenSink(context.Background(), "ALC892", SinkOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	f.onWrite = func(n int) {
		if n == 3 {
			cancel() // barge-in after three blocks
		}
	}
	err = s.Write(ctx, tone16(16000, 500, 5000, 16000), 16000)
	require.ErrorIs(t, err, context.Canceled)
	cfg := f.opened[0]
	assert.Len(t, f.played[0], 3*cfg.Frames*cfg.Channels, "nothing written after the cancel")
	assert.Equal(t, 1, f.aborted, "the rest is dropped, not drained")
	assert.Equal(t, f.inits, f.terms)
}

func TestSinkDeviceVanishesAndReturns(t *testing.T) {
	f := newFake(analog, usbMic)
	s, err := NewHost(f, quiet()).OpenSink(context.Background(), "ALC892", SinkOptions{})
	require.NoError(t, err)
	f.onWrite = func(n int) {
		if n == 2 {
			f.unplug(analog.Name)
		}
	}
	pcm := tone16(16000, 500, 5000, 8000)
	err = s.Write(context.Background(), pcm, 16000)
	require.ErrorContains(t, err, `playing on "HDA Intel PCH: ALC892 Analog (hw:0,0)": device unplugged`)
	assert.Equal(t, 1, f.aborted)

	err = s.Write(context.Background(), pcm, 16000)
	require.ErrorContains(t, err, `"ALC892": no output devices present`)
	assert.ErrorIs(t, err, ErrNoDevice)

	f.onWrite = nil
	f.plug(analog)
	require.NoError(t, s.Write(context.Background(), pcm, 16000), "playing again once it is back")
	assert.Equal(t, f.inits, f.terms)
	assert.False(t, f.overlap)
}

func TestSinkRefuses(t *testing.T) {
	f := newFake(analog)
	h := NewHost(f, quiet())
	_, err := h.OpenSink(context.Background(), "USB", SinkOptions{})
	assert.ErrorIs(t, err, ErrNoDevice)
	_, err = h.OpenSink(context.Background(), "", SinkOptions{Chunk: 1})
	assert.ErrorContains(t, err, "want 5 to 200 ms")

	s, err := h.OpenSink(context.Background(), "1", SinkOptions{})
	require.NoError(t, err)
	assert.ErrorContains(t, s.Write(context.Background(), []int16{1}, 1000), "rate 1000 Hz")
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.Write(context.Background(), []int16{1}, 16000), audio.ErrClosed)
	assert.Empty(t, f.played)
}
