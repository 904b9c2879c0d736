package runtime

import (
	"context"
	"math"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

type nullSink struct{}

func (nullSink) Format() device.PCMFormat             { return device.PCMFormat{SampleRate: 16000, Channels: 1} }
func (nullSink) Write(context.Context, []int16) error { return nil }

// TestMasterVolumeScale: the volume setting maps to gain on a 40 dB
// scale, 0 being silence, and reads back as it was set.
func TestMasterVolumeScale(t *testing.T) {
	d, err := device.NewVolume(nullSink{}, 1, nil)
	require.NoError(t, err)
	c := VolumeControl(d, nil, nil)
	tests := []struct{ setting, gain float64 }{
		{1, 1}, {0.5, 0.1}, {0.1, math.Pow(10, -1.8)}, {0, 0},
	}
	for _, tt := range tests {
		require.NoError(t, c.SetVolume(context.Background(), tt.setting))
		assert.InDelta(t, tt.gain, d.Gain(), 1e-12, "setting %v", tt.setting)
		assert.InDelta(t, tt.setting, c.Volume(), 1e-12, "setting %v reads back", tt.setting)
	}
	assert.Nil(t, VolumeControl(nil, nil, nil), "no sound output, no volume control")
}

// TestSoundsGoThroughMasterVolume: the body's sound effects are played
// through the master volume, which reports its changes as device events.
func TestSoundsGoThroughMasterVolume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prof, err := board.Load("sim")
		require.NoError(t, err)
		var mu sync.Mutex
		var events []device.Event
		observe := func(e device.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		}
		ctx := context.Background()
		parts, err := OpenBody(ctx, prof, BodyOptions{Observe: observe, GoTimers: true})
		require.NoError(t, err)
		defer func() { require.NoError(t, parts.Close(ctx)) }()
		require.NotNil(t, parts.Volume)

		beep := func() float64 {
			_, err := parts.Exec.Run(ctx, jcp.NewAction(jcp.Say("<sfx name='beep'/>")))
			require.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			for i := len(events) - 1; i >= 0; i-- {
				if events[i].Device == "audio" && events[i].Kind == "play" {
					return events[i].Values["peak"].(float64)
				}
			}
			t.Fatal("no sound played")
			return 0
		}
		full := beep()
		require.NoError(t, VolumeControl(parts.Volume, nil, nil).SetVolume(ctx, 0.5))
		assert.InDelta(t, full/10, beep(), 0.001, "half the setting is a tenth of the amplitude (-20 dB)")
		mu.Lock()
		defer mu.Unlock()
		var set []any
		for _, e := range events {
			if e.Device == device.VolumeName {
				set = append(set, e.Values["gain"])
			}
		}
		assert.Len(t, set, 1)
		assert.InDelta(t, 0.1, set[0], 1e-12)
	})
}

// A new robot starts at volume 6 of 10, not at full; a volume the owner
// sets is kept in the state folder and is where the robot starts next time.
func TestVolumeStartsModerateAndIsKept(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	start := func() *Robot {
		r, err := newTestRobot(ctx, Config{StateDir: dir})
		require.NoError(t, err)
		return r
	}
	r := start()
	vc := VolumeControl(r.Body().Volume, r.Settings(), r.Log())
	assert.InDelta(t, 0.6, vc.Volume(), 1e-9, "level 6 of 10")
	require.NoError(t, vc.SetVolume(ctx, 0.3))
	require.NoError(t, r.Close(ctx))

	r = start()
	defer r.Close(ctx)
	assert.InDelta(t, 0.3, VolumeControl(r.Body().Volume, r.Settings(), r.Log()).Volume(), 1e-9, "kept across a restart")
}
