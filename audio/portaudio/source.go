package portaudio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
)

// SourceOptions shape a capture source.
type SourceOptions struct {
	// Chunk is how much audio one device read takes; it bounds how long a
	// Read can take to notice its context ending. Zero means 20 ms; it must
	// be between 5 and 200 ms.
	Chunk time.Duration
}

func (o SourceOptions) chunk() (time.Duration, error) {
	if o.Chunk == 0 {
		return 20 * time.Millisecond, nil
	}
	if o.Chunk < 5*time.Millisecond || o.Chunk > 200*time.Millisecond {
		return 0, fmt.Errorf("portaudio capture chunk %v (want 5 to 200 ms)", o.Chunk)
	}
	return o.Chunk, nil
}

// Source captures from one device and yields audio.SampleRate mono PCM.
// Read and Close may be called from different goroutines; Close waits for
// a Read in progress to finish its chunk.
type Source struct {
	host *Host
	dev  DeviceInfo
	cfg  StreamConfig

	mu      sync.Mutex // held across a device read; guards the fields below
	stream  InputStream
	closed  bool
	raw     []int16
	mono    []float32
	conv    *audio.Resampler
	pending []int16
	overs   int
}

var _ audio.Source = (*Source)(nil)

// OpenSource opens and starts capture on the device selector names (see
// Select) at the device's own rate, in mono if the device allows it, else
// in stereo mixed down.
func (h *Host) OpenSource(ctx context.Context, selector string, o SourceOptions) (*Source, error) {
	chunk, err := o.chunk()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.acquire(); err != nil {
		return nil, err
	}
	s, err := h.openSource(selector, chunk)
	if err != nil {
		h.release()
		return nil, err
	}
	return s, nil
}

func (h *Host) openSource(selector string, chunk time.Duration) (*Source, error) {
	devs, err := h.devices()
	if err != nil {
		return nil, err
	}
	dev, err := Select(devs, selector, true)
	if err != nil {
		return nil, err
	}
	rate, err := deviceRate(dev, audio.SampleRate)
	if err != nil {
		return nil, fmt.Errorf("opening %q for capture: %w", dev.Name, err)
	}
	conv, err := audio.NewResampler(rate, audio.SampleRate)
	if err != nil {
		return nil, fmt.Errorf("opening %q for capture: %w", dev.Name, err)
	}
	frames := max(1, int(int64(rate)*int64(chunk)/int64(time.Second)))
	var errs []error
	for _, ch := range channelChoices(dev.InputChannels) {
		cfg := StreamConfig{Device: dev, Channels: ch, Rate: rate, Frames: frames}
		st, err := h.lib.OpenInput(cfg)
		if err != nil {
			errs = append(errs, fmt.Errorf("%d channel(s) at %d Hz: %w", ch, rate, err))
			continue
		}
		h.log.Info("audio capture opened", "device", dev.Name, "index", dev.Index, "channels", ch, "rate", rate)
		return &Source{
			host: h, dev: dev, cfg: cfg, stream: st, conv: conv,
			raw: make([]int16, frames*ch),
		}, nil
	}
	return nil, fmt.Errorf("opening %q for capture: %w", dev.Name, errors.Join(errs...))
}

// channelChoices is mono first (no mixing needed), then stereo, within
// what the device offers.
func channelChoices(max int) []int {
	switch {
	case max <= 0:
		return nil
	case max == 1:
		return []int{1}
	}
	return []int{1, MaxChannels}
}

// Device is the device the source captures from.
func (s *Source) Device() DeviceInfo { return s.dev }

// Format is the device format the source converts from.
func (s *Source) Format() (channels, rate int) { return s.cfg.Channels, s.cfg.Rate }

// Overflows counts device reads that reported lost samples.
func (s *Source) Overflows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overs
}

// Read fills buf with 16 kHz mono PCM, blocking for at most one chunk of
// device audio at a time (so a cancelled context is noticed within a
// chunk). A device failure (unplugged, stopped) returns an error naming
// the device; the source is then spent, and audio.Reopener opens a new one.
func (s *Source) Read(ctx context.Context, buf []int16) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) == 0 {
		if s.closed {
			return 0, audio.ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if s.stream == nil {
			return 0, fmt.Errorf("capture from %q: the device failed earlier; open it again", s.dev.Name)
		}
		err := s.stream.Read(s.raw)
		if err != nil && !errors.Is(err, ErrOverflow) {
			s.shut()
			return 0, fmt.Errorf("capture from %q: %w", s.dev.Name, err)
		}
		if err != nil {
			// Samples were lost; the filter's history no longer joins
			// what comes next.
			s.overs++
			s.conv.Reset()
		}
		s.mono = Downmix(s.mono[:0], s.raw, s.cfg.Channels)
		s.pending = s.conv.Process(s.pending[:0], s.mono)
	}
	n := copy(buf, s.pending)
	s.pending = s.pending[:copy(s.pending, s.pending[n:])]
	return n, nil
}

// shut closes the device stream and gives the host back. Call with s.mu
// held.
func (s *Source) shut() error {
	if s.stream == nil {
		return nil
	}
	s.host.mu.Lock()
	err := s.stream.Close()
	s.host.release()
	s.host.mu.Unlock()
	s.stream = nil
	if err != nil {
		return fmt.Errorf("closing capture from %q: %w", s.dev.Name, err)
	}
	return nil
}

// Close stops capture; later reads fail with audio.ErrClosed.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.shut()
}
