package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/audio/wake"
)

// ListenerChain hears a file through the robot's listener (transformer
// chain, voice activity detector, recogniser, wake and command-window
// logic). The robot is played by the chain, which takes every command as
// handled at once: what a command means is scored by the Understander,
// not acted on.
type ListenerChain struct {
	Recognizer audio.Recognizer
	// Wake, if set, makes each file's wake word detector (listen.Config's
	// Wake); nil leaves the wake phrase to the recogniser.
	Wake func() (listen.WakeDetector, error)
	// Transformers run ahead of detection, as the robot's chain; nil runs
	// a DC blocker as the robot does.
	Transformers func() ([]transform.Transformer, error)
	VAD          vad.Config
	Lang         string
	Logger       *slog.Logger
}

// timedRecognizer measures the recogniser: wall time, and the CPU time
// of the thread it runs on (locked to it for the call, so a recogniser
// that computes on the calling goroutine, as a cgo one does, is measured
// whatever else the machine runs).
type timedRecognizer struct {
	inner audio.Recognizer
	mu    sync.Mutex
	took  time.Duration
	cpu   time.Duration
	cpuOK bool
	heard time.Duration
	// decisions are the verdicts, in order.
	decisions []Decision
}

func (t *timedRecognizer) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	return t.recognizeVerdict(ctx, pcm)
}

// timed runs recognize on pcm and counts its wall and CPU time.
func (t *timedRecognizer) timed(ctx context.Context, pcm []int16,
	recognize func(context.Context, []int16) ([]audio.Hypothesis, error)) ([]audio.Hypothesis, error) {
	runtime.LockOSThread()
	cpu0, ok0 := threadCPU()
	start := time.Now()
	h, err := recognize(ctx, pcm)
	took := time.Since(start)
	cpu1, ok1 := threadCPU()
	runtime.UnlockOSThread()
	t.mu.Lock()
	t.took += took
	t.cpu += cpu1 - cpu0
	t.cpuOK = ok0 && ok1
	t.heard += samplesDuration(len(pcm))
	t.mu.Unlock()
	return h, err
}

// RecognizeVerdict is Recognize, recording the inner recogniser's verdict
// when it gives one (audio.VerdictRecognizer): the listener hands it every
// utterance it recognises as a command.
func (t *timedRecognizer) recognizeVerdict(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	vr, ok := t.inner.(audio.VerdictRecognizer)
	if !ok {
		return t.timed(ctx, pcm, t.inner.Recognize)
	}
	var v audio.Verdict
	h, err := t.timed(ctx, pcm, func(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
		var (
			h   []audio.Hypothesis
			err error
		)
		h, v, err = vr.RecognizeVerdict(ctx, pcm)
		return h, err
	})
	if err == nil {
		t.mu.Lock()
		t.decisions = append(t.decisions, Decision{Audio: samplesDuration(len(pcm)), Verdict: v})
		t.mu.Unlock()
	}
	return h, err
}

// AlignWake is the inner recogniser's (listen.PhraseAligner), where it
// has one: its search is part of hearing a command, so its wall and CPU
// time count with the recognitions' (the audio it searches is not
// counted again as audio heard).
func (t *timedRecognizer) AlignWake(ctx context.Context, pcm []int16) (int, bool, error) {
	a, ok := t.inner.(listen.PhraseAligner)
	if !ok {
		return 0, false, nil
	}
	runtime.LockOSThread()
	cpu0, ok0 := threadCPU()
	start := time.Now()
	end, found, err := a.AlignWake(ctx, pcm)
	took := time.Since(start)
	cpu1, ok1 := threadCPU()
	runtime.UnlockOSThread()
	t.mu.Lock()
	t.took += took
	t.cpu += cpu1 - cpu0
	t.cpuOK = t.cpuOK && ok0 && ok1
	t.mu.Unlock()
	return end, found, err
}

// NoRecognizer hears no words: with it the chain measures the wake word
// alone (wake hits, false wakes), in a build without speech recognition.
type NoRecognizer struct{}

// Recognize returns no hypothesis.
func (NoRecognizer) Recognize(context.Context, []int16) ([]audio.Hypothesis, error) { return nil, nil }

// timedWake measures the wake word detector's CPU time: it is fed from
// the listener's read loop, one chunk at a time.
type timedWake struct {
	inner listen.WakeDetector
	cpu   time.Duration
	cpuOK bool
}

func (t *timedWake) Feed(pcm []int16) []wake.Detection {
	runtime.LockOSThread()
	cpu0, ok0 := threadCPU()
	d := t.inner.Feed(pcm)
	cpu1, ok1 := threadCPU()
	runtime.UnlockOSThread()
	t.cpu += cpu1 - cpu0
	t.cpuOK = ok0 && ok1
	return d
}

// gatedSource opens the command window before the first read at or past
// stream position at (samples), as a wake request would.
type gatedSource struct {
	src  audio.Source
	open func(ctx context.Context) // nil: no window to open
	at   int64
	read int64
}

func (g *gatedSource) Read(ctx context.Context, buf []int16) (int, error) {
	if g.open != nil && g.read >= g.at {
		open := g.open
		g.open = nil
		open(ctx)
	}
	n, err := g.src.Read(ctx, buf)
	g.read += int64(n)
	return n, err
}

func (g *gatedSource) Close() error { return g.src.Close() }

// collector records what the listener heard and did (listen.Events), and
// takes every command as handled at once.
type collector struct {
	mu    sync.Mutex
	heard Heard
	// handled is the listener's Handled, set before it runs.
	handled func(id string)
}

// Event records the wakes (but the one opening the window), utterances
// and recognitions.
func (c *collector) Event(_ context.Context, topic string, data map[string]any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch topic {
	case listen.TopicWake:
		if data["source"] == listen.SourceShell {
			return nil
		}
		c.heard.Wakes++
	case listen.TopicSpeechEnd:
		if millis(data["duration_ms"]) > 0 {
			c.heard.Utterances++
			reason, _ := data["reason"].(string)
			c.heard.Spans = append(c.heard.Spans, Span{Start: millis(data["start_ms"]), End: millis(data["end_ms"]), Reason: reason})
		}
	case listen.TopicRecognized:
		best, conf := "", 0.0
		var first map[string]any
		if hs, ok := data["hypotheses"].([]map[string]any); ok && len(hs) > 0 {
			first = hs[0]
		} else if hs, ok := data["hypotheses"].([]any); ok && len(hs) > 0 {
			first, _ = hs[0].(map[string]any)
		}
		if first != nil {
			best, _ = first["text"].(string)
			conf, _ = first["confidence"].(float64)
		}
		c.heard.Recognized = append(c.heard.Recognized, best)
		c.heard.Confidences = append(c.heard.Confidences, conf)
		if _, ok := data["latency_ms"]; ok {
			c.heard.Latencies = append(c.heard.Latencies, millis(data["latency_ms"]))
		}
	}
	return nil
}

// millis reads an event's number of milliseconds (int64 as the listener
// gives it, float64 once through JSON); 0 when absent.
func millis(v any) time.Duration {
	switch ms := v.(type) {
	case int64:
		return time.Duration(ms) * time.Millisecond
	case float64:
		return time.Duration(ms * float64(time.Millisecond))
	}
	return 0
}

// Command records the command and takes it as handled: the robot's
// pipeline is not played, the Understander scores the command.
func (c *collector) Command(_ context.Context, cmd listen.Command) error {
	c.mu.Lock()
	c.heard.Commands = append(c.heard.Commands, append([]string(nil), cmd.Utterances...))
	c.mu.Unlock()
	c.handled(cmd.ID)
	return nil
}

// Stop is the barge-in's stop: there is no speech to stop.
func (c *collector) Stop(context.Context) error { return nil }

// Speak is the robot asking again: it says nothing here.
func (c *collector) Speak(context.Context, string, string) error { return nil }

// Hear runs pcm through a fresh listener and reports what it did; with
// open, the command window opens at position at of pcm.
func (lc *ListenerChain) Hear(ctx context.Context, pcm []int16, open bool, at time.Duration) (Heard, error) {
	if lc.Recognizer == nil {
		return Heard{}, errors.New("eval: no recogniser")
	}
	log := lc.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	col := &collector{}
	var err error
	ts := []transform.Transformer{&transform.DCBlock{}}
	if lc.Transformers != nil {
		if ts, err = lc.Transformers(); err != nil {
			return Heard{}, err
		}
	}
	chain, err := transform.New(transform.Config{Transformers: ts, Logger: log})
	if err != nil {
		return Heard{}, err
	}
	rec := &timedRecognizer{inner: lc.Recognizer}
	src := &gatedSource{src: audio.NewClipSource(pcm, false), at: int64(at) * audio.SampleRate / int64(time.Second)}
	cfg := listen.Config{Events: col, Source: src, Recognizer: rec, Chain: chain, VAD: lc.VAD,
		Lang: lc.Lang, Sync: true, Logger: log}
	var tw *timedWake
	if lc.Wake != nil {
		w, err := lc.Wake()
		if err != nil {
			return Heard{}, fmt.Errorf("eval: the wake word detector: %w", err)
		}
		tw = &timedWake{inner: w}
		cfg.Wake = tw
	}
	lis, err := listen.New(cfg)
	if err != nil {
		return Heard{}, err
	}
	col.handled = lis.Handled
	if open {
		src.open = func(ctx context.Context) { lis.Wake(ctx, listen.SourceShell) }
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- lis.Run(runCtx) }() // owned: waited for below
	runErr := <-done
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return Heard{}, fmt.Errorf("listener: %w", runErr)
	}
	if err := ctx.Err(); err != nil {
		return Heard{}, err
	}
	col.mu.Lock()
	h := col.heard
	col.mu.Unlock()
	rec.mu.Lock()
	h.RecognizeTime, h.Speech = rec.took, rec.heard
	h.Decisions = rec.decisions
	if rec.cpuOK {
		h.RecognizeCPU = rec.cpu
	}
	rec.mu.Unlock()
	if tw != nil && tw.cpuOK { // the listener has stopped: tw is no longer fed
		h.WakeCPU = tw.cpu
	}
	return h, nil
}
