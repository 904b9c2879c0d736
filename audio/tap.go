package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"time"
)

// Tap limits: how far behind its listeners may fall.
const (
	// tapQueue is each listener's queue of blocks; a listener that falls
	// further behind loses blocks, never slows the robot's ear.
	tapQueue = 256
	// MaxTapListeners bounds listeners at once.
	MaxTapListeners = 8
)

// SilenceDBFS is the lowest level Tap.Level reports: digital silence reads
// as this rather than -Inf, which JSON cannot carry.
const SilenceDBFS = -120

// Tap is the robot's microphone for a second listener (the diagnostics
// shell): it wraps the capture backends so every block the robot's
// listener reads is also handed to Listen, which therefore hears exactly
// what the robot hears without opening the device a second time.
type Tap struct {
	spec     string // the source spec the robot opens (--audio)
	backends map[string]Backend

	mu      sync.Mutex
	live    int // tapped sources open
	readers map[chan []int16]struct{}
}

// NewTap wraps backends for a robot opening spec; it returns nil when there
// is nothing to hear or list (no device backend and no spec).
func NewTap(spec string, backends map[string]Backend) *Tap {
	if spec == "" && len(backends) == 0 {
		return nil
	}
	t := &Tap{spec: spec, readers: map[chan []int16]struct{}{}, backends: map[string]Backend{}}
	for name, b := range backends {
		open := b.Open
		if open != nil {
			b.Open = func(ctx context.Context, arg string) (Source, error) {
				src, err := open(ctx, arg)
				if err != nil {
					return nil, err
				}
				return t.wrap(src), nil
			}
		}
		t.backends[name] = b
	}
	return t
}

// Backends are the wrapped backends to open the robot's source with.
func (t *Tap) Backends() map[string]Backend {
	if t == nil {
		return nil
	}
	return t.backends
}

// Spec is the source spec the robot opens.
func (t *Tap) Spec() string { return t.spec }

func (t *Tap) wrap(src Source) Source {
	t.mu.Lock()
	t.live++
	t.mu.Unlock()
	return &tappedSource{Source: src, tap: t}
}

// tappedSource hands a copy of every read to the tap.
type tappedSource struct {
	Source
	tap  *Tap
	once sync.Once
}

func (s *tappedSource) Read(ctx context.Context, buf []int16) (int, error) {
	n, err := s.Source.Read(ctx, buf)
	if n > 0 {
		s.tap.deliver(buf[:n])
	}
	return n, err
}

func (s *tappedSource) Close() error {
	s.once.Do(func() {
		s.tap.mu.Lock()
		s.tap.live--
		s.tap.mu.Unlock()
	})
	return s.Source.Close()
}

func (t *Tap) deliver(pcm []int16) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.readers) == 0 {
		return
	}
	block := append([]int16(nil), pcm...)
	for ch := range t.readers {
		select {
		case ch <- block:
		default: // this listener fell behind: it loses the block
		}
	}
}

// errNoLiveInput is the answer when the robot hears nothing the tap can
// hand on.
func (t *Tap) errNoLiveInput() error {
	if t.spec == "" {
		return errors.New("no audio input in use: jibod runs without --audio")
	}
	return fmt.Errorf("the robot's audio input (%s) is not a capture device the shell can listen to", t.spec)
}

// Listen collects d of what the robot hears, at SampleRate.
func (t *Tap) Listen(ctx context.Context, d time.Duration) ([]int16, error) {
	t.mu.Lock()
	if t.live == 0 {
		t.mu.Unlock()
		return nil, t.errNoLiveInput()
	}
	if len(t.readers) >= MaxTapListeners {
		t.mu.Unlock()
		return nil, fmt.Errorf("too many listeners on the microphone (at most %d)", MaxTapListeners)
	}
	ch := make(chan []int16, tapQueue)
	t.readers[ch] = struct{}{}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.readers, ch)
		t.mu.Unlock()
	}()
	want := int(d.Seconds() * SampleRate)
	out := make([]int16, 0, want)
	for len(out) < want {
		select {
		case b := <-ch:
			out = append(out, b[:min(len(b), want-len(out))]...)
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	return out, nil
}

// TapDevice is one capture device of the tapped backends.
type TapDevice struct {
	Backend, ID, Name string
	Default           bool
	// InUse marks the device the robot listens on.
	InUse                bool
	Channels, SampleRate int
}

// Devices lists the capture devices of the backends, by backend name,
// marking the one the robot listens on.
func (t *Tap) Devices(ctx context.Context) ([]TapDevice, error) {
	op := &Opener{Backends: t.backends}
	devs, errs := op.Devices(ctx)
	name, arg, _ := ParseSpec(t.spec)
	var out []TapDevice
	var names []string
	for n := range devs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, d := range devs[n] {
			out = append(out, TapDevice{Backend: n, ID: d.ID, Name: d.Name, Default: d.Default,
				InUse: n == name && (arg == d.ID || (arg == "" && d.Default)), Channels: d.Channels, SampleRate: d.SampleRate})
		}
	}
	var errList []error
	for n, err := range errs {
		errList = append(errList, fmt.Errorf("%s: %w", n, err))
	}
	if len(out) == 0 && len(errList) > 0 {
		return nil, errors.Join(errList...)
	}
	return out, nil
}

// Level is a span's loudness in dB relative to full scale, floored at
// SilenceDBFS.
type Level struct {
	RMS, Peak float64
}

// Level measures what the robot hears for d.
func (t *Tap) Level(ctx context.Context, d time.Duration) (Level, error) {
	pcm, err := t.Listen(ctx, d)
	if err != nil {
		return Level{}, err
	}
	return Level{RMS: math.Max(LevelDBFS(pcm), SilenceDBFS), Peak: math.Max(PeakDBFS(pcm), SilenceDBFS)}, nil
}

// Record writes d of what the robot hears to w as a SampleRate mono WAV
// and returns how many samples it wrote and at what rate.
func (t *Tap) Record(ctx context.Context, d time.Duration, w io.Writer) (int, int, error) {
	pcm, err := t.Listen(ctx, d)
	if err != nil {
		return 0, 0, err
	}
	if err := EncodeWAV(w, SampleRate, 1, pcm); err != nil {
		return 0, 0, fmt.Errorf("writing WAV: %w", err)
	}
	return len(pcm), SampleRate, nil
}
