package diag

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/lineedit"
)

// Session limits.
const (
	// maxTypeahead bounds what is typed while a command runs (kept for the
	// next prompts); more is dropped.
	maxTypeahead = 4096
	// readChunk is the most one read from the link takes.
	readChunk = 512
	// MaxIdleLock bounds the idle lock setting.
	MaxIdleLock = 8 * time.Hour
)

// Why a command or session was cut short.
var (
	errInterrupted  = errors.New("interrupted")
	errDisconnected = errors.New("terminal disconnected")
	errTooLong      = fmt.Errorf("line longer than %d bytes; nothing was run", lineedit.MaxLineBytes)
)

// session is one technician's connection: the line editor, the running
// command, and technician mode. Its goroutine (run) owns the editor; the
// pump goroutine only reads the link.
type session struct {
	srv  *Server
	id   int
	conn Conn
	out  *output
	ed   *lineedit.Editor

	stop   context.Context // ended by Server.Close
	cancel context.CancelCauseFunc

	in      chan []byte // from the pump; closed at end of input
	pending []byte      // read but not yet fed to the editor
	eof     bool
	quit    bool
	noted   bool // type-ahead overflow already reported

	lineReq chan lineRequest

	mu         sync.Mutex
	technician bool
	lastActive time.Time
	utterN     int
}

type lineRequest struct {
	prompt string
	secret bool
	reply  chan lineReply
}

type lineReply struct {
	line string
	err  error
}

func newSession(s *Server, id int, c Conn) *session {
	se := &session{srv: s, id: id, conn: c, in: make(chan []byte, 16), lineReq: make(chan lineRequest)}
	se.stop, se.cancel = context.WithCancelCause(context.Background())
	se.out = &output{w: c.W, deadline: c.SetWriteDeadline, timeout: s.writeTO}
	var echo func(string)
	if c.Mode == Terminal {
		echo = func(s string) { _ = se.out.raw(s) }
	}
	se.ed = lineedit.New(echo, s.complete)
	return se
}

func (se *session) isTechnician() bool {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.technician
}

func (se *session) setTechnician(on bool) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.technician = on
	se.lastActive = se.srv.now()
}

// touch records activity, for the idle lock.
func (se *session) touch() {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.lastActive = se.srv.now()
}

// idleLocked locks technician mode when the session sat idle too long and
// reports whether it did.
func (se *session) idleLocked() (time.Duration, bool) {
	se.mu.Lock()
	defer se.mu.Unlock()
	limit := se.srv.idleLimit()
	if se.technician && se.srv.now().Sub(se.lastActive) >= limit {
		se.technician = false
		return limit, true
	}
	return 0, false
}

func (se *session) prompt() string {
	if se.conn.Mode == Script {
		return ""
	}
	if se.isTechnician() {
		return "jibo# "
	}
	return "jibo> "
}

// run is the session: banner, then read a line and run it until the peer
// leaves, the link fails or ctx ends.
func (se *session) run(parent context.Context) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	stopWatch := context.AfterFunc(se.stop, func() { cancel(context.Cause(se.stop)) })
	defer stopWatch()
	se.out.onErr = func(err error) { cancel(err) }

	// The pump reads the link until it fails or is closed; Close below
	// unblocks it, and run waits for it before returning.
	pumpDone := make(chan struct{})
	go func() {
		defer close(pumpDone)
		se.pump(ctx)
	}()
	defer func() {
		cancel(nil)
		if se.conn.Close != nil {
			_ = se.conn.Close()
		}
		<-pumpDone
	}()

	if se.conn.Mode == Terminal {
		se.banner()
	}
	for !se.quit {
		if d, locked := se.idleLocked(); locked {
			se.say(fmt.Sprintf("(technician mode locked: idle for %s)\n", d))
		}
		line, err := se.readLine(ctx, se.prompt(), false)
		switch {
		case errors.Is(err, io.EOF):
			if se.conn.Mode == Terminal && !se.eof {
				se.say("bye\n")
			}
			return nil
		case errors.Is(err, errInterrupted):
			continue
		case errors.Is(err, errTooLong):
			se.sayError(false, err)
			continue
		case err != nil:
			return context.Cause(ctx)
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		se.execute(ctx, line)
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
	}
	return nil
}

func (se *session) banner() {
	env := se.srv.env
	b := fmt.Sprintf("jibod %s diagnostics shell", env.Version)
	if env.Board != "" {
		b += " on the " + env.Board + " board"
	}
	b += ". Type `help` for the commands, Tab completes, Ctrl-C stops a command, Ctrl-D leaves.\n"
	if se.srv.gate.hash == nil {
		b += "(no technician PIN is configured: commands that move the body, change configuration or reboot are unavailable)\n"
	}
	se.say(b)
}

// say prints text from the shell itself.
func (se *session) say(s string) { _ = se.out.text(s) }

func (se *session) sayError(asJSON bool, err error) {
	if asJSON {
		if l, e := jsonLine(map[string]string{"error": err.Error()}); e == nil {
			_ = se.out.raw(l)
			return
		}
	}
	se.say("error: " + err.Error() + "\n")
}

// pump copies the link into se.in until it fails.
func (se *session) pump(ctx context.Context) {
	defer close(se.in)
	buf := make([]byte, readChunk)
	for {
		n, err := se.conn.R.Read(buf)
		if n > 0 {
			chunk := append([]byte(nil), buf[:n]...)
			select {
			case se.in <- chunk:
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// receive takes one chunk of input, reporting false at the end of input.
func (se *session) receive(ctx context.Context) ([]byte, bool, error) {
	if se.eof {
		return nil, false, nil
	}
	select {
	case chunk, ok := <-se.in:
		if !ok {
			se.eof = true
			return nil, false, nil
		}
		return chunk, true, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// readLine edits one line. Bytes typed ahead are used first.
func (se *session) readLine(ctx context.Context, prompt string, secret bool) (string, error) {
	se.ed.Begin(prompt, secret)
	for {
		for len(se.pending) > 0 {
			b := se.pending[0]
			se.pending = se.pending[1:]
			switch se.ed.Feed(b) {
			case lineedit.Line:
				if se.ed.TooLong() {
					return "", errTooLong
				}
				return se.ed.Text(), nil
			case lineedit.Interrupt:
				return "", errInterrupted
			case lineedit.EOF:
				return "", io.EOF
			}
		}
		chunk, ok, err := se.receive(ctx)
		if err != nil {
			return "", err
		}
		if !ok {
			// Input ended. A script's last line may lack its newline.
			if se.conn.Mode == Script && (strings.TrimSpace(se.ed.Text()) != "" || se.ed.TooLong()) {
				t, over := se.ed.Text(), se.ed.TooLong()
				se.ed.Begin("", false)
				if over {
					return "", errTooLong
				}
				return t, nil
			}
			return "", io.EOF
		}
		se.pending = append(se.pending, chunk...)
	}
}

// ask reads a line for a running command (a PIN, a confirmation). The
// session's goroutine does the reading; Ctrl-C there interrupts the command.
func (c *call) ask(prompt string, secret bool) (string, error) {
	req := lineRequest{prompt: prompt, secret: secret, reply: make(chan lineReply, 1)}
	select {
	case c.s.lineReq <- req:
	case <-c.ctx.Done():
		return "", context.Cause(c.ctx)
	}
	r := <-req.reply
	if errors.Is(r.err, io.EOF) {
		return "", errors.New("no answer: the input ended")
	}
	return r.line, r.err
}

// execute runs one command line: the command on its own goroutine, while
// this one watches the link for Ctrl-C, a disconnect, type-ahead and the
// command's questions.
func (se *session) execute(ctx context.Context, line string) {
	// The prompt may have waited long: idleness counts until Enter.
	if d, locked := se.idleLocked(); locked {
		se.say(fmt.Sprintf("(technician mode locked: idle for %s)\n", d))
	}
	se.touch()
	name, args, asJSON, err := parseLine(line)
	if err != nil {
		se.sayError(asJSON, err)
		return
	}
	cmd, ok := se.srv.cmds[name]
	if !ok {
		se.sayError(asJSON, fmt.Errorf("unknown command %q; `help` lists them%s", name, se.srv.suggest(name)))
		return
	}
	priv := cmd.privileged != nil && cmd.privileged(args)
	if priv {
		if !se.isTechnician() {
			se.sayError(asJSON, fmt.Errorf("`%s` needs technician mode: type `unlock` and the robot's PIN", strings.Join(append([]string{name}, firstArg(args)...), " ")))
			se.srv.log.Warn("shell: privileged command refused (locked)", "session", se.id, "from", se.conn.Name, "command", clip(line, 256))
			return
		}
		se.srv.log.Warn("shell: privileged command", "session", se.id, "from", se.conn.Name, "command", clip(line, 256))
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &call{ctx: cctx, s: se, srv: se.srv, args: args, json: asJSON, name: name}
	done := make(chan error, 1)
	go func() { // owned: execute waits for done below on every path
		defer func() {
			if r := recover(); r != nil {
				se.srv.log.Error("shell command panicked", "session", se.id, "command", name, "panic", fmt.Sprint(r),
					"stack", string(debug.Stack()))
				done <- fmt.Errorf("internal error in %s (logged); the robot carries on", name)
			}
		}()
		done <- cmd.run(c)
	}()
	interrupted := false
	for {
		select {
		case err := <-done:
			se.touch()
			switch {
			case err == nil:
			case interrupted && (errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted)):
			case errors.Is(context.Cause(cctx), errDisconnected):
			default:
				se.sayError(asJSON, err)
			}
			if priv {
				se.srv.log.Warn("shell: privileged command done", "session", se.id, "command", name, "result", errString2(err))
			}
			return
		case req := <-se.lineReq:
			l, err := se.readLine(cctx, req.prompt, req.secret)
			if errors.Is(err, errInterrupted) {
				interrupted = true
				cancel(errInterrupted)
			}
			req.reply <- lineReply{l, err}
		case chunk, ok := <-se.inOrNil():
			if !ok {
				se.eof = true
				if se.conn.Mode == Terminal {
					cancel(errDisconnected)
				}
				continue
			}
			if i := bytes.LastIndexByte(chunk, lineedit.KeyCtrlC); i >= 0 {
				// Ctrl-C stops the command and, as on a terminal, throws
				// away what was typed ahead of it.
				se.pending = se.pending[:0]
				chunk = chunk[i+1:]
				if !interrupted {
					interrupted = true
					// The echo first: once cancelled, the command may
					// print its last words ("(1 shown)") at once.
					if se.conn.Mode == Terminal {
						se.say("^C\n")
					}
					cancel(errInterrupted)
				}
			}
			if len(se.pending)+len(chunk) > maxTypeahead {
				if !se.noted {
					se.noted = true
					se.srv.log.Info("shell: type-ahead dropped", "session", se.id)
				}
				continue
			}
			se.pending = append(se.pending, chunk...)
		}
	}
}

// inOrNil is the input channel, or nil (never ready) once input ended.
func (se *session) inOrNil() chan []byte {
	if se.eof {
		return nil
	}
	return se.in
}

func errString2(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func firstArg(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	return args[:1]
}

// parseLine splits a command line into the command, its arguments and
// whether --json was asked for. Arguments are separated by spaces; a
// double-quoted argument may hold spaces.
func parseLine(line string) (name string, args []string, asJSON bool, err error) {
	var cur strings.Builder
	inQuote, have := false, false
	var words []string
	for _, r := range line {
		switch {
		case r == '"':
			inQuote, have = !inQuote, true
		case (r == ' ' || r == '\t') && !inQuote:
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQuote {
		return "", nil, false, errors.New("unbalanced double quote")
	}
	if have {
		words = append(words, cur.String())
	}
	for _, w := range words {
		if w == "--json" {
			asJSON = true
			continue
		}
		args = append(args, w)
	}
	if len(args) == 0 {
		return "", nil, asJSON, errors.New("no command")
	}
	return args[0], args[1:], asJSON, nil
}
