package runtime

import (
	"context"
	"log/slog"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent/paraphrase"
	"github.com/openjibo/jibod/core/pipeline"
)

// testTrainer remembers the paraphrase models: the robots the tests start
// learn the same skills, so their paraphrase tiers train once.
var testTrainer = paraphrase.NewMemo().Train

// newTestRobot is New on the sim board with an instant speaker, a quiet
// log and the remembered paraphrase models, unless cfg says otherwise.
func newTestRobot(ctx context.Context, cfg Config) (*Robot, error) {
	if cfg.Board == "" && cfg.Profile == nil {
		cfg.Board = "sim"
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Trainer == nil {
		cfg.Trainer = testTrainer
	}
	return New(ctx, cfg)
}

// startRobot starts a test robot that the test's end closes.
func startRobot(t *testing.T, cfg Config) *Robot {
	t.Helper()
	r, err := newTestRobot(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

// utter is a text input on r's bus that the test's end closes.
func utter(t *testing.T, r *Robot) *console.Utterer {
	t.Helper()
	u, err := console.NewUtterer(r.Bus(), "test")
	require.NoError(t, err)
	t.Cleanup(u.Close)
	return u
}

// said is what the robot said in answer to text.
func said(t *testing.T, u *console.Utterer, text string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, msgs, err := u.Say(ctx, text)
	require.NoError(t, err, text)
	var out []string
	for _, m := range msgs {
		switch m.Type {
		case pipeline.TopicSpeak:
			out = append(out, m.DataString("utterance"))
		case pipeline.TopicUnmatched, pipeline.TopicHandlerError:
			t.Fatalf("%q: %s %v", text, m.Type, m.Data)
		}
	}
	return out
}

// clockAnswer is how the clock skill says the time.
var clockAnswer = regexp.MustCompile(`(\d{1,2}:\d\d [AP]M|noon|midnight)\.`)

// recorder keeps every bus message.
type recorder struct {
	mu   sync.Mutex
	msgs []bus.Message
}

func (r *recorder) tap(_ context.Context, m bus.Message) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
}

func (r *recorder) of(topic string) []bus.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []bus.Message
	for _, m := range r.msgs {
		if m.Type == topic {
			out = append(out, m)
		}
	}
	return out
}

// silentASR recognises nothing.
type silentASR struct{}

func (silentASR) Recognize(context.Context, []int16) ([]audio.Hypothesis, error) { return nil, nil }
