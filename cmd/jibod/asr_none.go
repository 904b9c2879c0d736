//go:build !sphinx

package main

import (
	"context"
	"io"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/sphinx"
)

// newRecognizer is the speech recogniser of a build without one: listening
// fails with a clear error. The sphinx build's file provides the real one.
func newRecognizer(context.Context, *robot, asrOptions) (audio.Recognizer, func() error, error) {
	return nil, nil, errNoASR
}

// newWakeSpotter is the keyphrase spotter of a build without speech
// recognition: there is none.
func newWakeSpotter(context.Context, float64) (sphinx.KeyphraseSpotter, func() error, error) {
	return nil, nil, errNoASR
}

// cmdAudioAdapt needs the sphinx build, whose recogniser would use the
// adapted model.
func cmdAudioAdapt(context.Context, []string, io.Writer, io.Writer) error {
	return errNoASR
}
