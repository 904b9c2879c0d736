// Package console is the robot's text console: a person types to the
// robot and reads what it says and does.
//
// Lines are answered one at a time, in order, but input is read all the
// while: a line that stops the robot ("stop", "never mind", …) goes to the
// robot at once, even in the middle of an answer, and so does a typed
// wake ("hey jibo", with or without a command after it), which first stops
// whatever the robot is doing. On a terminal the console edits lines with
// core/lineedit (history, arrow keys), and what the robot says while a
// line is being typed appears above it, the prompt and the half-typed line
// coming back after.
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/openjibo/jibod/core/attention"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/interrupt"
	"github.com/openjibo/jibod/core/lineedit"
	"github.com/openjibo/jibod/core/pipeline"
)

// KeyInput is the context key the console puts on its entries. Every
// lifecycle message derives its context from the entry's, so it comes back
// on all of them and ties a lifecycle to the line that started it.
const KeyInput = "jibo_input"

// DefaultTimeout bounds waiting for one line to be handled; the pipeline's
// own handler timeout is shorter, so this only fires if the runtime itself
// is wedged.
const DefaultTimeout = 2 * time.Minute

// Prompt is the interactive console's prompt.
const Prompt = "you> "

// wakeWords are the phrases that wake the robot, as a typed line starts.
var wakeWords = [][]string{{"hey", "jibo"}, {"hi", "jibo"}, {"ok", "jibo"}, {"okay", "jibo"}}

// Config configures a Console.
type Config struct {
	// Bus is the robot's bus. Required.
	Bus *bus.Bus
	// In is where lines come from; Out is where the robot's words go.
	// Required.
	In  io.Reader
	Out io.Writer
	// Source names the input on the bus (context.source, and the prefix of
	// the input ids): "console", "stdin".
	Source string
	// Interactive shows a prompt, and the body's doings while it answers.
	Interactive bool
	// Edit reads In as a terminal in raw mode, editing lines with
	// core/lineedit and echoing them to Out. It implies Interactive.
	Edit bool
	// IsStop reports whether a line asks the robot to stop (the stop
	// plugin's vocabulary): such a line goes at once. Nil: none does.
	IsStop func(line string) bool
	// Show formats messages of other topics (the microphone's, say) as a
	// line; a topic maps to its formatter.
	Show map[string]func(bus.Message) string
	// Timeout bounds waiting for one line to be handled; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Console reads lines, hands them to the robot and shows what it does.
type Console struct {
	cfg  Config
	log  *slog.Logger
	next atomic.Uint64

	mu sync.Mutex // orders output and guards the fields below
	// ed edits lines on a terminal; nil without Edit.
	ed *lineedit.Editor
	// prompted: the prompt is on the screen (without Edit).
	prompted bool
	// answering: a line is being answered; the body's doings are shown.
	answering bool
	sub       *bus.Subscription

	handled chan string   // ids of the handled inputs, in order
	closed  chan struct{} // closed by Close
	once    sync.Once
}

// New checks cfg and subscribes to what the console shows. Run reads the
// input; Close stops showing.
func New(cfg Config) (*Console, error) {
	switch {
	case cfg.Bus == nil:
		return nil, errors.New("console: no bus")
	case cfg.In == nil || cfg.Out == nil:
		return nil, errors.New("console: no input or output")
	case cfg.Source == "":
		return nil, errors.New("console: no source name")
	}
	if cfg.Edit {
		cfg.Interactive = true
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.IsStop == nil {
		cfg.IsStop = func(string) bool { return false }
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Console{cfg: cfg, log: log.With("component", "console"), handled: make(chan string, 64), closed: make(chan struct{})}
	if cfg.Edit {
		c.ed = lineedit.New(func(s string) { _, _ = io.WriteString(cfg.Out, s) }, nil)
	}
	topics := []string{pipeline.TopicSpeak, pipeline.TopicUnmatched, pipeline.TopicHandlerError, pipeline.TopicHandled, "jibo.body.*"}
	for t := range cfg.Show {
		topics = append(topics, t)
	}
	sort.Strings(topics[5:])
	sub, err := cfg.Bus.SubscribeAll(topics, c.show, bus.WithName("console-"+cfg.Source), bus.WithQueue(4096, bus.Block))
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	c.sub = sub
	return c, nil
}

// closeDrain bounds how long Close shows what was said before it: the
// robot's last words reach the console even when it closes at once (the
// end of an audio file), but a stuck output cannot hold shutdown.
const closeDrain = 2 * time.Second

// Close stops showing what the robot does, after showing what it had
// already said or done.
func (c *Console) Close() {
	c.once.Do(func() { close(c.closed) })
	ctx, cancel := context.WithTimeout(context.Background(), closeDrain)
	defer cancel()
	if err := c.sub.Drain(ctx); err != nil {
		c.log.Warn("closing the console before it showed everything", "err", err)
	}
}

// Printf writes to the console, above the line being typed.
func (c *Console) Printf(format string, a ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(fmt.Sprintf(format, a...))
}

// writeLocked writes s, keeping the prompt and a half-typed line after
// it; the caller holds c.mu.
func (c *Console) writeLocked(s string) {
	switch {
	case c.ed != nil:
		c.ed.Hide()
		_, _ = io.WriteString(c.cfg.Out, s)
		c.ed.Show()
		return
	case c.prompted && !c.answering:
		// Output while the console waits (an alarm): on a line of its own,
		// and the prompt again after it.
		_, _ = io.WriteString(c.cfg.Out, "\n"+s+Prompt)
		return
	}
	_, _ = io.WriteString(c.cfg.Out, s)
}

// show prints speech and outcomes always, and the body's doings while a
// line is answered on the interactive console.
func (c *Console) show(_ context.Context, m bus.Message) {
	line := ""
	switch m.Type {
	case pipeline.TopicSpeak:
		line = "jibo: " + m.DataString("utterance")
	case pipeline.TopicUnmatched:
		if m.Context[KeyInput] != nil {
			line = "jibo: (didn't understand that)"
		}
	case pipeline.TopicHandlerError:
		line = "(error: " + m.DataString("exception") + ")"
	case pipeline.TopicHandled:
		if id, ok := m.Context[KeyInput].(string); ok && strings.HasPrefix(id, c.cfg.Source+"-") {
			select {
			case c.handled <- id:
			case <-c.closed:
			}
		}
		return
	default:
		if f := c.cfg.Show[m.Type]; f != nil {
			line = f(m)
		} else if strings.HasPrefix(m.Type, "jibo.body.") {
			c.mu.Lock()
			show := c.cfg.Interactive && c.answering
			c.mu.Unlock()
			if show {
				line = bodyLine(m)
			}
		}
	}
	if line != "" {
		c.Printf("%s\n", line)
	}
}

// bodyLine is how the console shows a body event.
func bodyLine(m bus.Message) string {
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
	return "  [body] " + what + b.String()
}

// input is one line read, or why reading ended.
type input struct {
	text string
	err  error
}

// Run reads lines until the input ends (then, once the last line is
// answered, it returns nil) or ctx does.
func (c *Console) Run(ctx context.Context) error {
	lines := make(chan input)
	readerDone := make(chan struct{})
	if c.ed != nil {
		// The prompt is drawn before the first key is read, so keys typed
		// ahead show after it.
		c.mu.Lock()
		c.ed.Begin(Prompt, false)
		c.mu.Unlock()
	}
	go func() { // owned: ends at the end of input, or when Run stops reading
		defer close(readerDone)
		if c.ed != nil {
			c.readTerminal(ctx, lines)
		} else {
			c.readLines(ctx, lines)
		}
	}()
	// The reader ends at the end of input. After a signal it may still sit
	// in a Read that no context can interrupt; it holds nothing and ends
	// with the process (or when the caller closes the input).
	defer func() {
		if ctx.Err() == nil {
			<-readerDone
		}
	}()
	var queue []string
	inflight := ""
	eof := false
	timeout := time.NewTimer(time.Hour)
	timeout.Stop()
	defer timeout.Stop()
	for {
		if inflight == "" && len(queue) > 0 {
			text := queue[0]
			queue = queue[1:]
			id, err := c.send(ctx, text)
			if err != nil {
				return err
			}
			inflight = id
			c.setAnswering(true)
			timeout.Reset(c.cfg.Timeout)
		}
		if inflight == "" && len(queue) == 0 {
			if eof {
				return nil
			}
			c.showPrompt()
		}
		var in input
		var ok bool
		var readCh <-chan input = lines
		if eof {
			readCh = nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case in, ok = <-readCh:
		case id := <-c.handled:
			if id == inflight {
				inflight = ""
				timeout.Stop()
				c.setAnswering(false)
			}
			continue
		case <-timeout.C:
			c.log.Warn("utterance not handled", "input", inflight, "within", c.cfg.Timeout)
			c.Printf("(not handled within %v)\n", c.cfg.Timeout)
			inflight = ""
			c.setAnswering(false)
			continue
		}
		if !ok {
			eof = true
			continue
		}
		var skip *SkipError
		switch {
		case errors.As(in.err, &skip):
			c.Printf("(%v)\n", in.err)
			c.log.Warn("input line refused", "err", in.err)
			continue
		case errors.Is(in.err, io.EOF):
			eof = true
			c.mu.Lock()
			if c.prompted {
				_, _ = io.WriteString(c.cfg.Out, "\n")
				c.prompted = false
			}
			c.mu.Unlock()
			continue
		case in.err != nil:
			return fmt.Errorf("reading input: %w", in.err)
		case in.text == "":
			c.log.Info("empty input line ignored")
			continue
		}
		c.mu.Lock()
		c.prompted = false
		c.mu.Unlock()
		if rest, ok := wake(in.text); ok {
			if inflight != "" {
				if err := interrupt.Stop(ctx, c.cfg.Bus, c.cfg.Source); err != nil {
					return err
				}
			}
			w := bus.NewMessage(attention.TopicWake, map[string]any{"source": c.cfg.Source})
			w.Context[bus.KeySource] = c.cfg.Source
			if err := c.cfg.Bus.Publish(ctx, w); err != nil {
				return fmt.Errorf("waking the robot: %w", err)
			}
			if rest != "" {
				queue = append([]string{rest}, queue...)
			}
			continue
		}
		if c.cfg.IsStop(in.text) {
			// At once, past the queue: the pipeline's stop plugin stops
			// the skill that is talking.
			if _, err := c.send(ctx, in.text); err != nil {
				return err
			}
			continue
		}
		queue = append(queue, in.text)
	}
}

func (c *Console) setAnswering(on bool) {
	c.mu.Lock()
	c.answering = on
	c.mu.Unlock()
}

// showPrompt shows the prompt while the console waits for a line (the
// editor keeps its own).
func (c *Console) showPrompt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.Interactive && c.ed == nil && !c.prompted {
		_, _ = io.WriteString(c.cfg.Out, Prompt)
		c.prompted = true
	}
}

// send hands text to the robot as an utterance and returns its input id.
func (c *Console) send(ctx context.Context, text string) (string, error) {
	id := c.cfg.Source + "-" + strconv.FormatUint(c.next.Add(1), 10)
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{text}})
	m.Context[bus.KeySource] = c.cfg.Source
	m.Context[KeyInput] = id
	if err := c.cfg.Bus.Publish(ctx, m); err != nil {
		return "", fmt.Errorf("sending %q: %w", text, err)
	}
	return id, nil
}

// readLines reads lines without a terminal (a pipe, a file).
func (c *Console) readLines(ctx context.Context, out chan<- input) {
	defer close(out)
	lr := NewLineReader(c.cfg.In)
	for {
		s, err := lr.Next()
		select {
		case out <- input{s, err}:
		case <-ctx.Done():
			return
		}
		var skip *SkipError
		if err != nil && !errors.As(err, &skip) {
			return
		}
	}
}

// readTerminal reads keys from a terminal in raw mode through the line
// editor. Ctrl-D, or Ctrl-C on an empty line, ends the input; Ctrl-C on a
// line abandons it.
func (c *Console) readTerminal(ctx context.Context, out chan<- input) {
	defer close(out)
	buf := make([]byte, 256)
	for {
		n, err := c.cfg.In.Read(buf)
		var took []input
		ended := false
		c.mu.Lock()
		for _, b := range buf[:n] {
			empty := c.ed.Text() == ""
			switch c.ed.Feed(b) {
			case lineedit.Line:
				if c.ed.TooLong() {
					_, _ = fmt.Fprintf(c.cfg.Out, "(line longer than %d bytes; ignored)\n", lineedit.MaxLineBytes)
				} else {
					took = append(took, input{text: strings.TrimSpace(c.ed.Text())})
				}
				c.ed.Begin(Prompt, false)
			case lineedit.Interrupt:
				if empty {
					ended = true
				} else {
					c.ed.Begin(Prompt, false)
				}
			case lineedit.EOF:
				_, _ = io.WriteString(c.cfg.Out, "\n")
				ended = true
			}
			if ended {
				break
			}
		}
		c.mu.Unlock()
		for _, in := range took {
			select {
			case out <- in:
			case <-ctx.Done():
				return
			}
		}
		if ended {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				select {
				case out <- input{err: err}:
				case <-ctx.Done():
				}
			}
			return
		}
	}
}

// wake reports whether a line starts with a wake phrase, and what follows
// it.
func wake(line string) (rest string, ok bool) {
	words := strings.FieldsFunc(strings.ToLower(line), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	for _, w := range wakeWords {
		if len(words) >= len(w) && equal(words[:len(w)], w) {
			return strings.Join(words[len(w):], " "), true
		}
	}
	return "", false
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
