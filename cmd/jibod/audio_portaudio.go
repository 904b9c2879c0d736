//go:build portaudio

package main

import (
	"log/slog"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/portaudio"
)

// audioBackends are the device backends of this build beyond the built-in
// file, stdin and null: "portaudio[:DEVICE]", capture through PortAudio
// (ALSA on the robot), reopened with backoff when the device vanishes.
// PortAudio is started per stream and stopped after the last, so there is
// nothing to release here.
func audioBackends(log *slog.Logger) (map[string]audio.Backend, func() error) {
	h := portaudio.NewHost(portaudio.System(), log)
	return map[string]audio.Backend{
		"portaudio": h.Backend(portaudio.SourceOptions{}),
	}, func() error { return nil }
}
