package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/skill"
)

// BenchmarkUtteranceToFirstCommand measures, on the real wiring with the sim
// board, how long a text utterance takes from its entry on the bus
// (ovos.utterance.handle) to the first command the JCP executor gives the
// body (the first jibo.body.* event). Each iteration waits for the
// utterance to be handled before the next one starts.
//
// The clock skill takes at most calls_per_minute (120) calls a minute, so
// beyond about 120 iterations the robot refuses the rest, as it must a
// burst, and says so on the bus (skill.TopicSkillRefused): those
// utterances have no first command. They are counted ("refused"), and the
// latencies are those of the utterances answered.
func BenchmarkUtteranceToFirstCommand(b *testing.B) {
	r := newBenchRobot(b)
	events := make(chan bus.Message, 1024)
	sub, err := r.Bus().SubscribeAll([]string{"jibo.body.*", skill.TopicSkillRefused, pipeline.TopicHandled},
		func(_ context.Context, m bus.Message) { events <- m }, bus.WithQueue(1024, bus.Block))
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()

	var lat []time.Duration
	refused := 0
	for b.Loop() {
		first, wasRefused := utterOnce(b, r.Bus(), events, len(lat)+refused+1)
		if wasRefused {
			refused++
		} else {
			lat = append(lat, first)
		}
	}
	b.ReportMetric(float64(refused), "refused")
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
}

// utterOnce sends the benchmark's utterance n and reads its events up to
// its handled: it returns how long the first command to the body took, or
// that the utterance was refused. Everything of the utterance comes before
// its handled, in order: one subscription delivers them.
func utterOnce(b *testing.B, bs *bus.Bus, events <-chan bus.Message, n int) (time.Duration, bool) {
	start := time.Now()
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{"what time is it"}})
	if err := bs.Publish(context.Background(), m); err != nil {
		b.Fatal(err)
	}
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	var first time.Time
	refused := false
	for {
		select {
		case e := <-events:
			switch {
			case e.Type == pipeline.TopicHandled:
				if !refused && first.IsZero() {
					b.Fatalf("utterance %d handled without a command to the body and without a refusal", n)
				}
				return first.Sub(start), refused
			case e.Type == skill.TopicSkillRefused:
				refused = true
			case first.IsZero():
				first = time.Now()
			}
		case <-timeout.C:
			b.Fatalf("utterance %d not handled within a minute", n)
		}
	}
}

// newBenchRobot starts the whole robot on the sim board for a benchmark:
// instant speech, no logs, a fixed clock. It is closed when b ends.
func newBenchRobot(b *testing.B) *runtime.Robot {
	b.Helper()
	ctx := context.Background()
	r, err := newTestRobot(ctx, runtime.Config{Board: "sim", SpeakWPM: 0, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return time.Date(2026, 1, 1, 9, 30, 0, 0, time.UTC) }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close(ctx) })
	return r
}
