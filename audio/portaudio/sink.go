package portaudio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
)

// SinkOptions shape a playback sink.
type SinkOptions struct {
	// Chunk is how much audio one device write takes; it bounds how long a
	// cancelled Write (barge-in) keeps playing. Zero means 20 ms; it must
	// be between 5 and 200 ms.
	Chunk time.Duration
}

// Sink plays mono PCM on one output device. It opens the device for each
// Write and closes it after, so a device that vanished between two
// utterances is found again (or reported) at the next one, and a capture
// reopen is never kept from refreshing the device list by an idle speaker.
type Sink struct {
	host     *Host
	selector string
	chunk    time.Duration

	mu     sync.Mutex // one Write at a time
	closed bool
	conv   *audio.Resampler // kept while the rates stay the same
}

var _ audio.Sink = (*Sink)(nil)

// OpenSink checks that selector names an output device present now (see
// Select) and returns a sink that plays on it.
func (h *Host) OpenSink(ctx context.Context, selector string, o SinkOptions) (*Sink, error) {
	chunk := o.Chunk
	if chunk == 0 {
		chunk = 20 * time.Millisecond
	}
	if chunk < 5*time.Millisecond || chunk > 200*time.Millisecond {
		return nil, fmt.Errorf("portaudio playback chunk %v (want 5 to 200 ms)", chunk)
	}
	devs, err := h.Devices(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := Select(devs, selector, false); err != nil {
		return nil, err
	}
	return &Sink{host: h, selector: selector, chunk: chunk}, nil
}

// Write plays pcm (mono, at rate Hz) and returns once it has played, or
// when ctx ends, having stopped playback within one chunk.
func (s *Sink) Write(ctx context.Context, pcm []int16, rate int) error {
	if rate < audio.MinRate || rate > audio.MaxRate {
		return fmt.Errorf("portaudio speaker: rate %d Hz (want %d to %d)", rate, audio.MinRate, audio.MaxRate)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return audio.ErrClosed
	}
	if len(pcm) == 0 {
		return nil
	}
	st, cfg, err := s.open()
	if err != nil {
		return err
	}
	if in, out := s.conv.Rates(); s.conv == nil || in != rate || out != cfg.Rate {
		if s.conv, err = audio.NewResampler(rate, cfg.Rate); err != nil {
			s.finish(st, false)
			return fmt.Errorf("playing on %q: %w", cfg.Device.Name, err)
		}
	}
	s.conv.Reset()
	// The filter's delay plus a little silence flushes the last samples.
	tail := make([]float32, s.conv.Taps()+cfg.Rate/100)
	mono := s.conv.Process(nil, Downmix(nil, pcm, 1))
	mono = s.conv.Process(mono, tail)
	block := cfg.Frames * cfg.Channels
	frames := Upmix(make([]int16, 0, len(mono)*cfg.Channels+block), mono, cfg.Channels)
	if r := len(frames) % block; r != 0 {
		frames = append(frames, make([]int16, block-r)...)
	}
	for off := 0; off < len(frames); off += block {
		if err := ctx.Err(); err != nil {
			s.finish(st, false)
			return err
		}
		if err := st.Write(frames[off : off+block]); err != nil {
			s.finish(st, false)
			return fmt.Errorf("playing on %q: %w", cfg.Device.Name, err)
		}
	}
	if err := s.finish(st, true); err != nil {
		return fmt.Errorf("playing on %q: %w", cfg.Device.Name, err)
	}
	return nil
}

// open starts the host, selects the device and opens it at its own rate,
// mono if it allows, else stereo.
func (s *Sink) open() (OutputStream, StreamConfig, error) {
	h := s.host
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.acquire(); err != nil {
		return nil, StreamConfig{}, err
	}
	devs, err := h.devices()
	if err != nil {
		h.release()
		return nil, StreamConfig{}, err
	}
	dev, err := Select(devs, s.selector, false)
	if err != nil {
		h.release()
		return nil, StreamConfig{}, err
	}
	rate := int(dev.DefaultRate + 0.5)
	if rate < audio.MinRate || rate > audio.MaxRate {
		h.release()
		return nil, StreamConfig{}, fmt.Errorf("device %q reports a default rate of %v Hz (want %d to %d)", dev.Name, dev.DefaultRate, audio.MinRate, audio.MaxRate)
	}
	frames := max(1, int(int64(rate)*int64(s.chunk)/int64(time.Second)))
	var errs []error
	for _, ch := range channelChoices(dev.OutputChannels) {
		cfg := StreamConfig{Device: dev, Channels: ch, Rate: rate, Frames: frames}
		st, err := h.lib.OpenOutput(cfg)
		if err == nil {
			return st, cfg, nil
		}
		errs = append(errs, fmt.Errorf("%d channel(s) at %d Hz: %w", ch, rate, err))
	}
	h.release()
	return nil, StreamConfig{}, fmt.Errorf("opening %q for playback: %w", dev.Name, errors.Join(errs...))
}

// finish drains (played to the end) or aborts the stream and gives the
// host back.
func (s *Sink) finish(st OutputStream, drain bool) error {
	s.host.mu.Lock()
	defer s.host.mu.Unlock()
	var err error
	if drain {
		err = st.Drain()
	} else {
		err = st.Abort()
	}
	s.host.release()
	return err
}

// Close makes later writes fail with audio.ErrClosed.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
