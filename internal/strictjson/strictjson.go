// Package strictjson reads JSON that comes from outside the robot (hub
// frames, skill messages, JCP actions, manifests, MIMs, corpora, data and
// configuration files, bus messages) strictly, where encoding/json is
// lenient in two ways that let two readers disagree about one document:
//
//   - An object naming a member twice: encoding/json keeps the last one,
//     another parser may keep the first. Check refuses it, naming the
//     member.
//   - Invalid UTF-8: encoding/json silently turns it into U+FFFD, as it
//     does a \u escape leaving a UTF-16 surrogate unpaired. Check refuses
//     both, in member names and values alike.
//
// Check also checks the syntax (one value, whitespace around it allowed),
// reporting syntax errors as encoding/json does, so a reader can call it
// in place of json.Valid. Unmarshal is Check then json.Unmarshal;
// CheckMembers suits readers with their own decoder.
//
// The package depends on the standard library only, so every package of
// the module can use it whatever its layer.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Problems Check reports, wrapped in an *Error.
var (
	// ErrDuplicate: an object names a member twice.
	ErrDuplicate = errors.New("member given twice")
	// ErrInvalidUTF8: a string or member name is not valid UTF-8, or a
	// \u escape leaves a UTF-16 surrogate unpaired.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
)

// Error is a problem Check found.
type Error struct {
	// Path is the JSON path of the member or element at fault, such as
	// "data.result.nlu.rules[1]"; empty for the document itself.
	Path string
	// Offset is the problem's byte offset in the document.
	Offset int
	// Err is ErrDuplicate or ErrInvalidUTF8.
	Err error
	// Detail says more, such as the member's name.
	Detail string
}

// Error renders "path: problem (detail) at byte N".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem())
	fmt.Fprintf(&b, " at byte %d", e.Offset)
	return b.String()
}

// Problem is the error without its path and offset, for readers that
// report paths their own way.
func (e *Error) Problem() string {
	if e.Detail == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + " (" + e.Detail + ")"
}

// Unwrap returns ErrDuplicate or ErrInvalidUTF8.
func (e *Error) Unwrap() error { return e.Err }

// Unmarshal checks data with Check, then decodes it into v with
// json.Unmarshal.
func Unmarshal(data []byte, v any) error {
	if err := Check(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// CheckMembers is Check for readers that keep their own decoder's
// account of syntax errors: it returns only an *Error (a member given
// twice, invalid UTF-8), and nil when data has none before its first
// syntax error, which the reader's decoder then reports.
func CheckMembers(data []byte) error {
	var e *Error
	if err := Check(data); errors.As(err, &e) {
		return e
	}
	return nil
}

// maxDepth bounds nesting, as encoding/json does; readers apply their own
// lower limits.
const maxDepth = 10000

// Check reports the first problem of data as one JSON document: a syntax
// error (as encoding/json reports it: *json.SyntaxError), or an *Error for
// a member given twice or invalid UTF-8.
func Check(data []byte) error {
	c := checkers.Get().(*checker)
	c.data = data
	err := c.run()
	c.reset()
	checkers.Put(c)
	return err
}

// checkers recycles checkers, so checking a document costs no
// allocations for its stack and member names.
var checkers = sync.Pool{New: func() any { return new(checker) }}

// reset drops every reference into the last document.
func (c *checker) reset() {
	clear(c.keys[:cap(c.keys)])
	clear(c.stack[:cap(c.stack)])
	c.keys, c.stack, c.data, c.i = c.keys[:0], c.stack[:0], nil, 0
}

// frame is one open object or array.
type frame struct {
	object bool
	// keys is where this object's member names start in checker.keys.
	keys int
	// set holds the names once the object has many, for constant-time
	// lookups.
	set map[string]struct{}
	// index is the current element's index (arrays).
	index int
	// name is the current member's name (objects); nil before the first.
	name []byte
}

type checker struct {
	data  []byte
	i     int
	stack []frame
	// keys holds the member names of every open object, innermost last.
	keys [][]byte
}

// smallObject is how many members an object may have before its names go
// into a map; below it a linear scan is cheaper.
const smallObject = 16

func (c *checker) run() error {
	c.space()
	if err := c.value(); err != nil {
		return err
	}
	c.space()
	if c.i != len(c.data) {
		return c.syntax()
	}
	return nil
}

// value checks the value at c.i; containers are walked with an explicit
// stack, so depth costs no Go stack.
func (c *checker) value() error {
	for {
		if c.i >= len(c.data) {
			return c.syntax()
		}
		switch b := c.data[c.i]; {
		case b == '{' || b == '[':
			if len(c.stack) >= maxDepth {
				return c.syntax()
			}
			c.i++
			c.stack = append(c.stack, frame{object: b == '{', keys: len(c.keys)})
			c.space()
			if c.i < len(c.data) && (c.data[c.i] == '}' || c.data[c.i] == ']') {
				if (c.data[c.i] == '}') != (b == '{') {
					return c.syntax()
				}
				c.i++
				c.pop()
				break
			}
			if b == '{' {
				if err := c.member(); err != nil {
					return err
				}
			}
			continue // the first member's value or the first element
		case b == '"':
			if _, err := c.str(); err != nil {
				return err
			}
		case b == 't':
			if err := c.literal("true"); err != nil {
				return err
			}
		case b == 'f':
			if err := c.literal("false"); err != nil {
				return err
			}
		case b == 'n':
			if err := c.literal("null"); err != nil {
				return err
			}
		case b == '-' || (b >= '0' && b <= '9'):
			if err := c.number(); err != nil {
				return err
			}
		default:
			return c.syntax()
		}
		// A value ended: close containers or move to the next member.
		for {
			if len(c.stack) == 0 {
				return nil
			}
			c.space()
			if c.i >= len(c.data) {
				return c.syntax()
			}
			f := &c.stack[len(c.stack)-1]
			b := c.data[c.i]
			if b == ',' {
				c.i++
				c.space()
				if f.object {
					if err := c.member(); err != nil {
						return err
					}
				} else {
					f.index++
				}
				break // the next value
			}
			if (f.object && b == '}') || (!f.object && b == ']') {
				c.i++
				c.pop()
				continue
			}
			return c.syntax()
		}
	}
}

func (c *checker) pop() {
	f := c.stack[len(c.stack)-1]
	c.keys = c.keys[:f.keys]
	c.stack = c.stack[:len(c.stack)-1]
}

// member reads a member name and its colon, refusing a name the object
// already has.
func (c *checker) member() error {
	if c.i >= len(c.data) || c.data[c.i] != '"' {
		return c.syntax()
	}
	start := c.i
	name, err := c.str()
	if err != nil {
		return err
	}
	f := &c.stack[len(c.stack)-1]
	f.name = name
	names := c.keys[f.keys:]
	dup := false
	switch {
	case f.set != nil:
		_, dup = f.set[string(name)]
	default:
		for _, k := range names {
			if bytes.Equal(k, name) {
				dup = true
				break
			}
		}
	}
	if !dup {
		c.keys = append(c.keys, name)
		switch {
		case f.set != nil:
			f.set[string(name)] = struct{}{}
		case len(names)+1 > smallObject:
			f.set = make(map[string]struct{}, 2*smallObject)
			for _, k := range c.keys[f.keys:] {
				f.set[string(k)] = struct{}{}
			}
		}
	}
	c.space()
	if c.i >= len(c.data) || c.data[c.i] != ':' {
		return c.syntax()
	}
	c.i++
	c.space()
	if dup {
		return &Error{Path: c.path(), Offset: start, Err: ErrDuplicate, Detail: strconv.Quote(string(name))}
	}
	return nil
}

func (c *checker) space() {
	for c.i < len(c.data) {
		switch c.data[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *checker) literal(word string) error {
	if !bytes.HasPrefix(c.data[c.i:], []byte(word)) {
		return c.syntax()
	}
	c.i += len(word)
	return nil
}

func (c *checker) number() error {
	d := c.data
	i := c.i
	if d[i] == '-' {
		i++
	}
	digits := func() bool {
		s := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > s
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return c.syntax()
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return c.syntax()
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return c.syntax()
		}
	}
	c.i = i
	return nil
}

// str reads the string at c.i and returns its content: the raw bytes
// when it has no escapes, else the decoded text.
func (c *checker) str() ([]byte, error) {
	d := c.data
	start := c.i + 1
	i := start
	var out []byte // decoded text, once an escape is seen
	for {
		if i >= len(d) {
			return nil, c.syntax()
		}
		b := d[i]
		switch {
		case b == '"':
			c.i = i + 1
			if out == nil {
				return d[start:i:i], nil
			}
			return out, nil
		case b < 0x20:
			return nil, c.syntax()
		case b == '\\':
			if out == nil {
				out = append(make([]byte, 0, i-start+8), d[start:i]...)
			}
			n, r, err := c.escape(i)
			if err != nil {
				return nil, err
			}
			out = utf8.AppendRune(out, r)
			i += n
		case b < utf8.RuneSelf:
			if out != nil {
				out = append(out, b)
			}
			i++
		default:
			r, n := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, c.badUTF8(i, "byte "+strconv.Quote(string(d[i:i+1])))
			}
			if out != nil {
				out = append(out, d[i:i+n]...)
			}
			i += n
		}
	}
}

// escape decodes the escape at d[i] ('\\'), returning its length and
// rune; a surrogate must come as a \uD8xx\uDCxx pair.
func (c *checker) escape(i int) (int, rune, error) {
	d := c.data
	if i+1 >= len(d) {
		return 0, 0, c.syntax()
	}
	switch d[i+1] {
	case '"', '\\', '/':
		return 2, rune(d[i+1]), nil
	case 'b':
		return 2, '\b', nil
	case 'f':
		return 2, '\f', nil
	case 'n':
		return 2, '\n', nil
	case 'r':
		return 2, '\r', nil
	case 't':
		return 2, '\t', nil
	case 'u':
	default:
		return 0, 0, c.syntax()
	}
	r, ok := hex4(d, i+2)
	if !ok {
		return 0, 0, c.syntax()
	}
	if !utf16.IsSurrogate(r) {
		return 6, r, nil
	}
	if r < 0xdc00 && i+11 < len(d) && d[i+6] == '\\' && d[i+7] == 'u' {
		if lo, ok := hex4(d, i+8); ok {
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				return 12, pair, nil
			}
		}
	}
	return 0, 0, c.badUTF8(i, fmt.Sprintf(`\u%04x is half a UTF-16 surrogate pair`, r))
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, b := range d[i : i+4] {
		r <<= 4
		switch {
		case b >= '0' && b <= '9':
			r |= rune(b - '0')
		case b >= 'a' && b <= 'f':
			r |= rune(b - 'a' + 10)
		case b >= 'A' && b <= 'F':
			r |= rune(b - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// badUTF8 reports invalid UTF-8 at offset off: in the member name being
// read, or in the current value.
func (c *checker) badUTF8(off int, detail string) error {
	return &Error{Path: c.path(), Offset: off, Err: ErrInvalidUTF8, Detail: detail}
}

// syntax reports a syntax error as encoding/json words it.
func (c *checker) syntax() error {
	var v json.RawMessage
	if err := json.Unmarshal(c.data, &v); err != nil {
		return err
	}
	// Both parsers should agree; if encoding/json took it, say where
	// this one stopped.
	return &json.SyntaxError{Offset: int64(c.i)}
}

// path renders the JSON path of the value being read: members joined by
// '.', array elements as [i].
func (c *checker) path() string {
	var b strings.Builder
	for _, f := range c.stack {
		switch {
		case !f.object:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.index))
			b.WriteByte(']')
		case f.name != nil:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(f.name)
		}
	}
	return b.String()
}
