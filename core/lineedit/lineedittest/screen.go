// Package lineedittest is a dumb terminal for tests of line editing
// programs: it shows what a person would see from the bytes sent.
package lineedittest

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Screen is a dumb terminal for tests: it shows what a person would see
// from the bytes a program sends. It knows CR, LF, backspace (cursor left,
// nothing erased) and BEL, as a glass teletype does, and prints everything
// else; an escape sequence would show as garbage, which is the point: a
// line editor for any terminal must not send any.
type Screen struct {
	mu    sync.Mutex
	lines [][]rune
	row   int
	col   int
	bells int
	raw   strings.Builder
	utf   []byte
}

// NewScreen returns an empty screen.
func NewScreen() *Screen { return &Screen{lines: [][]rune{nil}} }

// Write shows p.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	for _, b := range p {
		if len(s.utf) > 0 || b >= 0x80 {
			s.utf = append(s.utf, b)
			if !utf8.FullRune(s.utf) {
				continue
			}
			r, _ := utf8.DecodeRune(s.utf)
			s.utf = s.utf[:0]
			s.put(r)
			continue
		}
		switch b {
		case '\r':
			s.col = 0
		case '\n':
			s.row++
			if s.row == len(s.lines) {
				s.lines = append(s.lines, nil)
			}
		case '\b':
			if s.col > 0 {
				s.col--
			}
		case '\a':
			s.bells++
		default:
			s.put(rune(b))
		}
	}
	return len(p), nil
}

func (s *Screen) put(r rune) {
	l := s.lines[s.row]
	for len(l) < s.col {
		l = append(l, ' ')
	}
	if s.col < len(l) {
		l[s.col] = r
	} else {
		l = append(l, r)
	}
	s.lines[s.row] = l
	s.col++
}

// Text is the whole screen, lines trimmed on the right.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines {
		out = append(out, strings.TrimRight(string(l), " "))
	}
	return strings.Join(out, "\n")
}

// Last is the line the cursor is on.
func (s *Screen) Last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimRight(string(s.lines[s.row]), " ")
}

// Bells counts the bells rung.
func (s *Screen) Bells() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bells
}

// Raw is every byte written, as written.
func (s *Screen) Raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw.String()
}
