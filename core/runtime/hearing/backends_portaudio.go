//go:build portaudio

package hearing

import (
	"context"
	"log/slog"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/portaudio"
	"github.com/openjibo/jibod/device"
)

// AudioBackends are the device backends of this build beyond the built-in
// file, stdin and null: "portaudio[:DEVICE]", capture through PortAudio
// (ALSA on the robot), reopened with backoff when the device vanishes.
// PortAudio is started per stream and stopped after the last, so there is
// nothing to release here.
func AudioBackends(log *slog.Logger) (map[string]audio.Backend, func() error) {
	h := portaudio.NewHost(portaudio.System(), log)
	return map[string]audio.Backend{
		"portaudio": h.Backend(portaudio.SourceOptions{}),
	}, func() error { return nil }
}

// openSpeaker checks that the PortAudio output device named by selector
// ("" for the default) is there and returns its sink, and a function that
// makes it a board sound output taking samples in a given format.
func openSpeaker(ctx context.Context, selector string, log *slog.Logger) (audio.Sink, func(device.PCMFormat) (device.PCMSink, error), error) {
	s, err := portaudio.NewHost(portaudio.System(), log).OpenSink(ctx, selector, portaudio.SinkOptions{})
	if err != nil {
		return nil, nil, err
	}
	return s, func(f device.PCMFormat) (device.PCMSink, error) { return portaudio.NewPCMOut(s, f) }, nil
}
