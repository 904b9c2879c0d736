package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Reopener is a live source that survives its device going away: a read
// error closes the device and the next read reopens it, waiting between
// attempts with exponential backoff, until the context ends. io.EOF passes
// through: backends report a vanished device as an error. Whoever reads
// sees only samples or the context's error; Failures counts what went
// wrong.
type Reopener struct {
	spec  string
	open  func(context.Context) (Source, error)
	retry Retry
	log   *slog.Logger

	mu       sync.Mutex
	cur      Source
	closed   bool
	failures int
	lastErr  error
	onError  func(error)
}

var _ Source = (*Reopener)(nil)

// NewReopener opens the source once (failing if that fails, so a wrong
// device name is reported at once) and returns it wrapped.
func NewReopener(ctx context.Context, spec string, open func(context.Context) (Source, error), r Retry, log *slog.Logger) (*Reopener, error) {
	src, err := open(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening audio source %q: %w", spec, err)
	}
	if log == nil {
		log = slog.Default()
	}
	return &Reopener{spec: spec, open: open, retry: r.withDefaults(), log: log, cur: src}, nil
}

// Read reads from the device, reopening it after a failure.
func (s *Reopener) Read(ctx context.Context, buf []int16) (int, error) {
	wait := s.retry.Initial
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return 0, ErrClosed
		}
		src := s.cur
		s.mu.Unlock()
		if src == nil {
			var err error
			if src, err = s.open(ctx); err != nil {
				s.fail(fmt.Errorf("reopening audio source %q: %w", s.spec, err))
				if err := sleepFor(ctx, wait); err != nil {
					return 0, err
				}
				wait = min(2*wait, s.retry.Max)
				continue
			}
			s.log.Info("audio source reopened", "source", s.spec)
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				_ = src.Close()
				return 0, ErrClosed
			}
			s.cur = src
			s.mu.Unlock()
		}
		n, err := src.Read(ctx, buf)
		if err == nil || ctx.Err() != nil || errors.Is(err, io.EOF) {
			// io.EOF is a stream that ends on purpose; a device that
			// vanishes reports an error.
			return n, err
		}
		s.fail(fmt.Errorf("reading audio source %q: %w", s.spec, err))
		s.mu.Lock()
		if s.cur == src {
			s.cur = nil
		}
		s.mu.Unlock()
		_ = src.Close()
		if n > 0 {
			return n, nil
		}
	}
}

func (s *Reopener) fail(err error) {
	s.mu.Lock()
	s.failures++
	s.lastErr = err
	cb := s.onError
	s.mu.Unlock()
	s.log.Warn("audio source failed; retrying", "source", s.spec, "err", err)
	if cb != nil {
		cb(err)
	}
}

// Failures reports how many reads or reopens failed, and the last error.
func (s *Reopener) Failures() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures, s.lastErr
}

// Close closes the current device; later reads fail with ErrClosed.
func (s *Reopener) Close() error {
	s.mu.Lock()
	src := s.cur
	s.cur, s.closed = nil, true
	s.mu.Unlock()
	if src != nil {
		return src.Close()
	}
	return nil
}

func sleepFor(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SetOnError sets a function called with each failure (read or reopen),
// from the reading goroutine; it must not block.
func (s *Reopener) SetOnError(f func(error)) {
	s.mu.Lock()
	s.onError = f
	s.mu.Unlock()
}
