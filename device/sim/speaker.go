package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/device"
)

// MaxWPM is the fastest speaking rate a Speaker accepts, in words per minute.
const MaxWPM = 1000

// SpeakerName is the Device name a Speaker reports its events under.
const SpeakerName = "speaker"

// SpeakerOptions configures a simulated speaker.
type SpeakerOptions struct {
	// WPM is the speaking rate in words per minute, 0..MaxWPM. At 0 every
	// utterance is spoken instantly; otherwise each word takes 60s/WPM, so a
	// sentence takes about as long as a person would need to say it.
	WPM int
	// Observer, if set, receives "say", "done" and "interrupted" events.
	Observer device.Observer
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
}

// Speaker is a simulated voice. It speaks one utterance at a time (a second
// Say waits for the first), records what it has said, and when cancelled
// mid-sentence reports how many words had been spoken.
type Speaker struct {
	wordTime time.Duration
	obs      device.Observer
	log      *slog.Logger
	turn     chan struct{} // holds a token while an utterance is in progress
	closing  chan struct{} // closed by Close to interrupt speech

	mu     sync.Mutex
	said   []string
	closed bool
}

var _ device.Voice = (*Speaker)(nil)

// NewSpeaker returns a speaker configured by o.
func NewSpeaker(o SpeakerOptions) (*Speaker, error) {
	if o.WPM < 0 || o.WPM > MaxWPM {
		return nil, fmt.Errorf("sim speaker: wpm %d: want 0..%d", o.WPM, MaxWPM)
	}
	s := &Speaker{
		obs:     o.Observer,
		log:     loggerOrDiscard(o.Logger),
		turn:    make(chan struct{}, 1),
		closing: make(chan struct{}),
	}
	if o.WPM > 0 {
		s.wordTime = time.Minute / time.Duration(o.WPM)
	}
	return s, nil
}

// Say speaks text. It returns a *device.InterruptedError wrapping ctx.Err()
// when ctx is cancelled part-way (or device.ErrClosed when the speaker is
// closed), naming the words spoken so far. Text longer than
// device.MaxSayBytes or not valid UTF-8 is rejected; empty text is a no-op.
func (s *Speaker) Say(ctx context.Context, text string) error {
	if len(text) > device.MaxSayBytes {
		return fmt.Errorf("sim speaker: say: text is %d bytes, limit %d", len(text), device.MaxSayBytes)
	}
	if !utf8.ValidString(text) {
		return errors.New("sim speaker: say: text is not valid UTF-8")
	}
	words := strings.Fields(text)
	if len(words) == 0 {
		return nil
	}
	// Checked first so that a context cancelled before the call never
	// reaches the speaker, whichever way the select below would go.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim speaker: say: %w", err)
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("sim speaker: wait for speaker: %w", ctx.Err())
	case <-s.closing:
		return fmt.Errorf("sim speaker: %w", device.ErrClosed)
	}
	defer func() { <-s.turn }()

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("sim speaker: %w", device.ErrClosed)
	}
	s.emit("say", map[string]any{"text": text})
	s.mu.Unlock()
	s.log.Debug("sim speaker: saying", "text", text)

	for i := range words {
		if err := s.speakWord(ctx); err != nil {
			return s.interrupted(text, strings.Join(words[:i], " "), err)
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.said = append(s.said, text)
	s.emit("done", map[string]any{"text": text})
	return nil
}

// speakWord takes one word's time, or returns why it was cut short.
func (s *Speaker) speakWord(ctx context.Context) error {
	if s.wordTime == 0 {
		// Instant speech still honours a cancelled context and a close.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closing:
			return device.ErrClosed
		default:
			return nil
		}
	}
	t := time.NewTimer(s.wordTime)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing:
		return device.ErrClosed
	}
}

func (s *Speaker) interrupted(text, spoken string, cause error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit("interrupted", map[string]any{"text": text, "spoken": spoken})
	s.log.Debug("sim speaker: interrupted", "text", text, "spoken", spoken, "cause", cause)
	return &device.InterruptedError{Text: text, Spoken: spoken, Err: cause}
}

// Said returns the utterances spoken to the end, oldest first.
func (s *Speaker) Said() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.said...)
}

// Check reports whether the speaker answers: nil unless it is closed.
func (s *Speaker) Check(ctx context.Context) error {
	return check(ctx, "sim speaker", &s.mu, &s.closed)
}

// Close interrupts any utterance in progress and makes further calls fail
// with device.ErrClosed. Closing twice is harmless.
func (s *Speaker) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
	return nil
}

// emit reports an event; the caller holds s.mu so events keep state order.
func (s *Speaker) emit(kind string, values map[string]any) {
	if s.obs != nil {
		s.obs(device.Event{Time: time.Now(), Device: SpeakerName, Kind: kind, Values: values})
	}
}

func loggerOrDiscard(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}
