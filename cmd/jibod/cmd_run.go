package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
)

// utteranceTimeout bounds waiting for one typed utterance to be handled;
// the pipeline's own handler timeout is shorter, so this only fires if the
// runtime itself is wedged.
const utteranceTimeout = 2 * time.Minute

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	boardName := fs.String("board", "sim", "board profile: a built-in name (sim) or a profile file")
	input := fs.String("input", "console", "where utterances come from: console (interactive) or stdin (one per line)")
	trace := fs.String("trace", "", "write every bus message to this file as JSON lines ('-' for standard output)")
	wpm := fs.Int("speak-wpm", -1, "sim speaker rate in words per minute, 0 = instant (default: the profile's)")
	lang := fs.String("lang", "en-US", "default language")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error (logs go to standard error)")
	stateDir := fs.String("state", defaultStateDir(), "folder keeping skill conversations, timers and run records across restarts ('none': memory only; default $"+stateDirEnv+")")
	listenWindow := fs.Duration("listen-window", 0, "how long a skill's question waits for its answer (default 30s)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listenWindow < 0 || *listenWindow > time.Hour {
		return usageError{fmt.Sprintf("--listen-window %s: want 0..1h", *listenWindow)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *input != "console" && *input != "stdin" {
		return usageError{fmt.Sprintf("--input %q: want console or stdin", *input)}
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}

	out := stdout // where people read what the robot does
	var tap *bus.Tap
	var traceFile *os.File
	switch *trace {
	case "":
	case "-":
		tap = bus.NewTap(stdout, true, log)
		out = io.Discard
	default:
		if traceFile, err = os.Create(*trace); err != nil {
			return fmt.Errorf("opening trace: %w", err)
		}
		defer traceFile.Close()
		tap = bus.NewTap(traceFile, false, log)
	}
	cfg := robotConfig{Board: *boardName, SpeakWPM: *wpm, Lang: *lang, Log: log,
		StateDir: *stateDir, ListenWindow: *listenWindow}
	if tap != nil {
		cfg.Tap = tap.Handle
	}
	r, err := newRobot(ctx, cfg)
	if err != nil {
		return err
	}

	con := &console{w: out, interactive: *input == "console"}
	watch, err := r.bus.SubscribeAll(consoleTopics, con.show, bus.WithName("console"), bus.WithQueue(4096, bus.Block))
	if err != nil {
		r.Close(context.Background())
		return err
	}
	u, err := newUtterer(r.bus, *input)
	if err != nil {
		r.Close(context.Background())
		return err
	}
	if con.interactive {
		fmt.Fprintf(out, "jibod %s on the %s board. Type to talk to the robot; Ctrl-D to leave.\n", version, r.body.Profile.Name)
	}
	loopErr := readUtterances(ctx, stdin, u, con, log)

	u.Close()
	watch.Close()
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = r.Close(closeCtx)
	if tap != nil {
		err = errors.Join(err, tap.Flush())
	}
	if traceFile != nil {
		err = errors.Join(err, traceFile.Close())
	}
	if loopErr != nil && !errors.Is(loopErr, context.Canceled) {
		return errors.Join(loopErr, err)
	}
	return err
}

// readUtterances handles one line at a time until the input ends.
func readUtterances(ctx context.Context, in io.Reader, u *utterer, con *console, log interface {
	Warn(string, ...any)
	Info(string, ...any)
}) error {
	lines := make(chan lineOrErr)
	readerDone := make(chan struct{})
	go func() { // owned: ends at EOF or when the loop below stops reading
		defer close(readerDone)
		lr := newLineReader(in)
		for {
			s, err := lr.Next()
			select {
			case lines <- lineOrErr{s, err}:
			case <-ctx.Done():
				return
			}
			if err != nil && !isSkip(err) {
				return
			}
		}
	}()
	// The reader ends at end of input. After a signal it may still sit in
	// a Read on a terminal that no context can interrupt; it holds nothing
	// and ends with the process.
	defer func() {
		if ctx.Err() == nil {
			<-readerDone
		}
	}()
	for {
		con.prompt()
		var l lineOrErr
		select {
		case l = <-lines:
		case <-ctx.Done():
			return ctx.Err()
		}
		if l.err != nil {
			if isSkip(l.err) {
				con.printf("(%v)\n", l.err)
				log.Warn("input line refused", "err", l.err)
				continue
			}
			if errors.Is(l.err, io.EOF) {
				if con.interactive {
					con.printf("\n")
				}
				return nil
			}
			return fmt.Errorf("reading input: %w", l.err)
		}
		if l.text == "" {
			log.Info("empty input line ignored")
			continue
		}
		uctx, cancel := context.WithTimeout(ctx, utteranceTimeout)
		id, _, err := u.Say(uctx, l.text)
		if err == nil {
			// Everything the lifecycle caused is already queued for the
			// console (bus order is total); wait until it is printed.
			err = con.shown(uctx, id)
		}
		cancel()
		if err != nil {
			log.Warn("utterance not handled", "text", l.text, "err", err)
			con.printf("(not handled: %v)\n", err)
		}
	}
}

type lineOrErr struct {
	text string
	err  error
}

func isSkip(err error) bool {
	var s *errSkip
	return errors.As(err, &s)
}

// console shows people what the robot says and does.
type console struct {
	mu          sync.Mutex
	w           io.Writer
	interactive bool
	acks        map[string]chan struct{} // input id → closed once its handled is shown
}

// consoleTopics are what the console shows.
var consoleTopics = []string{pipeline.TopicSpeak, pipeline.TopicUnmatched, pipeline.TopicHandlerError,
	pipeline.TopicHandled, "jibo.body.*"}

func (c *console) ack(id string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.acks == nil {
		c.acks = map[string]chan struct{}{}
	}
	ch, ok := c.acks[id]
	if !ok {
		ch = make(chan struct{})
		c.acks[id] = ch
	}
	return ch
}

// shown waits until the console has printed the lifecycle of input id.
func (c *console) shown(ctx context.Context, id string) error {
	select {
	case <-c.ack(id):
		c.mu.Lock()
		delete(c.acks, id)
		c.mu.Unlock()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *console) printf(format string, a ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, format, a...)
}

func (c *console) prompt() {
	if c.interactive {
		c.printf("you> ")
	}
}

// show prints speech and outcomes always, and the body's doings on the
// interactive console.
func (c *console) show(_ context.Context, m bus.Message) {
	switch m.Type {
	case pipeline.TopicSpeak:
		c.printf("jibo: %s\n", m.DataString("utterance"))
		return
	case pipeline.TopicUnmatched:
		if m.Context[keyInput] != nil {
			c.printf("jibo: (didn't understand that)\n")
		}
		return
	case pipeline.TopicHandlerError:
		c.printf("jibo: (something went wrong: %s)\n", m.DataString("exception"))
		return
	case pipeline.TopicHandled:
		if id, ok := m.Context[keyInput].(string); ok {
			close(c.ack(id))
		}
		return
	}
	if !c.interactive {
		return
	}
	what := strings.TrimPrefix(m.Type, "jibo.body.")
	var keys []string
	for k := range m.Data {
		if k != "time" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, m.Data[k])
	}
	c.printf("  [body] %s%s\n", what, b.String())
}
