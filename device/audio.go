package device

import (
	"context"
	"fmt"
)

// Limits of the PCM formats a PCMSink may use.
const (
	// MinSampleRate and MaxSampleRate bound a sink's sample rate in Hz.
	MinSampleRate = 8000
	MaxSampleRate = 192000
	// MaxChannels bounds a sink's channel count.
	MaxChannels = 8
)

// PCMFormat describes interleaved signed 16-bit PCM.
type PCMFormat struct {
	// SampleRate is in frames per second.
	SampleRate int
	// Channels is the number of interleaved channels (1 = mono).
	Channels int
}

// Validate reports whether f is a usable format.
func (f PCMFormat) Validate() error {
	if f.SampleRate < MinSampleRate || f.SampleRate > MaxSampleRate {
		return fmt.Errorf("pcm format: sample rate %d Hz outside %d..%d", f.SampleRate, MinSampleRate, MaxSampleRate)
	}
	if f.Channels < 1 || f.Channels > MaxChannels {
		return fmt.Errorf("pcm format: %d channels outside 1..%d", f.Channels, MaxChannels)
	}
	return nil
}

// PCMSink is where sound goes: the speaker, as a stream of samples.
type PCMSink interface {
	// Format returns the sink's sample format.
	Format() PCMFormat
	// Write plays samples (interleaved, len a multiple of Channels) and
	// returns once they have been played. When ctx ends first it stops and
	// returns an error wrapping ctx.Err().
	Write(ctx context.Context, samples []int16) error
}
