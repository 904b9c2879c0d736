package console

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/attention"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/lineedit/lineedittest"
	"github.com/openjibo/jibod/core/pipeline"
)

// robot answers utterances on the bus like the pipeline would: "long"
// talks for a minute unless stopped, "stop" stops it, anything else is
// answered at once. It records what it was told, in order.
type robot struct {
	bus *bus.Bus
	mu  sync.Mutex
	log []string
	// stop ends the long answer.
	stop chan struct{}
}

func newRobot(t *testing.T) *robot {
	t.Helper()
	r := &robot{bus: bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)}), stop: make(chan struct{}, 1)}
	sub, err := r.bus.SubscribeAll([]string{pipeline.TopicHandle, pipeline.TopicStop, attention.TopicWake}, func(ctx context.Context, m bus.Message) {
		switch m.Type {
		case pipeline.TopicStop:
			r.note("ovos.stop from " + m.ContextString(bus.KeySource))
			r.halt()
			return
		case attention.TopicWake:
			r.note("wake from " + m.DataString("source"))
			return
		}
		text := m.Data["utterances"].([]any)[0].(string)
		r.note(text)
		go func() { // the answer runs on, as a skill does
			switch text {
			case "long":
				_ = r.bus.Publish(ctx, m.Forward(pipeline.TopicSpeak, map[string]any{"utterance": "Let me tell you a long story"}))
				select {
				case <-r.stop:
					r.note("long stopped")
				case <-time.After(time.Minute):
					r.note("long ended")
				}
			case "stop":
				r.halt()
			default:
				_ = r.bus.Publish(ctx, m.Forward(pipeline.TopicSpeak, map[string]any{"utterance": "You said " + text}))
			}
			_ = r.bus.Publish(ctx, m.Forward(pipeline.TopicHandled, map[string]any{}))
		}()
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		sub.Close()
		_ = r.bus.Close(context.Background())
	})
	return r
}

func (r *robot) note(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *robot) halt() {
	select {
	case r.stop <- struct{}{}:
	default:
	}
}

func (r *robot) told() []string {
	synctest.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// out is a console output safe to read while the console writes.
type out struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *out) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *out) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

func start(t *testing.T, r *robot, cfg Config) (io.WriteCloser, chan error, *Console) {
	t.Helper()
	in, w := io.Pipe()
	cfg.Bus, cfg.In = r.bus, in
	if cfg.Source == "" {
		cfg.Source = "stdin"
	}
	cfg.IsStop = func(s string) bool { return s == "stop" }
	cfg.Logger = slog.New(slog.DiscardHandler)
	c, err := New(cfg)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	t.Cleanup(func() {
		_ = w.Close()
		_ = in.Close()
		c.Close()
	})
	return w, done, c
}

// Lines are answered one at a time, in order; the input ends once the last
// one is answered.
func TestLinesInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobot(t)
		o := &out{}
		w, done, _ := start(t, r, Config{Out: o})
		_, _ = io.WriteString(w, "one\ntwo\n\nthree\n")
		require.NoError(t, w.Close())
		require.NoError(t, <-done)
		assert.Equal(t, []string{"one", "two", "three"}, r.told())
		assert.Equal(t, "jibo: You said one\njibo: You said two\njibo: You said three\n", o.String())
	})
}

// "stop" typed while the robot answers reaches it at once, not after the
// answer (STOP-1): the long answer is cut short.
func TestStopGoesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobot(t)
		o := &out{}
		w, done, _ := start(t, r, Config{Out: o})
		_, _ = io.WriteString(w, "long\n")
		time.Sleep(time.Second)
		_, _ = io.WriteString(w, "hello\nstop\n")
		time.Sleep(10 * time.Millisecond)
		assert.Equal(t, []string{"long", "stop", "long stopped", "hello"}, r.told(), "hello waits its turn; stop does not")
		require.NoError(t, w.Close())
		require.NoError(t, <-done)
	})
}

// "hey jibo" typed while the robot talks stops it and wakes it; what
// follows the wake words is the next command.
func TestTypedWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobot(t)
		w, done, _ := start(t, r, Config{Out: &out{}, Source: "console"})
		_, _ = io.WriteString(w, "long\n")
		time.Sleep(time.Second)
		_, _ = io.WriteString(w, "Hey Jibo, what time is it?\n")
		synctest.Wait()
		_, _ = io.WriteString(w, "hey jibo\n")
		require.NoError(t, w.Close())
		require.NoError(t, <-done)
		told := r.told()
		assert.ElementsMatch(t, []string{"long", "ovos.stop from console", "long stopped", "wake from console", "what time is it", "wake from console"}, told)
		assert.Equal(t, []string{"long", "ovos.stop from console"}, told[:2], "the talk is stopped first")
		assert.Equal(t, []string{"what time is it", "wake from console"}, told[4:], "then the command after the wake words")
	})
}

// On a terminal the console edits lines (history on the arrow keys), and
// what the robot says while a line is typed shows above it, the prompt
// and the half-typed line coming back after.
func TestTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobot(t)
		scr := lineedittest.NewScreen()
		crlf := writerFunc(func(p []byte) (int, error) {
			_, _ = scr.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n")))
			return len(p), nil
		})
		w, done, _ := start(t, r, Config{Out: crlf, Edit: true, Source: "console"})
		_, _ = io.WriteString(w, "hello\r")
		synctest.Wait()
		_, _ = io.WriteString(w, "\x1b[A\x1b[D\x1b[Dsay \x1b[C\x1b[C wor") // up: "hello" again, edited
		synctest.Wait()
		// An alarm rings while the line is half typed.
		require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(pipeline.TopicSpeak, map[string]any{"utterance": "Your timer is done!"})))
		synctest.Wait()
		assert.Equal(t, "you> hello\njibo: You said hello\njibo: Your timer is done!\nyou> helsay lo wor", scr.Text())
		_, _ = io.WriteString(w, "ld\r\x04")
		require.NoError(t, <-done)
		assert.Equal(t, []string{"hello", "helsay lo world"}, r.told())
		assert.NotContains(t, scr.Raw(), "\x1b", "no escape sequences sent to the terminal")
	})
}

// Without a terminal the interactive console prompts when it waits, and
// output that comes while it waits gets the prompt back after it.
func TestPromptAfterAsyncOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobot(t)
		o := &out{}
		w, done, _ := start(t, r, Config{Out: o, Interactive: true, Source: "console"})
		_, _ = io.WriteString(w, "hello\n")
		synctest.Wait()
		require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(pipeline.TopicSpeak, map[string]any{"utterance": "Your timer is done!"})))
		synctest.Wait()
		require.NoError(t, w.Close())
		require.NoError(t, <-done)
		assert.Equal(t, "you> jibo: You said hello\nyou> \njibo: Your timer is done!\nyou> \n", o.String())
	})
}

func TestBadLinesAreRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobot(t)
		o := &out{}
		w, done, _ := start(t, r, Config{Out: o})
		_, _ = io.WriteString(w, "bell\x07\n"+strings.Repeat("x", 3000)+"\nok\n")
		require.NoError(t, w.Close())
		require.NoError(t, <-done)
		assert.Equal(t, []string{"ok"}, r.told())
		assert.Equal(t, "(line 1: contains control characters; ignored)\n(line 2: 3000 bytes exceeds the 2048-byte limit; ignored)\njibo: You said ok\n", o.String())
	})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestWake(t *testing.T) {
	for _, tt := range []struct {
		line, rest string
		ok         bool
	}{
		{"hey jibo", "", true},
		{"Hey, Jibo! What's up?", "what's up", true},
		{"okay jibo set a timer", "set a timer", true},
		{"jibo", "", false},
		{"hey there jibo", "", false},
		{"hello", "", false},
	} {
		rest, ok := wake(tt.line)
		assert.Equal(t, tt.ok, ok, tt.line)
		assert.Equal(t, tt.rest, rest, tt.line)
	}
}

// An utterer sends what it is given as an utterance from its source and
// returns the lifecycle that utterance caused, up to its handled.
func TestUttererCollectsTheLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRobot(t)
		u, err := NewUtterer(r.bus, "check")
		require.NoError(t, err)
		defer u.Close()
		id, msgs, err := u.Say(context.Background(), "hello")
		require.NoError(t, err)
		assert.Equal(t, "check-1", id)
		var topics []string
		for _, m := range msgs {
			topics = append(topics, m.Type)
			assert.Equal(t, id, m.Context[KeyInput])
		}
		assert.Equal(t, []string{pipeline.TopicHandle, pipeline.TopicSpeak, pipeline.TopicHandled}, topics)
		assert.Equal(t, "You said hello", msgs[1].DataString("utterance"))
		assert.Equal(t, []string{"hello"}, r.told())

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _, err = u.Say(ctx, "hello again")
		assert.ErrorIs(t, err, context.Canceled)
	})
}

// gatedOut holds the first write until released, as a slow terminal
// would, so what the robot says next waits in the console's queue.
type gatedOut struct {
	out
	first   sync.Once
	writing chan struct{}
	release chan struct{}
}

func (g *gatedOut) Write(p []byte) (int, error) {
	g.first.Do(func() { close(g.writing); <-g.release })
	return g.out.Write(p)
}

// The robot's last words reach the console even when it closes right
// after them, as when an audio file ends as the robot asks again.
func TestCloseShowsWhatWasAlreadySaid(t *testing.T) {
	b := bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	o := &gatedOut{writing: make(chan struct{}), release: make(chan struct{})}
	c, err := New(Config{Bus: b, In: strings.NewReader(""), Out: o, Source: "stdin", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	for _, s := range []string{"Hello.", "Sorry, what was that?"} {
		require.NoError(t, b.Publish(context.Background(), bus.NewMessage(pipeline.TopicSpeak, map[string]any{"utterance": s})))
	}
	<-o.writing
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	require.Eventually(t, func() bool { return b.Stats().Subscribers == 0 }, 10*time.Second, time.Millisecond)
	close(o.release)
	<-closed
	assert.Equal(t, "jibo: Hello.\njibo: Sorry, what was that?\n", o.String())
}
