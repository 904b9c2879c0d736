package runtime

import (
	"log/slog"

	"github.com/openjibo/jibod/core/settings"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/device"
)

// VolumeControl is the body's master volume for the volume skill and the
// shell, its changes kept in file (nil: not kept); nil when the body has
// no sound output.
func VolumeControl(d *device.Volume, file *settings.File, log *slog.Logger) volume.Control {
	if d == nil {
		return nil
	}
	return volume.Kept(volume.Master(d), file, log)
}
