package audio

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// ErrClosed is returned by reads and writes after Close.
var ErrClosed = errors.New("audio: closed")

// ErrTruncated marks a raw stream that ended part-way through a sample.
var ErrTruncated = errors.New("audio stream ended mid-sample")

// FileOptions shape a WAV file source.
type FileOptions struct {
	// Pace delivers the samples in real time, as a microphone would, rather
	// than as fast as they are read.
	Pace bool
}

// FileSource yields a WAV file's audio converted to SampleRate mono.
type FileSource struct {
	path    string
	samples []int16
	pos     int
	pace    bool
	start   time.Time // of the first paced read
	mu      sync.Mutex
	closed  bool
}

var _ Source = (*FileSource)(nil)

// OpenFileSource reads and decodes the WAV file at path with DecodeWAV (so
// a header that lies about the format is an error naming what is wrong)
// and converts it with ToRecognition.
func OpenFileSource(path string, o FileOptions) (*FileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening audio file: %w", err)
	}
	defer f.Close()
	// Headers and chunks other than data are small; the data chunk is
	// bounded by DecodeWAV itself.
	clip, err := DecodeWAV(io.LimitReader(f, MaxWAVBytes+1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading audio file %s: %w", path, err)
	}
	return &FileSource{path: path, samples: ToRecognition(clip), pace: o.Pace}, nil
}

// NewClipSource yields samples (already SampleRate mono) as a source, for
// tests and tools that hold audio in memory.
func NewClipSource(samples []int16, pace bool) *FileSource {
	return &FileSource{path: "(memory)", samples: samples, pace: pace}
}

// Len is the number of samples the source holds in all.
func (s *FileSource) Len() int { return len(s.samples) }

// Read copies the next samples into buf; io.EOF once all are read. Paced,
// it returns no sooner than the wall-clock time the samples end at.
func (s *FileSource) Read(ctx context.Context, buf []int16) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	if s.pos >= len(s.samples) {
		s.mu.Unlock()
		return 0, io.EOF
	}
	n := copy(buf, s.samples[s.pos:])
	s.pos += n
	var due time.Time
	if s.pace {
		if s.start.IsZero() {
			s.start = time.Now()
		}
		due = s.start.Add(samplesDuration(s.pos))
	}
	s.mu.Unlock()
	if s.pace {
		if err := sleepUntil(ctx, due); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Close releases the samples; later reads fail with ErrClosed.
func (s *FileSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.samples = true, nil
	return nil
}

// samplesDuration is how long n samples at SampleRate play.
func samplesDuration(n int) time.Duration {
	return time.Duration(n) * time.Second / SampleRate
}

// sleepUntil waits until t or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RawSource reads raw signed 16-bit little-endian SampleRate mono PCM from a
// stream, such as `arecord -f S16_LE -r 16000 -c 1 -t raw` piped in.
type RawSource struct {
	r    io.Reader
	mu   sync.Mutex
	byt  []byte
	odd  []byte // a byte left over from the last read
	done bool
	// deadline, when the reader supports it, lets ctx interrupt a read.
	deadline interface{ SetReadDeadline(time.Time) error }
}

var _ Source = (*RawSource)(nil)

// NewRawSource reads raw PCM from r. When r is a pipe (*os.File) it is
// switched to non-blocking mode so a cancelled context interrupts a read
// that waits for data.
func NewRawSource(r io.Reader) *RawSource {
	s := &RawSource{r: r}
	if f, ok := r.(*os.File); ok {
		s.r, s.deadline = pollable(f)
	} else if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok {
		s.deadline = d
	}
	return s
}

// Read fills buf with whole samples. At the end of the stream it returns
// io.EOF, or an error wrapping ErrTruncated if a lone byte was left over.
func (s *RawSource) Read(ctx context.Context, buf []int16) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return 0, io.EOF
	}
	if len(buf) == 0 {
		return 0, nil
	}
	if s.deadline != nil {
		stop := context.AfterFunc(ctx, func() { _ = s.deadline.SetReadDeadline(time.Unix(1, 0)) })
		defer func() {
			if !stop() {
				// The deadline was set: clear it for the next read.
				_ = s.deadline.SetReadDeadline(time.Time{})
			}
		}()
	}
	need := 2 * len(buf)
	if cap(s.byt) < need {
		s.byt = make([]byte, need)
	}
	b := s.byt[:need]
	k := copy(b, s.odd)
	s.odd = s.odd[:0]
	for k < 2 {
		n, err := s.r.Read(b[k:])
		k += n
		if err != nil {
			if ctx.Err() != nil {
				s.odd = append(s.odd, b[:k]...)
				return 0, ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				s.done = true
				if k == 1 {
					return 0, fmt.Errorf("reading raw PCM: %w (one byte left; want 16-bit samples)", ErrTruncated)
				}
				if k == 0 {
					return 0, io.EOF
				}
				break
			}
			return 0, fmt.Errorf("reading raw PCM: %w", err)
		}
	}
	n := k / 2
	if k%2 == 1 {
		s.odd = append(s.odd, b[k-1])
	}
	for i := 0; i < n; i++ {
		buf[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return n, nil
}

// Close closes the underlying reader if it is an io.Closer.
func (s *RawSource) Close() error {
	if c, ok := s.r.(io.Closer); ok && s.r != os.Stdin {
		return c.Close()
	}
	return nil
}

// NullSource is a silent microphone: it yields zeros in real time, forever.
type NullSource struct {
	mu     sync.Mutex
	start  time.Time
	n      int
	closed bool
}

var _ Source = (*NullSource)(nil)

// NewNullSource returns a silent source.
func NewNullSource() *NullSource { return &NullSource{} }

// Read yields len(buf) zeros once their real-time duration has passed.
func (s *NullSource) Read(ctx context.Context, buf []int16) (int, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	if s.start.IsZero() {
		s.start = time.Now()
	}
	s.n += len(buf)
	due := s.start.Add(samplesDuration(s.n))
	s.mu.Unlock()
	clear(buf)
	if err := sleepUntil(ctx, due); err != nil {
		return 0, err
	}
	return len(buf), nil
}

// Close ends the source.
func (s *NullSource) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}
