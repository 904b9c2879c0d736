package device

import (
	"context"
	"fmt"
)

// MaxSayBytes bounds one utterance handed to a Voice.
const MaxSayBytes = 8 << 10

// Voice speaks plain text through the robot's speaker. This is the
// skeleton's voice: text in, sound out. PCM playback and a real TTS engine
// arrive with the audio work and will sit behind this interface.
type Voice interface {
	// Say speaks text and returns when it has been spoken. When ctx is
	// cancelled it stops speaking and returns an error wrapping ctx.Err().
	Say(ctx context.Context, text string) error
}

// InterruptedError is returned by a Voice whose Say was cancelled part-way.
// It wraps the context's error, so errors.Is(err, context.Canceled) holds.
type InterruptedError struct {
	// Text is what was asked for.
	Text string
	// Spoken is the part of Text that was spoken before the interruption.
	Spoken string
	// Err is the cause, normally ctx.Err().
	Err error
}

// Error says how much was spoken and why speech stopped.
func (e *InterruptedError) Error() string {
	return fmt.Sprintf("speech interrupted after %q of %q: %v", e.Spoken, e.Text, e.Err)
}

// Unwrap returns the cause.
func (e *InterruptedError) Unwrap() error { return e.Err }
