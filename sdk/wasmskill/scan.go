package wasmskill

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads JSON without reflection: encoding/json costs about half a
// millisecond per request inside a WebAssembly module, this a tenth of
// that. It validates what it walks and never panics on bad input.
type scanner struct {
	b     []byte
	i     int
	depth int
}

// maxDepth bounds nesting, as the robot's protocol decoder does.
const maxDepth = 64

var errSyntax = errors.New("invalid JSON")

func (s *scanner) fail(what string) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, s.i, what)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value skips one value and returns its bytes.
func (s *scanner) value() ([]byte, error) {
	s.ws()
	start := s.i
	if s.i >= len(s.b) {
		return nil, s.fail("unexpected end")
	}
	var err error
	switch c := s.b[s.i]; {
	case c == '{':
		err = s.object(func(string) error { _, err := s.value(); return err })
	case c == '[':
		err = s.array()
	case c == '"':
		_, err = s.str()
	case c == 't':
		err = s.lit("true")
	case c == 'f':
		err = s.lit("false")
	case c == 'n':
		err = s.lit("null")
	default:
		err = s.number()
	}
	if err != nil {
		return nil, err
	}
	return s.b[start:s.i], nil
}

func (s *scanner) lit(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.fail("want " + word)
	}
	s.i += len(word)
	return nil
}

// number skips a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case digits() == 0:
		return s.fail("bad value")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return s.fail("bad number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return s.fail("bad number")
		}
	}
	return nil
}

func (s *scanner) enter() error {
	if s.depth++; s.depth > maxDepth {
		return s.fail("nested too deep")
	}
	return nil
}

// object walks an object, calling member with each key; member must
// consume the value.
func (s *scanner) object(member func(key string) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return nil
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.fail("want a member name")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.fail("want ':'")
		}
		s.i++
		if err := member(key); err != nil {
			return err
		}
		if end, err := s.next('}'); end || err != nil {
			return err
		}
	}
}

// next reads what follows a member or an element: a ',' before the next
// one, or end, which closes the container (end is true).
func (s *scanner) next(end byte) (bool, error) {
	s.ws()
	if s.i >= len(s.b) {
		return false, s.fail("unexpected end")
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, nil
	case end:
		s.i++
		s.depth--
		return true, nil
	}
	return false, s.fail("want ',' or '" + string(rune(end)) + "'")
}

func (s *scanner) array() error {
	if err := s.enter(); err != nil {
		return err
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return nil
	}
	for {
		if _, err := s.value(); err != nil {
			return err
		}
		if end, err := s.next(']'); end || err != nil {
			return err
		}
	}
}

// str reads a string at s.i (a '"'), decoding escapes.
func (s *scanner) str() (string, error) {
	s.i++ // '"'
	start := s.i
	for s.i < len(s.b) { // the common case: no escapes
		c := s.b[s.i]
		if c == '"' {
			out := s.b[start:s.i]
			s.i++
			if !utf8.Valid(out) {
				return string([]rune(string(out))), nil // as encoding/json: invalid bytes become U+FFFD
			}
			return string(out), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		s.i++
	}
	out := append([]byte(nil), s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return string([]rune(string(out))), nil
		case c < 0x20:
			return "", s.fail("control character in a string")
		case c != '\\':
			out = append(out, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return "", s.fail("unexpected end")
		}
		esc := s.b[s.i+1]
		s.i += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", s.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					save := s.i
					s.i += 2
					if lo, ok := s.hex4(); ok {
						if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
							r2 = d
						} else {
							s.i = save
						}
					} else {
						return "", s.fail("bad \\u escape")
					}
				}
				r = r2
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", s.fail("bad escape")
		}
	}
	return "", s.fail("unterminated string")
}

func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// stringOrNull reads a string or null ("").
func (s *scanner) stringOrNull() (string, error) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '"' {
		return s.str()
	}
	v, err := s.value()
	if err != nil {
		return "", err
	}
	if string(v) != "null" {
		return "", s.fail("want a string")
	}
	return "", nil
}

// objectOrSkip walks an object with member, or skips any other value
// (the SDK reads what it understands and leaves the rest to Raw).
func (s *scanner) objectOrSkip(member func(key string) error) error {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '{' {
		return s.object(member)
	}
	_, err := s.value()
	return err
}
