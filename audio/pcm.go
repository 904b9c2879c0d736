package audio

import (
	"context"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/device"
)

// devicePieces is how many pieces a second of sound is handed to a device
// in: each piece is one device write (one "play" event), and what a
// TeePCM records is whole pieces played.
const devicePieces = 2

// DeviceSink plays through a body's speaker (device.PCMSink): mono PCM is
// resampled to the device's rate and copied to each of its channels.
type DeviceSink struct {
	out device.PCMSink
}

var _ Sink = (*DeviceSink)(nil)

// NewDeviceSink wraps out.
func NewDeviceSink(out device.PCMSink) (*DeviceSink, error) {
	if out == nil {
		return nil, errors.New("device sink: no PCM output")
	}
	if err := out.Format().Validate(); err != nil {
		return nil, fmt.Errorf("device sink: %w", err)
	}
	return &DeviceSink{out: out}, nil
}

// Write plays pcm (mono at rate), returning when it has played or ctx
// ends.
func (s *DeviceSink) Write(ctx context.Context, pcm []int16, rate int) error {
	if rate < MinRate || rate > MaxRate {
		return fmt.Errorf("device sink: rate %d Hz (want %d to %d)", rate, MinRate, MaxRate)
	}
	f := s.out.Format()
	mono := Resample(pcm, rate, f.SampleRate)
	chunk := max(f.SampleRate/devicePieces, 1)
	buf := make([]int16, 0, min(len(mono), chunk)*f.Channels)
	for off := 0; off < len(mono); off += chunk {
		part := mono[off:min(off+chunk, len(mono))]
		buf = buf[:0]
		for _, v := range part {
			for range f.Channels {
				buf = append(buf, v)
			}
		}
		if err := s.out.Write(ctx, buf); err != nil {
			return fmt.Errorf("device sink: %w", err)
		}
	}
	return nil
}

// Close does nothing: the device belongs to the body.
func (s *DeviceSink) Close() error { return nil }

// TeePCM is a device.PCMSink that plays to out and then writes what played
// to rec as mono (the first channel): what `--speaker-wav` records. A write
// cut short is not recorded, so the recording stops where the sound was
// stopped (to the piece: DeviceSink plays half a second per write).
type TeePCM struct {
	out device.PCMSink
	rec Sink
}

var _ device.PCMSink = (*TeePCM)(nil)

// NewTeePCM records what out plays into rec.
func NewTeePCM(out device.PCMSink, rec Sink) *TeePCM { return &TeePCM{out: out, rec: rec} }

// Format is out's format.
func (t *TeePCM) Format() device.PCMFormat { return t.out.Format() }

// Write records the samples and plays them.
func (t *TeePCM) Write(ctx context.Context, samples []int16) error {
	f := t.out.Format()
	mono := samples
	if f.Channels > 1 {
		mono = make([]int16, len(samples)/f.Channels)
		for i := range mono {
			mono[i] = samples[i*f.Channels]
		}
	}
	if err := t.out.Write(ctx, samples); err != nil {
		return err
	}
	if err := t.rec.Write(context.WithoutCancel(ctx), mono, f.SampleRate); err != nil {
		return fmt.Errorf("recording the speaker: %w", err)
	}
	return nil
}
