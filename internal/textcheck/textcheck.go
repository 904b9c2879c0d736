// Package textcheck refuses characters that make text read, sound or match
// differently from what it looks like, in text the robot speaks or
// matches: utterances, intent templates and resource lines, names, dialog
// and prompt text.
//
// Refused everywhere: invalid UTF-8, the C0 controls other than TAB (NUL,
// BEL, ESC, …), DEL, the C1 controls (U+0080–U+009F) and the bidirectional
// embedding, override and isolate controls (U+202A–U+202E,
// U+2066–U+2069), which reorder what a reader sees. Line also refuses line
// breaks (LF, CR, U+2028, U+2029); Text, for text that may span lines,
// allows LF and CR.
//
// The package depends on the standard library only, so every package of
// the module can use it whatever its layer.
package textcheck

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Problems, wrapped in an *Error.
var (
	// ErrInvalidUTF8: the text is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrControl: the text holds a refused control character.
	ErrControl = errors.New("control character")
)

// Error is a refused character and where it is.
type Error struct {
	// Offset is the byte offset of the character.
	Offset int
	// Rune is the character (utf8.RuneError for invalid UTF-8).
	Rune rune
	// Err is ErrInvalidUTF8 or ErrControl.
	Err error
}

// Error says what and where: "control character U+0007 (BEL) at byte 3".
func (e *Error) Error() string { return fmt.Sprintf("%s at byte %d", e.Problem(), e.Offset) }

// Problem says what, without where: "control character U+0007 (BEL)",
// for readers that report positions their own way.
func (e *Error) Problem() string {
	if errors.Is(e.Err, ErrInvalidUTF8) {
		return "invalid UTF-8"
	}
	if n := names[e.Rune]; n != "" {
		return fmt.Sprintf("control character U+%04X (%s)", e.Rune, n)
	}
	return fmt.Sprintf("control character U+%04X", e.Rune)
}

// Unwrap returns ErrInvalidUTF8 or ErrControl.
func (e *Error) Unwrap() error { return e.Err }

var names = map[rune]string{
	0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x0a: "LF", 0x0b: "VT", 0x0c: "FF", 0x0d: "CR", 0x1b: "ESC", 0x7f: "DEL",
	0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR",
	0x202a: "LRE", 0x202b: "RLE", 0x202c: "PDF", 0x202d: "LRO", 0x202e: "RLO",
	0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI",
}

// Line checks one line of text: an utterance, a template, a name.
func Line(s string) error { return check(s, false) }

// Text checks text that may span lines: a dialog or prompt.
func Text(s string) error { return check(s, true) }

func check(s string, lines bool) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && !(lines && (c == '\n' || c == '\r'))) || c == 0x7f {
				return &Error{Offset: i, Rune: rune(c), Err: ErrControl}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return &Error{Offset: i, Rune: utf8.RuneError, Err: ErrInvalidUTF8}
		case r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e,
			r >= 0x2066 && r <= 0x2069,
			!lines && (r == 0x2028 || r == 0x2029):
			return &Error{Offset: i, Rune: r, Err: ErrControl}
		}
		i += n
	}
	return nil
}
