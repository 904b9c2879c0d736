package main

import (
	"context"
	"log/slog"
	"math"

	"github.com/openjibo/jibod/core/settings"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/device"
)

// defaultVolume is the volume setting of a new robot: level 6 of 10,
// comfortable in a room (full volume was too loud to start with).
const defaultVolume = 0.6

// volumeKey is the volume's setting in the settings file.
const volumeKey = "volume"

// settingsFileName is the settings file in the state folder.
const settingsFileName = "settings.json"

// startVolume is the volume setting to start at: the owner's, kept in
// the settings file, else defaultVolume.
func startVolume(s *settings.File) float64 {
	if s != nil {
		if v, ok := s.Number(volumeKey); ok && v >= 0 && v <= 1 {
			return v
		}
	}
	return defaultVolume
}

// gainOf is the gain of volume setting v (0..1): 10^((v-1)·range/20), and
// 0 is silence.
func gainOf(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return math.Pow(10, (min(v, 1)-1)*volumeRangeDB/20)
}

// keptVolume is the master volume whose changes are kept in the settings
// file, so the owner's volume survives a restart.
type keptVolume struct {
	volume.Control
	file *settings.File
	log  *slog.Logger
}

// SetVolume sets the volume, then keeps it; failing to keep it is logged,
// not the skill's failure: the volume did change.
func (k keptVolume) SetVolume(ctx context.Context, v float64) error {
	if err := k.Control.SetVolume(ctx, v); err != nil {
		return err
	}
	if err := k.file.SetNumber(volumeKey, v); err != nil {
		k.log.Warn("keeping the volume for the next start", "err", err)
	}
	return nil
}

// volumeRangeDB is the span of the volume setting: level 1 of 10 is about
// 36 dB below full, level 5 20 dB below. Loudness is heard on a
// logarithmic scale, so equal steps of the setting sound like equal steps.
const volumeRangeDB = 40

// masterVolume lets the volume skill drive the body's master volume: the
// skill's volume v in 0..1 is a gain of 10^((v-1)·range/20), and 0 is
// silence.
type masterVolume struct{ d *device.Volume }

// volumeControl is the body's master volume for the volume skill, its
// changes kept in file (nil: not kept); nil when the body has no sound
// output.
func volumeControl(d *device.Volume, file *settings.File, log *slog.Logger) volume.Control {
	if d == nil {
		return nil
	}
	if file == nil {
		return masterVolume{d}
	}
	return keptVolume{Control: masterVolume{d}, file: file, log: log}
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
	return m.d.SetGain(gainOf(v))
}
