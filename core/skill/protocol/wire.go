package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/strictjson"
)

// FieldError reports a member of a message that is missing, of the wrong
// JSON type or out of range. Decoding and validation return it (possibly
// wrapped) so callers can tell which member was at fault.
type FieldError struct {
	// Path is the member's JSON path from the top of the message, such as
	// "data.result.nlu.rules[1]"; empty for the message itself.
	Path string
	// Problem says what is wrong, such as "want string".
	Problem string
}

// Error renders "path: problem".
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Problem
	}
	return e.Path + ": " + e.Problem
}

// fieldErr is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func fieldErr(path, format string, args ...any) error {
	return &FieldError{Path: path, Problem: fmt.Sprintf(format, args...)}
}

func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// at places an error that occurred inside member name (a member name or an
// index like "[2]"). Parsers report paths relative to the value they
// parse and each enclosing level prefixes its own, so paths cost nothing
// unless something fails.
func at(name string, err error) error {
	fe, ok := err.(*FieldError)
	if !ok {
		return &FieldError{Path: name, Problem: err.Error()}
	}
	switch {
	case fe.Path == "":
		return &FieldError{Path: name, Problem: fe.Problem}
	case name == "":
		return fe
	case fe.Path[0] == '[':
		return &FieldError{Path: name + fe.Path, Problem: fe.Problem}
	}
	return &FieldError{Path: name + "." + fe.Path, Problem: fe.Problem}
}

// kindOf returns the first byte of a JSON value: '{', '[', '"', 't', 'f',
// 'n', or a digit or '-' for numbers; 0 for an empty value.
func kindOf(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

func isNull(raw []byte) bool { return kindOf(raw) == 'n' }

// entry checks that data is one valid JSON value, strictly
// (strictjson.Check: no member given twice anywhere in it, verbatim
// members included, and valid UTF-8 throughout), and copies it. Parsers
// below it assume valid JSON and hand out sub-slices, which then alias the
// copy rather than the caller's buffer.
func entry(data []byte) ([]byte, error) {
	if err := strictjson.Check(data); err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) {
			return nil, &FieldError{Path: se.Path, Problem: se.Problem()}
		}
		return nil, err
	}
	return bytes.Clone(data), nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// eachMember calls fn for every member of the valid JSON object raw, with
// the member's unescaped name.
func eachMember(raw []byte, fn func(key []byte, val json.RawMessage) error) error {
	i := skipSpace(raw, skipSpace(raw, 0)+1)
	if i >= len(raw) || raw[i] == '}' {
		return nil
	}
	for i < len(raw) {
		end := stringEnd(raw, i)
		key, err := unquoteBytes(raw[i:end])
		if err != nil {
			return err
		}
		i = skipSpace(raw, skipSpace(raw, end)+1) // past ':'
		end = valueEnd(raw, i)
		if err := fn(key, raw[i:end:end]); err != nil {
			return err
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipSpace(raw, i+1)
	}
	return nil
}

// eachElement calls fn for every element of the valid JSON array raw.
func eachElement(raw []byte, fn func(i int, val json.RawMessage) error) error {
	i := skipSpace(raw, skipSpace(raw, 0)+1)
	if i >= len(raw) || raw[i] == ']' {
		return nil
	}
	for n := 0; i < len(raw); n++ {
		end := valueEnd(raw, i)
		if err := fn(n, raw[i:end:end]); err != nil {
			return err
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipSpace(raw, i+1)
	}
	return nil
}

// unquoteBytes is unquote without the allocation when there are no
// escapes: the result then aliases raw.
func unquoteBytes(raw []byte) ([]byte, error) {
	if len(raw) >= 2 {
		inner := raw[1 : len(raw)-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return inner[:len(inner):len(inner)], nil
		}
	}
	s, err := unquote(raw)
	return []byte(s), err
}

// unquote decodes a valid JSON string token; the common case (no escapes)
// costs one allocation.
func unquote(raw []byte) (string, error) {
	if len(raw) >= 2 {
		inner := raw[1 : len(raw)-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return string(inner), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// objReader walks the members of one JSON object. Every member a parser
// takes is marked; what is left over becomes the struct's Extra, so members
// this package does not model survive a round trip. Objects are small, so
// members sit in a slice and lookups compare bytes without allocating.
type objReader struct {
	members []member
	err     error
}

type member struct {
	key   []byte // unescaped
	val   json.RawMessage
	taken bool
}

func readObject(raw []byte) (*objReader, error) {
	if kindOf(raw) != '{' {
		return nil, fieldErr("", "want object")
	}
	o := &objReader{members: make([]member, 0, 8)}
	err := eachMember(raw, func(k []byte, v json.RawMessage) error {
		o.members = append(o.members, member{key: k, val: v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// find returns the index of the last untaken member called name, or -1.
// entry has refused duplicate names, so there is at most one.
func (o *objReader) find(name string) int {
	for i := len(o.members) - 1; i >= 0; i-- {
		if m := &o.members[i]; !m.taken && string(m.key) == name {
			return i
		}
	}
	return -1
}

func (o *objReader) has(name string) bool { return o.find(name) >= 0 }

// take marks a member (and any duplicates) as used and returns it.
func (o *objReader) take(name string) (json.RawMessage, bool) {
	if o.err != nil {
		return nil, false
	}
	i := o.find(name)
	if i < 0 {
		return nil, false
	}
	for j := range o.members {
		if string(o.members[j].key) == name {
			o.members[j].taken = true
		}
	}
	return o.members[i].val, true
}

// takeOptional is take for members the spec marks optional: an explicit
// null is left in place, so it lands in Extra and is re-emitted as null
// rather than silently becoming "absent".
func (o *objReader) takeOptional(name string) (json.RawMessage, bool) {
	if i := o.find(name); o.err != nil || i < 0 || isNull(o.members[i].val) {
		return nil, false
	}
	return o.take(name)
}

// done returns the members nobody took, or the first error.
func (o *objReader) done() (map[string]json.RawMessage, error) {
	if o.err != nil {
		return nil, o.err
	}
	var extra map[string]json.RawMessage
	for _, m := range o.members {
		if !m.taken {
			if extra == nil {
				extra = make(map[string]json.RawMessage)
			}
			extra[string(m.key)] = m.val
		}
	}
	return extra, nil
}

// parser turns one valid JSON value into a T; error paths are relative to
// the value.
type parser[T any] func(raw json.RawMessage) (T, error)

// field parses a member if present; absent leaves dst unchanged.
func field[T any](o *objReader, name string, dst *T, parse parser[T]) {
	if raw, ok := o.take(name); ok {
		setField(o, name, raw, dst, parse)
	}
}

// optField parses an optional member; absent and null leave dst unchanged.
func optField[T any](o *objReader, name string, dst *T, parse parser[T]) {
	if raw, ok := o.takeOptional(name); ok {
		setField(o, name, raw, dst, parse)
	}
}

func setField[T any](o *objReader, name string, raw json.RawMessage, dst *T, parse parser[T]) {
	v, err := parse(raw)
	if err != nil {
		o.err = at(name, err)
		return
	}
	*dst = v
}

// unmarshalWith adapts a parser to json.Unmarshaler; null is a no-op, as
// encoding/json expects of Unmarshalers.
func unmarshalWith[T any](data []byte, dst *T, parse parser[T]) error {
	data, err := entry(data)
	if err != nil || isNull(data) {
		return err
	}
	v, err := parse(data)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

func parseString(raw json.RawMessage) (string, error) {
	if kindOf(raw) != '"' {
		return "", fieldErr("", "want string")
	}
	return unquote(raw)
}

func parseNullString(raw json.RawMessage) (*string, error) {
	if isNull(raw) {
		return nil, nil
	}
	if kindOf(raw) != '"' {
		return nil, fieldErr("", "want string or null")
	}
	s, err := parseString(raw)
	return &s, err
}

func parseBool(raw json.RawMessage) (bool, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fieldErr("", "want boolean")
}

func parseBoolPtr(raw json.RawMessage) (*bool, error) {
	b, err := parseBool(raw)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

func isNumber(raw []byte) bool {
	c := kindOf(raw)
	return c == '-' || (c >= '0' && c <= '9')
}

func parseFloat(raw json.RawMessage) (float64, error) {
	if !isNumber(raw) {
		return 0, fieldErr("", "want number")
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	if err != nil {
		return 0, fieldErr("", "number out of range")
	}
	return f, nil
}

// parseInt64 accepts any JSON number with an integral value, so a peer
// writing 1.7e12 for a timestamp is understood.
func parseInt64(raw json.RawMessage) (int64, error) {
	if !isNumber(raw) {
		return 0, fieldErr("", "want integer")
	}
	s := string(bytes.TrimSpace(raw))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, fieldErr("", "want integer, got %s", s)
	}
	return int64(f), nil
}

func parseInt(raw json.RawMessage) (int, error) {
	n, err := parseInt64(raw)
	if err != nil {
		return 0, err
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fieldErr("", "integer %d out of range", n)
	}
	return int(n), nil
}

// parseRaw keeps a member verbatim (already syntax-checked by the enclosing
// object's decode).
func parseRaw(raw json.RawMessage) (json.RawMessage, error) {
	return raw, nil
}

func parseArray(raw json.RawMessage, each func(i int, raw json.RawMessage) error) error {
	if kindOf(raw) != '[' {
		return fieldErr("", "want array")
	}
	return eachElement(raw, func(i int, item json.RawMessage) error {
		if err := each(i, item); err != nil {
			return at(indexPath("", i), err)
		}
		return nil
	})
}

// arrayOf builds a parser for a JSON array whose elements parse with elem.
func arrayOf[T any](elem parser[T]) parser[[]T] {
	return func(raw json.RawMessage) ([]T, error) {
		out := []T{}
		err := parseArray(raw, func(_ int, item json.RawMessage) error {
			v, err := elem(item)
			out = append(out, v)
			return err
		})
		return out, err
	}
}

// mapOf builds a parser for a JSON object whose values parse with elem.
func mapOf[T any](elem parser[T]) parser[map[string]T] {
	return func(raw json.RawMessage) (map[string]T, error) {
		if kindOf(raw) != '{' {
			return nil, fieldErr("", "want object")
		}
		out := make(map[string]T)
		err := eachMember(raw, func(k []byte, v json.RawMessage) error {
			parsed, err := elem(v)
			if err != nil {
				return at(string(k), err)
			}
			out[string(k)] = parsed
			return nil
		})
		return out, err
	}
}

// parseAnyMap decodes an object of arbitrary values, or null to nil.
// Numbers stay json.Number so their exact text survives re-encoding.
func parseAnyMap(raw json.RawMessage) (map[string]any, error) {
	if isNull(raw) {
		return nil, nil
	}
	if kindOf(raw) != '{' {
		return nil, fieldErr("", "want object or null")
	}
	v, err := parseAny(raw)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// parseAny decodes any valid JSON value into nil, bool, string,
// json.Number, []any or map[string]any, without reflection. Numbers keep
// their exact text.
func parseAny(raw json.RawMessage) (any, error) {
	switch kindOf(raw) {
	case '{':
		m := make(map[string]any)
		err := eachMember(raw, func(k []byte, v json.RawMessage) error {
			x, err := parseAny(v)
			if err != nil {
				return at(string(k), err)
			}
			m[string(k)] = x
			return nil
		})
		return m, err
	case '[':
		a := []any{}
		err := eachElement(raw, func(i int, v json.RawMessage) error {
			x, err := parseAny(v)
			if err != nil {
				return at(indexPath("", i), err)
			}
			a = append(a, x)
			return nil
		})
		return a, err
	case '"':
		return unquote(bytes.TrimSpace(raw))
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return json.Number(bytes.TrimSpace(raw)), nil
}

// appender is implemented by every type of this package: it appends the
// value's JSON to b. MarshalJSON is appendJSON(nil); nesting appends into
// the parent's buffer instead of allocating per level.
type appender interface {
	appendJSON(b []byte) ([]byte, error)
}

// encodeError names the member that failed to encode, as a JSON path.
type encodeError struct {
	path string
	err  error
}

func (e *encodeError) Error() string { return "encode " + e.path + ": " + e.err.Error() }
func (e *encodeError) Unwrap() error { return e.err }

// within prefixes err's path with the member name it occurred in.
func within(name string, err error) error {
	if ee, ok := err.(*encodeError); ok {
		sep := "."
		if strings.HasPrefix(ee.path, "[") {
			sep = ""
		}
		return &encodeError{path: name + sep + ee.path, err: ee.err}
	}
	return &encodeError{path: name, err: err}
}

// objWriter appends one JSON object: modelled members in spec order, then
// the Extra members in sorted order, skipping any already written.
type objWriter struct {
	buf   []byte
	n     int
	extra map[string]json.RawMessage
	keys  []string // written names, tracked only when there are extras
	err   error
}

func openObject(b []byte, extra map[string]json.RawMessage) objWriter {
	return objWriter{buf: append(b, '{'), extra: extra}
}

func (w *objWriter) key(name string) {
	if w.n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.n++
	w.buf = appendString(w.buf, name)
	w.buf = append(w.buf, ':')
	if len(w.extra) > 0 {
		w.keys = append(w.keys, name)
	}
}

// fail is not inlined: it runs on error paths only, and inlining would copy
// its body into each of its many callers.
//
//go:noinline
func (w *objWriter) fail(name string, err error) {
	if w.err == nil {
		w.err = within(name, err)
	}
}

func (w *objWriter) str(name, s string) {
	w.key(name)
	w.buf = appendString(w.buf, s)
}

// optStr writes s unless it is empty.
func (w *objWriter) optStr(name, s string) {
	if s != "" {
		w.str(name, s)
	}
}

func (w *objWriter) nullStr(name string, s *string) {
	w.key(name)
	if s == nil {
		w.buf = append(w.buf, "null"...)
		return
	}
	w.buf = appendString(w.buf, *s)
}

// strs writes a string array; nil writes [].
func (w *objWriter) strs(name string, ss []string) {
	w.key(name)
	w.buf = append(w.buf, '[')
	for i, s := range ss {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = appendString(w.buf, s)
	}
	w.buf = append(w.buf, ']')
}

func (w *objWriter) int(name string, n int64) {
	w.key(name)
	w.buf = strconv.AppendInt(w.buf, n, 10)
}

func (w *objWriter) bool(name string, b bool) {
	w.key(name)
	w.buf = strconv.AppendBool(w.buf, b)
}

func (w *objWriter) float(name string, f float64) {
	w.key(name)
	var err error
	if w.buf, err = appendFloat(w.buf, f); err != nil {
		w.fail(name, err)
	}
}

// obj writes one of this package's values.
func (w *objWriter) obj(name string, v appender) {
	if w.err != nil {
		return
	}
	w.key(name)
	b, err := v.appendJSON(w.buf)
	if err != nil {
		w.fail(name, err)
		return
	}
	w.buf = b
}

// any writes a value through encoding/json.
func (w *objWriter) any(name string, v any) {
	if w.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.fail(name, err)
		return
	}
	w.key(name)
	w.buf = append(w.buf, b...)
}

// raw writes a verbatim member, nil as null; it is checked and compacted.
func (w *objWriter) raw(name string, raw json.RawMessage) {
	if w.err != nil {
		return
	}
	w.key(name)
	if raw == nil {
		w.buf = append(w.buf, "null"...)
		return
	}
	buf := bytes.NewBuffer(w.buf)
	if err := json.Compact(buf, raw); err != nil {
		w.fail(name, err)
		return
	}
	w.buf = buf.Bytes()
}

// optRaw writes raw unless it is nil (absent).
func (w *objWriter) optRaw(name string, raw json.RawMessage) {
	if raw != nil {
		w.raw(name, raw)
	}
}

// close writes the extras and ends the object.
func (w *objWriter) close() ([]byte, error) {
	if len(w.extra) > 0 {
		names := make([]string, 0, len(w.extra))
		for k := range w.extra {
			if !slices.Contains(w.keys, k) {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		for _, k := range names {
			w.raw(k, w.extra[k])
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	return append(w.buf, '}'), nil
}

// list writes an array of this package's values; nil writes [].
func list[T appender](w *objWriter, name string, items []T) {
	if w.err != nil {
		return
	}
	w.key(name)
	w.buf = append(w.buf, '[')
	for i, item := range items {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		b, err := item.appendJSON(w.buf)
		if err != nil {
			w.fail(indexPath(name, i), err)
			return
		}
		w.buf = b
	}
	w.buf = append(w.buf, ']')
}

// appendFloat writes f the way encoding/json does (plain notation between
// 1e-6 and 1e21, shortest exponent form outside), so both encoders agree.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("unsupported value %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// strconv writes a two-digit exponent (1e-07); drop the padding zero.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone (ESML is full of them); invalid UTF-8 becomes U+FFFD and
// U+2028/U+2029 are escaped, as encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
