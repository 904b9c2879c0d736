package mim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
)

// members is a JSON object read member by member (Parse has refused
// duplicates with strictjson), and every member a reader takes is removed,
// so what remains is Extra.
type members map[string]json.RawMessage

// readObject decodes a JSON object into its members.
func readObject(data []byte) (members, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, notJSON(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", describe(tok))
	}
	m := members{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notJSON(err)
		}
		name := tok.(string) // object keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("member %q: %w", name, notJSON(err))
		}
		m[name] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, notJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON object")
	}
	return m, nil
}

// notJSON says a document is not JSON; a plain EOF means it stops early.
func notJSON(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("not JSON: %w", err)
}

func describe(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// isNull reports whether raw is the JSON null.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// fieldError is a problem with one member; the caller adds the file and
// prompt.
type fieldError struct {
	prompt int // index in prompts, -1 for a top-level member
	field  string
	column int
	reason string
	err    error // ErrInvalid or ErrLimit
}

func (e *fieldError) Error() string { return e.field + ": " + e.reason }

// invalid is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func invalid(field, format string, args ...any) *fieldError {
	return &fieldError{prompt: -1, field: field, reason: fmt.Sprintf(format, args...), err: ErrInvalid}
}

func overLimit(field, format string, args ...any) *fieldError {
	return &fieldError{prompt: -1, field: field, reason: fmt.Sprintf(format, args...), err: ErrLimit}
}

// take removes a member and reports whether it was there and not null. A
// null member stays behind, to be kept in Extra.
func (m members) take(name string) (json.RawMessage, bool) {
	raw, ok := m[name]
	if !ok || isNull(raw) {
		return nil, false
	}
	delete(m, name)
	return raw, true
}

func (m members) str(name string, dst *string, seen map[string]bool) *fieldError {
	raw, ok := m.take(name)
	if !ok {
		return nil
	}
	seen[name] = true
	if err := json.Unmarshal(raw, dst); err != nil {
		return invalid(name, "want a string")
	}
	if len(*dst) > MaxStringBytes {
		return overLimit(name, "is %d bytes, limit %d", len(*dst), MaxStringBytes)
	}
	return nil
}

func (m members) boolean(name string, dst *bool, seen map[string]bool) *fieldError {
	raw, ok := m.take(name)
	if !ok {
		return nil
	}
	seen[name] = true
	if err := json.Unmarshal(raw, dst); err != nil {
		return invalid(name, "want true or false")
	}
	return nil
}

func (m members) optBool(name string, dst **bool) *fieldError {
	var b bool
	seen := map[string]bool{}
	if err := m.boolean(name, &b, seen); err != nil {
		return err
	}
	if seen[name] {
		*dst = &b
	}
	return nil
}

func (m members) number(name string, dst *float64, seen map[string]bool) *fieldError {
	raw, ok := m.take(name)
	if !ok {
		return nil
	}
	seen[name] = true
	if err := json.Unmarshal(raw, dst); err != nil {
		return invalid(name, "want a number")
	}
	return nil
}

// count reads a whole number in 0..MaxCounter.
func (m members) count(name string, dst *int, seen map[string]bool) *fieldError {
	var f float64
	if err := m.number(name, &f, seen); err != nil || !seen[name] {
		return err
	}
	if f != math.Trunc(f) {
		return invalid(name, "%v is not a whole number", f)
	}
	if f < 0 {
		return invalid(name, "%v is negative", f)
	}
	if f > MaxCounter {
		return overLimit(name, "%v is over %d", f, MaxCounter)
	}
	*dst = int(f)
	return nil
}

func (m members) optCount(name string, dst **int) *fieldError {
	var n int
	seen := map[string]bool{}
	if err := m.count(name, &n, seen); err != nil {
		return err
	}
	if seen[name] {
		*dst = &n
	}
	return nil
}

// raw takes a member verbatim (compacted); nil when absent or null.
func (m members) raw(name string, dst *json.RawMessage) {
	raw, ok := m.take(name)
	if ok {
		*dst = compact(raw)
	}
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// rest returns the members left, compacted, or nil when none are.
func (m members) rest() map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = compact(v)
	}
	return out
}

// objWriter writes a JSON object member by member in the order given,
// remembering the names written so extra leaves them out.
type objWriter struct {
	buf     bytes.Buffer
	n       int
	err     error
	written map[string]bool
}

func (w *objWriter) open() { w.buf.WriteByte('{') }

// value writes one member; markup in strings is not escaped.
func (w *objWriter) value(name string, v any) {
	if w.err != nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.err = fmt.Errorf("encoding %s: %w", name, err)
		return
	}
	w.rawValue(name, bytes.TrimRight(b.Bytes(), "\n"))
}

// put writes member name with v when present.
func (w *objWriter) put(name string, present bool, v any) {
	if present {
		w.value(name, v)
	}
}

// putRaw writes member name with raw, compacted, unless raw is empty.
func (w *objWriter) putRaw(name string, raw json.RawMessage) {
	if len(raw) > 0 {
		w.rawValue(name, compact(raw))
	}
}

func (w *objWriter) rawValue(name string, raw []byte) {
	if w.written == nil {
		w.written = map[string]bool{}
	}
	w.written[name] = true
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	k, _ := json.Marshal(name) // a string always encodes
	w.buf.Write(k)
	w.buf.WriteByte(':')
	w.buf.Write(raw)
}

// extra writes the members of extra that were not written already, in
// sorted order.
func (w *objWriter) extra(extra map[string]json.RawMessage) {
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if !w.written[k] {
			w.rawValue(k, compact(extra[k]))
		}
	}
}

func (w *objWriter) close() ([]byte, error) {
	w.buf.WriteByte('}')
	return w.buf.Bytes(), w.err
}
