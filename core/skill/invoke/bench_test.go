package invoke

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// The record path: what every skill call adds after the skill answers.
func BenchmarkRecord(b *testing.B) {
	r := rec(1, "jibo/timer", OutcomeOK)
	b.Run("log", func(b *testing.B) {
		l := NewLog(0)
		b.ReportAllocs()
		for b.Loop() {
			l.Record(r)
		}
	})
	b.Run("file", func(b *testing.B) {
		f, err := OpenFile(filepath.Join(b.TempDir(), "runs.jsonl"), FileOptions{Logger: quiet})
		require.NoError(b, err)
		defer f.Close()
		b.ReportAllocs()
		for b.Loop() {
			f.Record(r)
		}
	})
}

// A whole call of a skill answering at once: goroutine, timeout, response
// validation, action parse and permission check, record to the log.
func BenchmarkCall(b *testing.B) {
	l := NewLog(0)
	iv, err := New(Config{Recorder: l, Logger: quiet})
	require.NoError(b, err)
	m := manifest(registry.PermSpeech, registry.PermListen)
	m.Limits.CallsPerMinute = registry.MaxCallsPerMinute
	req := launch("time_left")
	resp := sayResponse(b, req, jcp.Question("Four minutes left. Anything else?", "timer/followup"))
	h := func(context.Context, *protocol.Request) (*protocol.Response, error) { return resp, nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		// Stay under calls_per_minute: this measures the call, not the limiter.
		iv.rates = map[string]*window{}
		if _, err := iv.Call(ctx, m, h, req); err != nil {
			b.Fatal(err)
		}
	}
}

// sayNothing is a voice that speaks instantly, so BenchmarkCallAndRun
// measures the path to the body rather than speech.
type sayNothing struct{}

func (sayNothing) Say(context.Context, string) error { return nil }

// The invoker → executor path of a turn: the skill answers at once, the
// invoker validates the response and parses, checks and permits the
// action (once), and the executor runs it as checked.
func BenchmarkCallAndRun(b *testing.B) {
	iv, err := New(Config{Recorder: NewLog(0), Logger: quiet})
	require.NoError(b, err)
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: sayNothing{}, Logger: quiet})
	require.NoError(b, err)
	m := manifest(registry.PermSpeech, registry.PermListen, registry.PermMotion)
	m.Limits.CallsPerMinute = registry.MaxCallsPerMinute
	req := launch("weather")
	resp := sayResponse(b, req, jcp.Sequence(
		jcp.Say("<speak><es cat='happy' filter='!ssa-only, !sfx-only' endNeutral='true'>It's sunny and 72 degrees in Boston today.</es> <anim cat='dance' nonBlocking='true'/> Enjoy it!</speak>"),
		jcp.Question("Anything else?", "weather/followup")))
	h := func(context.Context, *protocol.Request) (*protocol.Response, error) { return resp, nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		iv.rates = map[string]*window{}
		reply, err := iv.Call(ctx, m, h, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ex.RunChecked(ctx, reply.Action, nil); err != nil {
			b.Fatal(err)
		}
	}
}
