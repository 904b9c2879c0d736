package audio

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"time"
)

// SinkOptions shape the WAV and null sinks.
type SinkOptions struct {
	// Rate is the rate the sink plays at; writes at other rates are
	// resampled. 0 takes the first write's rate.
	Rate int
	// Pace makes Write take as long as the audio would play, so speech can
	// be interrupted part-way as on a real speaker.
	Pace bool
}

// WAVSink writes what a speaker would play to a mono 16-bit WAV file. The
// header is brought up to date after every write, so the file is valid
// even if the process dies.
type WAVSink struct {
	mu     sync.Mutex
	f      *os.File
	rate   int
	bytes  int
	pace   bool
	closed bool
}

var _ Sink = (*WAVSink)(nil)

// CreateWAVSink creates (or truncates) the file at path.
func CreateWAVSink(path string, o SinkOptions) (*WAVSink, error) {
	if o.Rate != 0 && (o.Rate < MinRate || o.Rate > MaxRate) {
		return nil, fmt.Errorf("speaker WAV: rate %d Hz (want %d to %d)", o.Rate, MinRate, MaxRate)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating speaker WAV: %w", err)
	}
	s := &WAVSink{f: f, rate: o.Rate, pace: o.Pace}
	return s, nil
}

// Rate is the file's rate (0 until the first write when not configured).
func (s *WAVSink) Rate() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rate
}

// Write appends pcm, resampled from rate to the file's rate. Paced, it
// writes each 20 ms block once it would have played and returns early with
// ctx's error, so the file holds what played up to the cut.
func (s *WAVSink) Write(ctx context.Context, pcm []int16, rate int) error {
	if rate < MinRate || rate > MaxRate {
		return fmt.Errorf("speaker WAV: rate %d Hz (want %d to %d)", rate, MinRate, MaxRate)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.rate == 0 {
		s.rate = rate
	}
	out := Resample(pcm, rate, s.rate)
	fileRate := s.rate
	s.mu.Unlock()
	if !s.pace {
		return s.append(out)
	}
	// Play in blocks of 20 ms so a cancel stops within a block.
	block := fileRate / 50
	start := time.Now()
	for off := 0; off < len(out); off += block {
		end := min(off+block, len(out))
		due := start.Add(time.Duration(end) * time.Second / time.Duration(fileRate))
		if err := sleepUntil(ctx, due); err != nil {
			return err
		}
		if err := s.append(out[off:end]); err != nil {
			return err
		}
	}
	return nil
}

func (s *WAVSink) append(pcm []int16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.bytes+2*len(pcm) > MaxWAVBytes {
		return fmt.Errorf("speaker WAV: would exceed the %d-byte limit", MaxWAVBytes)
	}
	if s.bytes == 0 {
		if err := s.header(); err != nil {
			return err
		}
	}
	buf := make([]byte, 2*len(pcm))
	for i, v := range pcm {
		binary.LittleEndian.PutUint16(buf[2*i:], uint16(v))
	}
	if _, err := s.f.WriteAt(buf, int64(44+s.bytes)); err != nil {
		return fmt.Errorf("writing speaker WAV: %w", err)
	}
	s.bytes += len(buf)
	return s.sizes()
}

func (s *WAVSink) header() error {
	var h [44]byte
	copy(h[0:], "RIFF")
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], uint32(s.rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(s.rate*2))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	if _, err := s.f.WriteAt(h[:], 0); err != nil {
		return fmt.Errorf("writing speaker WAV: %w", err)
	}
	return s.sizes()
}

// sizes writes the RIFF and data sizes for the bytes written so far.
func (s *WAVSink) sizes() error {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(36+s.bytes))
	if _, err := s.f.WriteAt(b[:], 4); err != nil {
		return fmt.Errorf("writing speaker WAV: %w", err)
	}
	binary.LittleEndian.PutUint32(b[:], uint32(s.bytes))
	if _, err := s.f.WriteAt(b[:], 40); err != nil {
		return fmt.Errorf("writing speaker WAV: %w", err)
	}
	return nil
}

// Close finishes the file. A sink that never played anything leaves an
// empty WAV at its configured rate (or SampleRate).
func (s *WAVSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.bytes == 0 {
		if s.rate == 0 {
			s.rate = SampleRate
		}
		err = s.header()
	}
	if cerr := s.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing speaker WAV: %w", cerr)
	}
	return err
}

// NullSink plays nothing; paced, it takes as long as the audio would.
type NullSink struct {
	pace bool
	mu   sync.Mutex
	n    int // samples played, for tests and meters
}

var _ Sink = (*NullSink)(nil)

// NewNullSink returns a sink that discards what it is given.
func NewNullSink(o SinkOptions) *NullSink { return &NullSink{pace: o.Pace} }

// Write discards pcm, after its playing time when paced.
func (s *NullSink) Write(ctx context.Context, pcm []int16, rate int) error {
	if rate < MinRate || rate > MaxRate {
		return fmt.Errorf("null speaker: rate %d Hz (want %d to %d)", rate, MinRate, MaxRate)
	}
	s.mu.Lock()
	s.n += len(pcm)
	s.mu.Unlock()
	if !s.pace {
		return ctx.Err()
	}
	return sleepFor(ctx, time.Duration(len(pcm))*time.Second/time.Duration(rate))
}

// Samples is how many samples have been written.
func (s *NullSink) Samples() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Close does nothing.
func (s *NullSink) Close() error { return nil }
