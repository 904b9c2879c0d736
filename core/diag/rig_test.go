package diag

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/lineedit/lineedittest"
	"github.com/openjibo/jibod/core/runtime/diagbody"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// testPIN and its hash (cheap iterations: tests hash it often).
const testPIN = "4321"

var testPINHash = func() string {
	h, err := HashPIN(testPIN, MinPINIterations)
	if err != nil {
		panic(err)
	}
	return h
}()

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// rig is a robot for the shell to look at: a real bus and the simulated
// body (devices, control loop, executor), with a log book.
type rig struct {
	bus    *bus.Bus
	body   *board.Body
	motion *motion.Controller
	exec   *jcp.Executor
	logs   *LogBook
	log    *slog.Logger
	clock  *fakeClock
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{bus: bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)}), logs: NewLogBook(100, slog.LevelInfo), clock: newFakeClock()}
	r.log = slog.New(r.logs.Handler(slog.DiscardHandler))
	prof, err := board.Load("sim")
	require.NoError(t, err)
	prof.Speaker.WPM = 0
	ctx := context.Background()
	r.body, err = board.Open(ctx, prof, board.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	mc := r.body.MotionConfig()
	r.motion, err = motion.New(mc)
	require.NoError(t, err)
	require.NoError(t, r.motion.Start(ctx))
	ec := r.body.ExecutorConfig()
	ec.Motion = r.motion
	r.exec, err = jcp.NewExecutor(ec)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = r.motion.Close(context.Background())
		_ = r.body.Close()
		_ = r.bus.Close(context.Background())
	})
	return r
}

// env is the shell's view of the rig.
func (r *rig) env() Env {
	motors := map[string]Motor{}
	for k, v := range r.body.Motors {
		motors[k] = v
	}
	return Env{Version: "test", Board: "sim", Bus: r.bus, Logs: r.logs, Motion: r.motion, Motors: motors,
		Power: r.body.Power, Home: r.body.MotionConfig().Home, Lights: diagbody.NewLights(r.body.Lights), Actions: r.exec,
		Pipeline: []string{"stop", "converse", "templates-high"}}
}

// server starts a server on the rig; changes adjusts its config first.
func (r *rig) server(t *testing.T, changes func(*Config)) *Server {
	t.Helper()
	cfg := Config{Env: r.env(), Logger: r.log, PINHash: testPINHash, WrongPINDelay: -1, Now: r.clock.Now}
	if changes != nil {
		changes(&cfg)
	}
	s, err := NewServer(cfg)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// syncBuffer is a buffer safe for the session and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// script runs input as a script session and returns what it printed.
func script(t *testing.T, s *Server, input string) string {
	t.Helper()
	var out syncBuffer
	err := s.Serve(context.Background(), Conn{R: strings.NewReader(input), W: &out, Name: "test", Mode: Script})
	require.NoError(t, err)
	return out.String()
}

// term is an interactive session over pipes, shown on a screen.
type term struct {
	t    *testing.T
	in   *io.PipeWriter
	scr  *lineedittest.Screen
	done chan struct{} // closed when Serve returned, with err
	err  error
}

// onlcr is a terminal's output processing: "\n" reaches the screen as CR LF.
type onlcr struct{ w io.Writer }

func (o onlcr) Write(p []byte) (int, error) {
	if _, err := o.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func startTerm(t *testing.T, s *Server) *term {
	t.Helper()
	pr, pw := io.Pipe()
	tm := &term{t: t, in: pw, scr: lineedittest.NewScreen(), done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		tm.err = s.Serve(context.Background(), Conn{R: pr, W: onlcr{tm.scr}, Close: pr.Close, Name: "pipe", Mode: Terminal})
	}()
	t.Cleanup(func() {
		pw.Close()
		<-tm.done
	})
	return tm
}

func (tm *term) typeIn(s string) {
	tm.t.Helper()
	_, err := tm.in.Write([]byte(s))
	require.NoError(tm.t, err)
}

// waitFor waits until the screen shows want.
func (tm *term) waitFor(want string) {
	tm.t.Helper()
	waitScreen(tm.t, tm.scr, want)
}

func waitScreen(t *testing.T, scr *lineedittest.Screen, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(scr.Text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q; it shows:\n%s", want, scr.Text())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countOn counts want on the screen.
func countOn(scr *lineedittest.Screen, want string) int { return strings.Count(scr.Text(), want) }
