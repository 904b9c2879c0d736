package main

import (
	"context"
	"math"

	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/device"
)

// volumeRangeDB is the span of the volume setting: level 1 of 10 is about
// 36 dB below full, level 5 20 dB below. Loudness is heard on a
// logarithmic scale, so equal steps of the setting sound like equal steps.
const volumeRangeDB = 40

// masterVolume lets the volume skill drive the body's master volume: the
// skill's volume v in 0..1 is a gain of 10^((v-1)·range/20), and 0 is
// silence.
type masterVolume struct{ d *device.Volume }

// volumeControl is the body's master volume for the volume skill, nil
// when the body has no sound output.
func volumeControl(d *device.Volume) volume.Control {
	if d == nil {
		return nil
	}
	return masterVolume{d}
}

// Volume returns the setting of the current gain.
func (m masterVolume) Volume() float64 {
	g := m.d.Gain()
	if g <= 0 {
		return 0
	}
	return min(max(1+20*math.Log10(g)/volumeRangeDB, 0), 1)
}

// SetVolume sets the gain of setting v (0..1).
func (m masterVolume) SetVolume(_ context.Context, v float64) error {
	g := 0.0
	if v > 0 {
		g = math.Pow(10, (min(v, 1)-1)*volumeRangeDB/20)
	}
	return m.d.SetGain(g)
}
