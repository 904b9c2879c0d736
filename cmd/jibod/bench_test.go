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
)

// BenchmarkUtteranceToFirstCommand measures, on the real wiring with the sim
// board, how long a text utterance takes from its entry on the bus
// (ovos.utterance.handle) to the first command the JCP executor gives the
// body (the first jibo.body.* event). Each iteration waits for the
// utterance to be handled before the next one starts.
func BenchmarkUtteranceToFirstCommand(b *testing.B) {
	ctx := context.Background()
	r := newBenchRobot(b)
	first := make(chan time.Time, 64)
	handled := make(chan struct{}, 64)
	sub, err := r.bus.SubscribeAll([]string{"jibo.body.*", pipeline.TopicHandled}, func(_ context.Context, m bus.Message) {
		if m.Type == pipeline.TopicHandled {
			handled <- struct{}{}
			return
		}
		select {
		case first <- time.Now():
		default:
		}
	}, bus.WithQueue(1024, bus.Block))
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()

	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{"what time is it"}})
		if err := r.bus.Publish(ctx, m); err != nil {
			b.Fatal(err)
		}
		t := <-first
		lat = append(lat, t.Sub(start))
		<-handled
		for len(first) > 0 { // later commands of the same action
			<-first
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
}

// newBenchRobot starts the whole robot on the sim board for a benchmark:
// instant speech, no logs, a fixed clock. It is closed when b ends.
func newBenchRobot(b *testing.B) *robot {
	b.Helper()
	ctx := context.Background()
	r, err := newRobot(ctx, robotConfig{Board: "sim", SpeakWPM: 0, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return time.Date(2026, 1, 1, 9, 30, 0, 0, time.UTC) }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close(ctx) })
	return r
}
