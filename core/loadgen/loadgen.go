// Package loadgen drives a running robot's utterance pipeline as hard as it
// goes, for measurements: typed utterances on a few inputs, several in
// flight on each, every one followed by the next as soon as it is handled.
// They go through the whole robot as a person's would (intent matching, the
// skill, its answer on the body); `jibod motion loop --load` runs it beside
// the motion control loop to measure the loop under pipeline load.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill"
)

// Defaults and limits of Config.
const (
	DefaultInputs   = 2
	DefaultInFlight = 8
	MaxInputs       = 16
	MaxInFlight     = 64
	// MaxLines bounds Config.Lines, and maxLineLen each line.
	MaxLines   = 1024
	maxLineLen = 1024
	// DrainLimit bounds Run's wait for the lines in flight once Stop is
	// closed. It is longer than the orchestrator's own match and handler
	// limits, by which every lifecycle ends with its handled.
	DrainLimit = 2 * time.Minute
)

// Config is what to say and how hard.
type Config struct {
	// Bus is the robot's bus, its pipeline listening. Required.
	Bus *bus.Bus
	// Lines are said in turn on each input: Skills' lines, or lines any
	// skills answer. Required.
	Lines []string
	// Inputs is how many inputs speak (each its own bus source, as two
	// consoles would); 0 means DefaultInputs, at most MaxInputs.
	Inputs int
	// InFlight is how many utterances each input keeps waiting for their
	// handled at once; 0 means DefaultInFlight, at most MaxInFlight.
	InFlight int
	// Stop, when set, ends the load: once it is closed the inputs say no
	// new line, and Run returns when every line said has been answered
	// (or ctx ends, or DrainLimit passes: the rest count as Unanswered).
	// Every input then says at least its first InFlight lines, however late
	// it starts, so a run always carries load, however slow the machine.
	// Without Stop, Run speaks until ctx ends and forgets the lines in
	// flight.
	Stop <-chan struct{}
}

// Result is what a run achieved.
type Result struct {
	// Handled counts the utterances answered: their
	// ovos.utterance.handled came back after no error.
	Handled int64
	// Refused counts those whose skill call the robot refused
	// (jibo.skill.refused: over a manifest's calls_per_minute, say), and
	// Failed those that ended in another error (ovos.intent.handler.error,
	// or a handled carrying one: a full pipeline's refusal). FirstError is
	// the first reason of either.
	Refused, Failed int64
	FirstError      string
	// Unanswered counts the lines said whose handled never came before
	// Run gave up waiting (with Config.Stop only).
	Unanswered int64
	// Elapsed is how long the run lasted.
	Elapsed time.Duration
}

// PerSecond is the rate of utterances handled, refused and failed ones
// included: each went through the pipeline to its handled.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Handled+r.Refused+r.Failed) / r.Elapsed.Seconds()
}

func (c *Config) check() error {
	if c.Bus == nil {
		return errors.New("loadgen: no bus")
	}
	if len(c.Lines) == 0 || len(c.Lines) > MaxLines {
		return fmt.Errorf("loadgen: %d lines: want 1..%d", len(c.Lines), MaxLines)
	}
	for i, l := range c.Lines {
		if l == "" || len(l) > maxLineLen {
			return fmt.Errorf("loadgen: line %d is %d bytes long: want 1..%d", i+1, len(l), maxLineLen)
		}
	}
	if c.Inputs == 0 {
		c.Inputs = DefaultInputs
	}
	if c.InFlight == 0 {
		c.InFlight = DefaultInFlight
	}
	if c.Inputs < 1 || c.Inputs > MaxInputs {
		return fmt.Errorf("loadgen: %d inputs: want 1..%d", c.Inputs, MaxInputs)
	}
	if c.InFlight < 1 || c.InFlight > MaxInFlight {
		return fmt.Errorf("loadgen: %d in flight per input: want 1..%d", c.InFlight, MaxInFlight)
	}
	return nil
}

// run is one Run's state.
type run struct {
	bus  *bus.Bus
	next atomic.Uint64

	mu      sync.Mutex
	waiting map[string]*pending // by input id
	done    chan struct{}       // closed once every speaker returned

	handled, refused, failed, unanswered atomic.Int64
	firstErr                             atomic.Pointer[string]
}

// pending is one utterance waiting for its handled.
type pending struct {
	done    chan struct{}
	outcome outcome
	why     string
}

// outcome is how an utterance ended.
type outcome int

const (
	answered outcome = iota
	refused
	failed
)

// topics are what the load watches: the refusal and the error come before
// the handled, on the one queue, so the handled finds them noted.
var topics = []string{skill.TopicSkillRefused, pipeline.TopicHandlerError, pipeline.TopicHandled}

// Run speaks until ctx ends and reports what was handled meanwhile. It
// returns once every input has stopped; utterances still in the pipeline
// then finish there, unwaited for.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.check(); err != nil {
		return Result{}, err
	}
	r := &run{bus: cfg.Bus, waiting: map[string]*pending{}, done: make(chan struct{})}
	// Never dropped: the pipeline waits for the load rather than lose a
	// handled and leave an input waiting for it.
	sub, err := cfg.Bus.SubscribeAll(topics, r.observe, bus.WithName("loadgen"),
		bus.WithQueue(4*cfg.Inputs*cfg.InFlight, bus.Block))
	if err != nil {
		return Result{}, fmt.Errorf("loadgen: subscribing to %v: %w", topics, err)
	}
	defer sub.Close()
	start := time.Now()
	var wg sync.WaitGroup
	if cfg.Stop != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		wg.Go(func() { r.limitDrain(ctx, cfg.Stop, cancel) })
	}
	var speakers sync.WaitGroup
	for in := range cfg.Inputs {
		source := "load" + strconv.Itoa(in)
		for k := range cfg.InFlight {
			speakers.Go(func() { r.speak(ctx, cfg.Stop, source, cfg.Lines, in+k*cfg.Inputs) })
		}
	}
	speakers.Wait()
	r.drained()
	wg.Wait()
	res := Result{Handled: r.handled.Load(), Refused: r.refused.Load(), Failed: r.failed.Load(),
		Unanswered: r.unanswered.Load(), Elapsed: time.Since(start)}
	if p := r.firstErr.Load(); p != nil {
		res.FirstError = *p
	}
	return res, nil
}

// limitDrain cancels the run DrainLimit after stop closes, unless every
// speaker finished first (drained).
func (r *run) limitDrain(ctx context.Context, stop <-chan struct{}, cancel context.CancelFunc) {
	select {
	case <-stop:
	case <-r.done:
		return
	case <-ctx.Done():
		return
	}
	t := time.NewTimer(DrainLimit)
	defer t.Stop()
	select {
	case <-t.C:
		cancel()
	case <-r.done:
	case <-ctx.Done():
	}
}

func (r *run) drained() { close(r.done) }

// speak says lines in turn from the k-th, one at a time, until ctx ends or
// stop closes; with stop, it says its first line however late it starts.
func (r *run) speak(ctx context.Context, stop <-chan struct{}, source string, lines []string, k int) {
	for i := k; ctx.Err() == nil; i++ {
		if i > k && closed(stop) {
			return
		}
		id := source + "-" + strconv.FormatUint(r.next.Add(1), 10)
		p := &pending{done: make(chan struct{})}
		r.mu.Lock()
		r.waiting[id] = p
		r.mu.Unlock()
		m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{lines[i%len(lines)]}})
		m.Context[bus.KeySource] = source
		m.Context[console.KeyInput] = id
		if err := r.bus.Publish(ctx, m); err != nil {
			r.forget(id)
			return // ctx ended or the bus is closing
		}
		select {
		case <-p.done:
			switch p.outcome {
			case answered:
				r.handled.Add(1)
			case refused:
				r.refused.Add(1)
			case failed:
				r.failed.Add(1)
			}
			if p.why != "" {
				r.firstErr.CompareAndSwap(nil, &p.why)
			}
		case <-ctx.Done():
			r.forget(id)
			if stop != nil {
				r.unanswered.Add(1)
			}
			return
		}
	}
}

// closed reports whether c is closed; a nil c never is.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (r *run) forget(id string) {
	r.mu.Lock()
	delete(r.waiting, id)
	r.mu.Unlock()
}

func (r *run) observe(_ context.Context, m bus.Message) {
	id, _ := m.Context[console.KeyInput].(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.waiting[id]
	if p == nil {
		return
	}
	switch m.Type {
	case skill.TopicSkillRefused:
		p.outcome, p.why = refused, m.DataString("error")
	case pipeline.TopicHandlerError:
		if p.outcome == answered {
			p.outcome, p.why = failed, m.DataString("exception")
		}
	case pipeline.TopicHandled:
		if why := m.DataString("error"); why != "" {
			p.outcome, p.why = failed, why
		}
		delete(r.waiting, id)
		close(p.done)
	}
}
