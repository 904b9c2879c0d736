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
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
)

// ListenerChain hears a file through the robot's listener (transformer
// chain, voice activity detector, recogniser, wake and command-window
// logic) on a bus of its own. The pipeline is played by the chain, which
// answers every ovos.utterance.handle at once with ovos.utterance.handled:
// what a command means is scored by the Understander, not acted on.
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
}

func (t *timedRecognizer) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	runtime.LockOSThread()
	cpu0, ok0 := threadCPU()
	start := time.Now()
	h, err := t.inner.Recognize(ctx, pcm)
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

// gatedSource opens the command window before the first read: the
// listener reads only once it is subscribed, so its first read is the
// moment a wake request reaches it. It asks, then waits until the window
// is open.
type gatedSource struct {
	src    audio.Source
	open   func(ctx context.Context) error // nil: no window to open
	opened <-chan struct{}
}

func (g *gatedSource) Read(ctx context.Context, buf []int16) (int, error) {
	if g.open != nil {
		open := g.open
		g.open = nil
		if err := open(ctx); err != nil {
			return 0, err
		}
		t := time.NewTimer(10 * time.Second)
		defer t.Stop()
		select {
		case <-g.opened:
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-t.C:
			return 0, errors.New("eval: the command window did not open")
		}
	}
	return g.src.Read(ctx, buf)
}

func (g *gatedSource) Close() error { return g.src.Close() }

// collector records what the listener put on the bus.
type collector struct {
	mu     sync.Mutex
	heard  Heard
	opened chan struct{} // closed at the shell wake that opens the window
	once   sync.Once
	synced chan struct{} // closed at the end marker
	bus    *bus.Bus
	log    *slog.Logger
}

const topicEnd = "jibo.eval.end"

func (c *collector) handle(ctx context.Context, m bus.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m.Type {
	case listen.TopicWake:
		if m.DataString("source") == listen.SourceShell {
			c.once.Do(func() { close(c.opened) })
			return
		}
		c.heard.Wakes++
	case listen.TopicSpeechEnd:
		switch ms := m.Data["duration_ms"].(type) {
		case int64:
			if ms > 0 {
				c.heard.Utterances++
			}
		case float64:
			if ms > 0 {
				c.heard.Utterances++
			}
		}
	case listen.TopicRecognized:
		best, conf := "", 0.0
		var first map[string]any
		if hs, ok := m.Data["hypotheses"].([]map[string]any); ok && len(hs) > 0 {
			first = hs[0]
		} else if hs, ok := m.Data["hypotheses"].([]any); ok && len(hs) > 0 {
			first, _ = hs[0].(map[string]any)
		}
		if first != nil {
			best, _ = first["text"].(string)
			conf, _ = first["confidence"].(float64)
		}
		c.heard.Recognized = append(c.heard.Recognized, best)
		c.heard.Confidences = append(c.heard.Confidences, conf)
		switch ms := m.Data["latency_ms"].(type) {
		case int64:
			c.heard.Latencies = append(c.heard.Latencies, time.Duration(ms)*time.Millisecond)
		case float64:
			c.heard.Latencies = append(c.heard.Latencies, time.Duration(ms*float64(time.Millisecond)))
		}
	case pipeline.TopicHandle:
		var utts []string
		switch u := m.Data["utterances"].(type) {
		case []any:
			for _, x := range u {
				if s, ok := x.(string); ok {
					utts = append(utts, s)
				}
			}
		case []string:
			utts = append(utts, u...)
		}
		c.heard.Commands = append(c.heard.Commands, utts)
		// Play the pipeline: the utterance is handled at once.
		if err := c.bus.Publish(ctx, m.Forward(pipeline.TopicHandled, map[string]any{})); err != nil {
			c.log.Warn("eval: answering an utterance", "err", err)
		}
	case topicEnd:
		close(c.synced)
	}
}

// Hear runs pcm through a fresh listener and reports what it did.
func (lc *ListenerChain) Hear(ctx context.Context, pcm []int16, open bool) (Heard, error) {
	if lc.Recognizer == nil {
		return Heard{}, errors.New("eval: no recogniser")
	}
	log := lc.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b := bus.New(bus.Options{Logger: log})
	defer b.Close(context.WithoutCancel(ctx))
	col := &collector{opened: make(chan struct{}), synced: make(chan struct{}), bus: b, log: log}
	sub, err := b.SubscribeAll([]string{listen.TopicWake, listen.TopicSpeechEnd, listen.TopicRecognized, pipeline.TopicHandle, topicEnd},
		col.handle, bus.WithName("eval"), bus.WithQueue(1024, bus.Block))
	if err != nil {
		return Heard{}, err
	}
	defer sub.Close()

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
	src := &gatedSource{src: audio.NewClipSource(pcm, false), opened: col.opened}
	if open {
		src.open = func(ctx context.Context) error {
			return b.Publish(ctx, bus.NewMessage(listen.TopicWakeRequest, map[string]any{}))
		}
	}
	cfg := listen.Config{Bus: b, Source: src, Recognizer: rec, Chain: chain, VAD: lc.VAD,
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
	// Everything the listener published is queued before the marker.
	if err := b.Publish(ctx, bus.NewMessage(topicEnd, map[string]any{})); err != nil {
		return Heard{}, err
	}
	select {
	case <-col.synced:
	case <-ctx.Done():
		return Heard{}, ctx.Err()
	}
	col.mu.Lock()
	h := col.heard
	col.mu.Unlock()
	rec.mu.Lock()
	h.RecognizeTime, h.Speech = rec.took, rec.heard
	if rec.cpuOK {
		h.RecognizeCPU = rec.cpu
	}
	rec.mu.Unlock()
	if tw != nil && tw.cpuOK { // the listener has stopped: tw is no longer fed
		h.WakeCPU = tw.cpu
	}
	return h, nil
}
