//go:build !portaudio

package hearing

import (
	"context"
	"errors"
	"log/slog"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/device"
)

// AudioBackends are the device backends of this build beyond the built-in
// file, stdin and null: none without the portaudio tag. The function it
// returns releases them.
func AudioBackends(*slog.Logger) (map[string]audio.Backend, func() error) {
	return nil, func() error { return nil }
}

// openSpeaker fails: output devices need the portaudio build tag.
func openSpeaker(context.Context, string, *slog.Logger) (audio.Sink, func(device.PCMFormat) (device.PCMSink, error), error) {
	return nil, nil, errors.New("this build has no PortAudio (build with -tags portaudio)")
}
