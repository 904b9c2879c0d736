package wasm

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
)

// maxHead bounds the standard error kept to explain a failure: its start,
// where a Go module's fatal error says what went wrong before its
// goroutine dump.
const maxHead = 512

// output takes a module's standard output and error: complete lines go to
// the robot's log (within the request's log bound), and the end of
// standard error is kept to explain a crash ("fatal error: out of
// memory").
type output struct {
	s *Skill

	mu   sync.Mutex
	cs   *callState // the call in progress; nil between calls
	out  lineBuf
	err  lineBuf
	head []byte
}

type lineBuf struct{ b []byte }

func (o *output) begin(cs *callState) {
	o.mu.Lock()
	o.cs, o.head = cs, o.head[:0]
	o.mu.Unlock()
}

// end logs what is left of unfinished lines and forgets the call.
func (o *output) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.emit(slog.LevelInfo, "stdout", o.out.b)
	o.emit(slog.LevelWarn, "stderr", o.err.b)
	o.out.b, o.err.b = o.out.b[:0], o.err.b[:0]
	if o.cs != nil && o.cs.droppedLogs > 0 {
		o.s.log.Warn("module log lines dropped", "count", o.cs.droppedLogs, "limit", MaxLogLines)
	}
	o.cs = nil
}

// stderrHead is the first lines the module wrote to standard error
// during the call, on one line.
func (o *output) stderrHead() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(string(o.head), "\n") {
		if l = strings.TrimSpace(l); l != "" && len(lines) < 2 {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

func (o *output) emit(level slog.Level, source string, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if o.cs != nil {
		o.cs.logLine(level, source, string(line))
		return
	}
	o.s.log.Log(context.Background(), level, string(line), "source", source)
}

func (o *output) write(buf *lineBuf, level slog.Level, source string, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if source == "stderr" && len(o.head) < maxHead {
		o.head = append(o.head, p[:min(len(p), maxHead-len(o.head))]...)
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := MaxLogLineBytes - len(buf.b)
			buf.b = append(buf.b, p[:min(len(p), max(room, 0))]...)
			return
		}
		line := append(buf.b, p[:i]...)
		o.emit(level, source, line[:min(len(line), MaxLogLineBytes)])
		buf.b = buf.b[:0]
		p = p[i+1:]
	}
}

type stream struct {
	o      *output
	buf    *lineBuf
	level  slog.Level
	source string
}

func (w stream) Write(p []byte) (int, error) {
	w.o.write(w.buf, w.level, w.source, p)
	return len(p), nil
}

func (o *output) stdout() stream { return stream{o, &o.out, slog.LevelInfo, "stdout"} }
func (o *output) stderr() stream { return stream{o, &o.err, slog.LevelWarn, "stderr"} }
