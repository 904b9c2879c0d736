package sim_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

func TestDisplay(t *testing.T) {
	var rec recorder
	d := sim.NewDisplay(sim.DisplayOptions{Observer: rec.observe})
	ctx := context.Background()
	require.NoError(t, d.Show(ctx, device.View{Name: "menu", Layer: 2, Kind: device.ViewText, Text: "Hi"}))
	require.NoError(t, d.Hide(ctx, 2, "other"), "hiding what is not shown is not an error")
	layers := d.Layers()
	require.NotNil(t, layers[2])
	assert.Equal(t, "Hi", layers[2].Text)
	require.NoError(t, d.Hide(ctx, 2, "menu"))
	assert.Nil(t, d.Layers()[2])
	assert.Equal(t, []string{"display/show", "display/hide"}, rec.kinds())

	for _, bad := range []struct {
		v    device.View
		want string
	}{
		{device.View{Layer: 5, Kind: device.ViewEye}, "layer 5 outside 0..4"},
		{device.View{Kind: "HOLOGRAM"}, `unknown view kind "HOLOGRAM"`},
		{device.View{Kind: device.ViewEye, Overlay: "blur"}, `overlay "blur"`},
	} {
		assert.ErrorContains(t, d.Show(ctx, bad.v), bad.want)
	}
	assert.ErrorContains(t, d.Hide(ctx, -1, "x"), "layer -1 outside")
	require.NoError(t, d.Check(ctx))
	require.NoError(t, d.Close())
	assert.ErrorIs(t, d.Show(ctx, device.View{Kind: device.ViewEye}), device.ErrClosed)
	assert.ErrorIs(t, d.Check(ctx), device.ErrClosed)
}

// The simulated speaker plays PCM in real time and reports each write.
func TestPCMSink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		s, err := sim.NewPCMSink(sim.PCMSinkOptions{Observer: rec.observe})
		require.NoError(t, err)
		assert.Equal(t, device.PCMFormat{SampleRate: 16000, Channels: 1}, s.Format())
		samples := make([]int16, 8000) // half a second
		samples[10] = -16384
		start := time.Now()
		require.NoError(t, s.Write(context.Background(), samples))
		assert.Equal(t, 500*time.Millisecond, time.Since(start))
		assert.Equal(t, 500*time.Millisecond, s.Played())
		ev := rec.all()
		require.Len(t, ev, 1)
		assert.Equal(t, int64(500), ev[0].Values["ms"])
		assert.Equal(t, 0.5, ev[0].Values["peak"])

		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		assert.ErrorIs(t, s.Write(ctx, samples), context.DeadlineExceeded)
		assert.Equal(t, 600*time.Millisecond, s.Played())
		assert.Equal(t, "interrupted", rec.all()[2].Kind)
	})
}

func TestPCMSinkErrors(t *testing.T) {
	_, err := sim.NewPCMSink(sim.PCMSinkOptions{Format: device.PCMFormat{SampleRate: 100, Channels: 1}})
	assert.ErrorContains(t, err, "sample rate 100 Hz outside 8000..192000")
	_, err = sim.NewPCMSink(sim.PCMSinkOptions{Format: device.PCMFormat{SampleRate: 8000, Channels: 9}})
	assert.ErrorContains(t, err, "9 channels outside 1..8")
	s, err := sim.NewPCMSink(sim.PCMSinkOptions{Format: device.PCMFormat{SampleRate: 8000, Channels: 2}, Instant: true})
	require.NoError(t, err)
	ctx := context.Background()
	assert.ErrorContains(t, s.Write(ctx, make([]int16, 3)), "not a whole number of 2-channel frames")
	assert.ErrorContains(t, s.Write(ctx, make([]int16, sim.MaxPCMWrite+2)), "limit")
	require.NoError(t, s.Write(ctx, make([]int16, 16000)))
	assert.Equal(t, time.Second, s.Played())
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.Write(ctx, make([]int16, 2)), device.ErrClosed)
	assert.ErrorIs(t, s.Check(ctx), device.ErrClosed)
}

func TestSwitchAndButton(t *testing.T) {
	var rec recorder
	sw := sim.NewSwitch(sim.SwitchOptions{Name: "motor-power", Observer: rec.observe})
	ctx := context.Background()
	assert.False(t, sw.On())
	require.NoError(t, sw.Set(ctx, true))
	require.NoError(t, sw.Set(ctx, true))
	assert.True(t, sw.On())
	require.NoError(t, sw.Check(ctx))
	require.NoError(t, sw.Close())
	assert.ErrorIs(t, sw.Set(ctx, false), device.ErrClosed)

	b := sim.NewButton(sim.ButtonOptions{Name: "stop", Observer: rec.observe})
	assert.Equal(t, "stop", b.Name())
	b.Press()
	b.Press()
	assert.True(t, b.Pressed())
	b.Release()
	assert.Equal(t, []string{"motor-power/set", "button.stop/press", "button.stop/release"}, rec.kinds())
}
