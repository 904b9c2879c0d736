package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/openjibo/jibod/internal/strictjson"
)

// object is a JSON object read strictly: members by name, duplicates
// (strictjson, at the root) and trailing data refused, each error naming
// the path.
type object struct {
	path  string
	m     map[string]json.RawMessage
	order []string
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// readObject reads a JSON object. The whole manifest (path "") is first
// checked with strictjson: a member given twice anywhere, or text that is
// not UTF-8 (which encoding/json would turn into U+FFFD), is refused with
// its path; syntax errors are left to the reader below, which places them.
func readObject(data []byte, path string) (*object, error) {
	if path == "" {
		var se *strictjson.Error
		if err := strictjson.Check(data); errors.As(err, &se) {
			return nil, fieldErr(se.Path, "%s", se.Problem())
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fieldErr(path, "invalid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fieldErr(path, "is %s, want an object", describe(tok))
	}
	o := &object{path: path, m: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fieldErr(path, "invalid JSON: %v", err)
		}
		key := tok.(string) // inside an object the decoder yields only string keys here
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fieldErr(join(path, key), "invalid JSON: %v", err)
		}
		o.m[key] = raw
		o.order = append(o.order, key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fieldErr(path, "invalid JSON: %v", err)
	}
	if path == "" {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fieldErr("", "trailing data after the manifest")
		}
	}
	return o, nil
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "a " + string(v)
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// allow refuses members other than names.
func (o *object) allow(names ...string) error {
	for _, k := range o.order {
		if !slices.Contains(names, k) {
			return fieldErr(join(o.path, k), "unknown member (known: %s)", quoteList(names))
		}
	}
	return nil
}

func quoteList(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}

// str reads an optional string member; "" when absent.
func (o *object) str(name string) (string, error) {
	raw, ok := o.m[name]
	if !ok {
		return "", nil
	}
	var s string
	if k := kind(raw); k != "a string" {
		return "", fieldErr(join(o.path, name), "is %s, want a string", k)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fieldErr(join(o.path, name), "%v", err)
	}
	return s, nil
}

// strs reads an optional array of strings; nil when absent.
func (o *object) strs(name string) ([]string, error) {
	raw, ok := o.m[name]
	if !ok {
		return nil, nil
	}
	path := join(o.path, name)
	if k := kind(raw); k != "an array" {
		return nil, fieldErr(path, "is %s, want an array of strings", k)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fieldErr(path, "%v", err)
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		if k := kind(it); k != "a string" {
			return nil, fieldErr(fmt.Sprintf("%s[%d]", path, i), "is %s, want a string", k)
		}
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			return nil, fieldErr(fmt.Sprintf("%s[%d]", path, i), "%v", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// positive reads an optional positive integer member; 0 when absent.
func (o *object) positive(name string) (int, error) {
	raw, ok := o.m[name]
	if !ok {
		return 0, nil
	}
	path := join(o.path, name)
	if k := kind(raw); k != "a number" {
		return 0, fieldErr(path, "is %s, want a whole number", k)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 32)
	if err != nil {
		return 0, fieldErr(path, "%s is not a whole number that fits", bytes.TrimSpace(raw))
	}
	if n <= 0 {
		return 0, fieldErr(path, "%d is not positive; leave it out for the default", n)
	}
	return int(n), nil
}
