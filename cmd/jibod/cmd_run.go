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

	"github.com/openjibo/jibod/audio/listen"
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
	input := fs.String("input", "console", "where typed utterances come from: console (interactive), stdin (one per line), none (only --audio; the run ends with the audio) or shell (standard input/output is the diagnostics shell; the run ends with it)")
	trace := fs.String("trace", "", "write every bus message to this file as JSON lines ('-' for standard output)")
	wpm := fs.Int("speak-wpm", -1, "sim speaker rate in words per minute, 0 = instant (default: the profile's)")
	lang := fs.String("lang", "en-US", "default language")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error (logs go to standard error)")
	stateDir := fs.String("state", defaultStateDir(), "folder keeping skill conversations, timers, run records and the loop across restarts ('none': memory only; default $"+stateDirEnv+")")
	listenWindow := fs.Duration("listen-window", 0, "how long a skill's question waits for its answer (default 30s)")
	realtime := fs.Bool("realtime", true, realtimeUsage)
	offline := fs.Bool("offline", false, "start offline: installed WebAssembly skills cannot fetch from the network, and the hub is not contacted")
	var localSkills programList
	fs.Var(&localSkills, "local-skill", "start this `PROGRAM`, a Go skill built with core/skill/local's Main, and host its skill (repeatable; docs/go-skills.md)")
	hf := addHubFlags(fs, true)
	af := addAudioFlags(fs)
	sf := addShellFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listenWindow < 0 || *listenWindow > time.Hour {
		return usageError{fmt.Sprintf("--listen-window %s: want 0..1h", *listenWindow)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *input != "console" && *input != "stdin" && *input != "none" && *input != "shell" {
		return usageError{fmt.Sprintf("--input %q: want console or stdin (or none, with --audio; or shell)", *input)}
	}
	if err := af.check(*input); err != nil {
		return err
	}
	if err := sf.check(); err != nil {
		return err
	}
	hubCfg, err := hf.config()
	if err != nil {
		return err
	}
	logs, err := newRunLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	log := logs.log
	// The shell's reboot (--shell-reboot exit) ends the run with errRestart.
	ctx, restart := context.WithCancelCause(ctx)
	defer restart(nil)

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
	if *input == "shell" {
		out = io.Discard // standard output is the shell's
	}
	started := time.Now()
	cfg := robotConfig{Board: *boardName, SpeakWPM: *wpm, Lang: *lang, Log: log,
		StateDir: *stateDir, ListenWindow: *listenWindow, Offline: *offline, Speech: af.Speech, Hub: hubCfg, RealTime: *realtime,
		LocalSkills: localSkills}
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
	backends, freeBackends := audioBackends(log)
	// The shell hears what the robot hears through a tap on the backends.
	mic := newMicTap(af.Audio, backends)
	if mic != nil {
		backends = mic.Backends()
	}
	hear, err := startListening(ctx, r, af, *lang, newRecognizer, backends, log)
	if err != nil {
		u.Close()
		watch.Close()
		return errors.Join(err, freeBackends(), r.Close(context.Background()))
	}
	shell, err := startShell(ctx, r, sf, shellDeps{Logs: logs, StateDir: *stateDir, Started: started, Mic: mic,
		Listener: hear.listener(), Restart: func() { restart(errRestart) }})
	if err != nil {
		u.Close()
		watch.Close()
		return errors.Join(err, hear.stop(), freeBackends(), r.Close(context.Background()))
	}
	if con.interactive {
		fmt.Fprintf(out, "jibod %s on the %s board. Type to talk to the robot; Ctrl-D to leave.\n", version, r.body.Profile.Name)
	}
	var loopErr error
	switch *input {
	case "none":
		loopErr = hear.wait(ctx) // until the audio ends
	case "shell":
		loopErr = shell.serveStdio(ctx, stdin, stdout)
	default:
		loopErr = readUtterances(ctx, stdin, u, con, log)
	}
	shell.stop()
	hearErr := errors.Join(hear.stop(), freeBackends())

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
	err = errors.Join(hearErr, err)
	if errors.Is(context.Cause(ctx), errRestart) {
		return exitCodeError{code: restartExitCode, err: errors.Join(errRestart, err)}
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
	pipeline.TopicHandled, "jibo.body.*", listen.TopicRecognized, listen.TopicError}

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
	case listen.TopicRecognized, listen.TopicError:
		c.printf("%s\n", heardLine(m))
		return
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

// programList is a repeatable flag of program paths.
type programList []string

func (l *programList) String() string { return strings.Join(*l, ",") }

func (l *programList) Set(v string) error {
	if v == "" {
		return errors.New("empty program")
	}
	*l = append(*l, v)
	return nil
}
