package sim

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/openjibo/jibod/device"
)

// AudioOutName is the Device name a PCMSink reports its events under.
const AudioOutName = "audio"

// MaxPCMWrite bounds the samples in one Write (10 s of 48 kHz stereo).
const MaxPCMWrite = 10 * 48000 * 2

// PCMSinkOptions configures a simulated PCM sink.
type PCMSinkOptions struct {
	// Format is the sample format; the zero value means 16 kHz mono.
	Format device.PCMFormat
	// Instant makes Write return at once instead of taking the samples'
	// playing time.
	Instant bool
	// Observer, if set, receives a "play" event per Write (with "ms", the
	// duration, and "peak", the loudest sample as a fraction of full scale)
	// and "interrupted" when a Write is cut short.
	Observer device.Observer
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
}

// PCMSink is a simulated speaker for raw sound: it takes as long to play
// samples as a sound card would, and reports what it played.
type PCMSink struct {
	format  device.PCMFormat
	instant bool
	obs     device.Observer
	log     *slog.Logger
	turn    chan struct{}
	closing chan struct{}

	mu      sync.Mutex
	played  time.Duration
	closed  bool
	closeMu sync.Once
}

var _ device.PCMSink = (*PCMSink)(nil)

// NewPCMSink returns a sink configured by o.
func NewPCMSink(o PCMSinkOptions) (*PCMSink, error) {
	f := o.Format
	if f == (device.PCMFormat{}) {
		f = device.PCMFormat{SampleRate: 16000, Channels: 1}
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("sim pcm sink: %w", err)
	}
	return &PCMSink{format: f, instant: o.Instant, obs: o.Observer, log: loggerOrDiscard(o.Logger),
		turn: make(chan struct{}, 1), closing: make(chan struct{})}, nil
}

// Format returns the sink's sample format.
func (s *PCMSink) Format() device.PCMFormat { return s.format }

// Write plays samples, one Write at a time, taking their playing time.
func (s *PCMSink) Write(ctx context.Context, samples []int16) error {
	if len(samples) > MaxPCMWrite {
		return fmt.Errorf("sim pcm sink: write of %d samples, limit %d", len(samples), MaxPCMWrite)
	}
	if len(samples)%s.format.Channels != 0 {
		return fmt.Errorf("sim pcm sink: %d samples is not a whole number of %d-channel frames", len(samples), s.format.Channels)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim pcm sink: write: %w", err)
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("sim pcm sink: wait for the speaker: %w", ctx.Err())
	case <-s.closing:
		return fmt.Errorf("sim pcm sink: %w", device.ErrClosed)
	}
	defer func() { <-s.turn }()
	// The select above may take the turn even when closing is also ready.
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("sim pcm sink: %w", device.ErrClosed)
	}

	frames := len(samples) / s.format.Channels
	d := time.Duration(frames) * time.Second / time.Duration(s.format.SampleRate)
	var peak int
	for _, v := range samples {
		a := int(v)
		if a < 0 {
			a = -a
		}
		peak = max(peak, a)
	}
	s.emit("play", map[string]any{"ms": d.Milliseconds(), "peak": float64(peak) / 32768})
	if !s.instant && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		start := time.Now()
		select {
		case <-t.C:
		case <-ctx.Done():
			s.account(time.Since(start))
			s.emit("interrupted", map[string]any{"ms": time.Since(start).Milliseconds()})
			return fmt.Errorf("sim pcm sink: write: %w", ctx.Err())
		case <-s.closing:
			return fmt.Errorf("sim pcm sink: %w", device.ErrClosed)
		}
	}
	s.account(d)
	return nil
}

func (s *PCMSink) account(d time.Duration) {
	s.mu.Lock()
	s.played += d
	s.mu.Unlock()
}

// Played returns how much sound the sink has played in all.
func (s *PCMSink) Played() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.played
}

// Check reports whether the sink answers: nil unless it is closed.
func (s *PCMSink) Check(ctx context.Context) error {
	return check(ctx, "sim pcm sink", &s.mu, &s.closed)
}

// Close interrupts a Write in progress and makes further calls fail with
// device.ErrClosed.
func (s *PCMSink) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.closeMu.Do(func() { close(s.closing) })
	return nil
}

func (s *PCMSink) emit(kind string, values map[string]any) {
	if s.obs != nil {
		s.obs(device.Event{Time: time.Now(), Device: AudioOutName, Kind: kind, Values: values})
	}
}
