//go:build !portaudio

package main

import (
	"log/slog"

	"github.com/openjibo/jibod/audio"
)

// audioBackends are the device backends of this build beyond the built-in
// file, stdin and null: none without the portaudio tag. The function it
// returns releases them.
func audioBackends(*slog.Logger) (map[string]audio.Backend, func() error) {
	return nil, func() error { return nil }
}
