package portaudio

import (
	"context"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/device"
)

// PCMOut is a Sink seen as a board's sound output (device.PCMSink): the
// robot's voice and sounds, written in the board's format, play on a
// PortAudio output device. Interleaved channels are mixed to mono (Sink
// plays mono on every channel of the device).
type PCMOut struct {
	sink   *Sink
	format device.PCMFormat
	mono   []int16
}

var _ device.PCMSink = (*PCMOut)(nil)

// NewPCMOut returns s as a sound output taking samples in format f.
func NewPCMOut(s *Sink, f device.PCMFormat) (*PCMOut, error) {
	if s == nil {
		return nil, errors.New("portaudio sound output: no sink")
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("portaudio sound output: %w", err)
	}
	return &PCMOut{sink: s, format: f}, nil
}

// Format is the format samples are written in.
func (o *PCMOut) Format() device.PCMFormat { return o.format }

// Write plays samples and returns once they have played, or stops within
// one chunk when ctx ends (barge-in). Callers write one piece at a time.
func (o *PCMOut) Write(ctx context.Context, samples []int16) error {
	ch := o.format.Channels
	if len(samples)%ch != 0 {
		return fmt.Errorf("portaudio sound output: %d samples are not whole frames of %d channels", len(samples), ch)
	}
	mono := samples
	if ch > 1 {
		o.mono = o.mono[:0]
		for i := 0; i < len(samples); i += ch {
			var sum int32
			for _, v := range samples[i : i+ch] {
				sum += int32(v)
			}
			o.mono = append(o.mono, int16(sum/int32(ch)))
		}
		mono = o.mono
	}
	return o.sink.Write(ctx, mono, o.format.SampleRate)
}
