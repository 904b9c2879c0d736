package textcheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLineAndText(t *testing.T) {
	tests := []struct {
		name, s    string
		line, text string // "" accepted, else the error
	}{
		{"plain", "what time is it", "", ""},
		{"accents, emoji, right-to-left script", "café 🤖 שלום مرحبا", "", ""},
		{"a tab", "set a timer\tfor five minutes", "", ""},
		{"a newline", "Hello.\nHow are you?", "control character U+000A (LF) at byte 6", ""},
		{"CRLF", "a\r\nb", "control character U+000D (CR) at byte 1", ""},
		{"NUL", "hey\x00jibo", "control character U+0000 (NUL) at byte 3", "control character U+0000 (NUL) at byte 3"},
		{"BEL", "\aring", "control character U+0007 (BEL) at byte 0", "control character U+0007 (BEL) at byte 0"},
		{"ESC, a terminal sequence", "ok\x1b[2J", "control character U+001B (ESC) at byte 2", "control character U+001B (ESC) at byte 2"},
		{"DEL", "a\x7f", "control character U+007F (DEL) at byte 1", "control character U+007F (DEL) at byte 1"},
		{"a C1 control", "a\u0085b", "control character U+0085 at byte 1", "control character U+0085 at byte 1"},
		{"right-to-left override", "play \u202egnos", "control character U+202E (RLO) at byte 5", "control character U+202E (RLO) at byte 5"},
		{"left-to-right embedding", "\u202ax", "control character U+202A (LRE) at byte 0", "control character U+202A (LRE) at byte 0"},
		{"first strong isolate", "x\u2068y\u2069", "control character U+2068 (FSI) at byte 1", "control character U+2068 (FSI) at byte 1"},
		{"line separator", "a\u2028b", "control character U+2028 (LINE SEPARATOR) at byte 1", ""},
		{"invalid UTF-8", "caf\xe9", "invalid UTF-8 at byte 3", "invalid UTF-8 at byte 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				fn   func(string) error
				want string
			}{{Line, tt.line}, {Text, tt.text}} {
				err := c.fn(tt.s)
				if c.want == "" {
					assert.NoError(t, err)
				} else {
					assert.EqualError(t, err, c.want)
				}
			}
		})
	}
}
