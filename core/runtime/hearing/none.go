//go:build !sphinx

package hearing

import (
	"context"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/runtime/config"
)

// NewRecognizer is the speech recogniser of a build without one:
// listening fails with ErrNoASR. The sphinx build's file provides the
// real one.
func NewRecognizer(context.Context, Parts, Options) (audio.Recognizer, func() error, error) {
	return nil, nil, ErrNoASR
}

// NewWakeSpotter is the keyphrase spotter of a build without speech
// recognition: there is none.
func NewWakeSpotter(context.Context, float64, config.Sphinx) (sphinx.KeyphraseSpotter, func() error, error) {
	return nil, nil, ErrNoASR
}
