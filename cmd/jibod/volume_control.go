package main

import (
	"log/slog"

	"github.com/openjibo/jibod/core/settings"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/device"
)

// settingsFileName is the settings file in the state folder.
const settingsFileName = "settings.json"

// startVolume is the volume to start at: the owner's, kept in the
// settings file, else the default.
func startVolume(s *settings.File) float64 { return volume.Saved(s) }

// gainOf is the master volume's gain for volume v.
func gainOf(v float64) float64 { return volume.Gain(v) }

// volumeControl is the body's master volume for the volume skill, its
// changes kept in file (nil: not kept); nil when the body has no sound
// output.
func volumeControl(d *device.Volume, file *settings.File, log *slog.Logger) volume.Control {
	if d == nil {
		return nil
	}
	return volume.Kept(volume.Master(d), file, log)
}
