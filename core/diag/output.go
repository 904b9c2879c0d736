package diag

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// output is a session's way to its terminal, shared by the session's
// goroutine (echo) and the running command and its helpers. Every write is
// bounded by a deadline when the link supports one, so a terminal that
// stops reading ends its session instead of holding a command (or a bus
// subscriber) forever. The first error is kept and reported to onErr.
type output struct {
	mu       sync.Mutex
	w        io.Writer
	deadline func(time.Time) error // nil when the link has none
	timeout  time.Duration
	err      error
	onErr    func(error)
}

// errLinkLost marks a session whose terminal could not be written to.
var errLinkLost = errors.New("terminal link lost")

func (o *output) raw(s string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	if o.deadline != nil && o.timeout > 0 {
		_ = o.deadline(time.Now().Add(o.timeout)) // best effort: not every file supports deadlines
	}
	if _, err := io.WriteString(o.w, s); err != nil {
		o.err = fmt.Errorf("%w: %w", errLinkLost, err)
		if o.onErr != nil {
			o.onErr(o.err)
		}
		return o.err
	}
	return nil
}

// text writes s made safe for a terminal: see sanitize.
func (o *output) text(s string) error { return o.raw(sanitize(s)) }

// sanitize makes text from the robot (utterances, log lines, bus data)
// safe to print: control characters other than newline and tab become
// visible (^[ for ESC, <U+0085> for C1 controls), invalid UTF-8 becomes
// U+FFFD, so nothing a user said can move the cursor or reprogram the
// technician's terminal.
func sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonLine encodes v as one line of JSON without HTML escaping.
func jsonLine(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return b.String(), nil
}
