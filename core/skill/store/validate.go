package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/ascii"
)

// Limits on what a record holds.
const (
	// MaxIDLen bounds bus session ids and skill ids, in bytes.
	MaxIDLen = 256
	// MaxTimerIDLen bounds timer ids, in bytes.
	MaxTimerIDLen = 64
	// MaxLangLen bounds a language tag, in bytes (BCP 47 tags in use are
	// far shorter).
	MaxLangLen = 35
	// MaxLabelLen bounds a timer's label, in bytes.
	MaxLabelLen = 256
)

// field is a validation error naming the member it concerns.
type field struct {
	name string
	msg  string
}

func (f *field) Error() string { return f.name + ": " + f.msg }

// fieldErr is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func fieldErr(name, format string, args ...any) error {
	return &field{name: name, msg: fmt.Sprintf(format, args...)}
}

// checkText checks a string member: valid UTF-8, no control characters
// (keys join members with NUL, and logs print them), at most max bytes,
// and present when required.
func checkText(name, s string, max int, required bool) error {
	switch {
	case s == "" && required:
		return fieldErr(name, "required")
	case len(s) > max:
		return fieldErr(name, "%d bytes, limit %d", len(s), max)
	case !utf8.ValidString(s):
		return fieldErr(name, "not valid UTF-8")
	}
	for i, r := range s {
		if unicode.IsControl(r) {
			return fieldErr(name, "control character %U at byte %d", r, i)
		}
	}
	return nil
}

// checkLang accepts "" (the robot's default language) or a BCP 47-shaped
// tag such as "en-US": `^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`.
func checkLang(name, s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxLangLen || !ascii.Tag(s, 2, 8, 1, 8, -1) {
		return fieldErr(name, "%q is not a language tag like en-US", truncate(s))
	}
	return nil
}

// checkObjectOrNull accepts nil (absent), a JSON object or null, like the
// protocol's memo.
func checkObjectOrNull(name string, raw json.RawMessage, max int) error {
	if raw == nil {
		return nil
	}
	if len(raw) > max {
		return fieldErr(name, "%d bytes, limit %d", len(raw), max)
	}
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || (t[0] != '{' && !bytes.Equal(bytes.TrimRight(t, " \t\r\n"), []byte("null"))) || !json.Valid(raw) {
		return fieldErr(name, "want a JSON object or null")
	}
	return nil
}

// truncate shortens a value quoted in an error message.
func truncate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:max] + "…"
}

// encode writes v as compact JSON without HTML escaping, so verbatim
// members (session data with ESML in it) keep their bytes.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
