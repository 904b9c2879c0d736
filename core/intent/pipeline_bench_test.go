package intent_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

type noop struct{}

func (noop) Invoke(context.Context, pipeline.Dispatch) (session.Session, error) {
	return session.Session{}, nil
}

// BenchmarkEntryToDispatch measures an utterance's way through the robot's
// pipeline: from ovos.utterance.handle on the bus to the dispatch message
// reaching a subscriber, with 100 skills (5 template intents each,
// registered on the bus) and the robot's default pipeline: stop, converse,
// the intent stack's bands and three fallback stages. The handler returns
// at once; each iteration waits for handled before the next. It lives
// here, beside the stack, because the pipeline package may not import it.
func BenchmarkEntryToDispatch(b *testing.B) {
	b.Run("default-pipeline", func(b *testing.B) { benchEntryToDispatch(b, nil) })
	// The same with the claiming band alone: the floor of bus hops and the
	// lifecycle itself, for comparison.
	b.Run("one-plugin", func(b *testing.B) { benchEntryToDispatch(b, []string{intent.BandHigh}) })
}

func benchEntryToDispatch(b *testing.B, order []string) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	bs := bus.New(bus.Options{Logger: log})
	defer bs.Close(ctx)

	stack, err := intent.NewStack(intent.StackConfig{Bus: bs, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	if err := stack.Start(); err != nil {
		b.Fatal(err)
	}
	defer stack.Close()
	if order == nil {
		order = stack.Pipeline()
	}
	stop, err := pipeline.NewStop(pipeline.StopConfig{Bus: bs, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	conv, err := pipeline.NewConverse(pipeline.ConverseConfig{Bus: bs, Logger: log, Eligible: func(string) bool { return false }})
	if err != nil {
		b.Fatal(err)
	}
	fb, err := pipeline.NewFallbacks(pipeline.FallbackConfig{Bus: bs, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	plugins := append([]pipeline.Plugin{stop, conv}, stack.Plugins()...)
	for _, p := range fb.DefaultStages() {
		plugins = append(plugins, p)
	}
	o, err := pipeline.New(pipeline.Config{Bus: bs, Invoker: noop{}, Logger: log, Plugins: plugins, Listeners: []pipeline.Listener{fb},
		Defaults: session.Defaults{Lang: "en-US", Pipeline: order}, Rules: stack.Rules()})
	if err != nil {
		b.Fatal(err)
	}
	if err := o.Start(); err != nil {
		b.Fatal(err)
	}
	defer o.Close(ctx)

	for s := 0; s < 100; s++ {
		skill := fmt.Sprintf("skill%03d", s)
		for i := 0; i < 5; i++ {
			m := bus.NewMessage(intent.TopicRegisterTemplate, map[string]any{"skill_id": skill, "intent_name": fmt.Sprint("task", i),
				"lang": "en-US", "samples": []any{fmt.Sprintf("run task %d of skill %d", i, s), fmt.Sprintf("start job %d for %d [please]", i, s)}})
			m.Context[bus.KeySkillID] = skill
			if err := bs.Publish(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
	}
	// One channel keeps dispatch and handled in bus order.
	type event struct {
		handled bool
		at      time.Time
	}
	events := make(chan event, 16)
	listed := make(chan struct{}, 1)
	sub, err := bs.Subscribe("*", func(_ context.Context, m bus.Message) {
		switch {
		case m.Type == pipeline.TopicHandled:
			events <- event{handled: true}
		case m.Type == intent.TopicList+".response":
			listed <- struct{}{}
		case strings.Contains(m.Type, ":"):
			events <- event{at: time.Now()}
		}
	}, bus.WithQueue(1024, bus.Block))
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	if err := bs.Publish(ctx, bus.NewMessage(intent.TopicList, nil)); err != nil {
		b.Fatal(err)
	}
	<-listed // every registration is indexed

	var lat []time.Duration
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		s, i := n%100, n%5
		n++
		m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{fmt.Sprintf("run task %d of skill %d", i, s)}})
		start := time.Now()
		if err := bs.Publish(ctx, m); err != nil {
			b.Fatal(err)
		}
		e := <-events
		if e.handled {
			b.Fatalf("utterance %d was not dispatched", n)
		}
		lat = append(lat, e.at.Sub(start))
		<-events // handled
	}
	// CPU time of the whole process per utterance (every goroutine: bus,
	// orchestrator, plugins, this loop): steadier than latency on a shared
	// machine, where latency mostly measures waiting for a core.
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e3/float64(n), "cpu-µs/op")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*95/100].Nanoseconds())/1e3, "p95-µs")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
