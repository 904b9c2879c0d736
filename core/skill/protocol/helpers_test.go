package protocol

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// example is one message under testdata.
type example struct {
	name string
	data []byte
}

func examples(t testing.TB) []example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 7, "one example per message kind")
	var out []example
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		out = append(out, example{name: strings.TrimSuffix(filepath.Base(f), ".json"), data: b})
	}
	return out
}

func readExample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	require.NoError(t, err)
	return b
}

func isRequest(t testing.TB, data []byte) bool {
	t.Helper()
	var probe struct{ Type string }
	require.NoError(t, json.Unmarshal(data, &probe))
	switch probe.Type {
	case TypeListenLaunch, TypeListenUpdate, TypeProactiveLaunch:
		return true
	}
	return false
}

// decodeAny decodes an example as a request or a response by its type.
func decodeAny(t testing.TB, data []byte) json.Marshaler {
	t.Helper()
	if isRequest(t, data) {
		r, err := DecodeRequest(data)
		require.NoError(t, err)
		return r
	}
	r, err := DecodeResponse(data)
	require.NoError(t, err)
	return r
}

// canon decodes JSON into a comparable tree in which integers (numbers
// written without fraction or exponent) are exact decimal strings tagged
// "int:" and other numbers are float64. Two documents with equal canon
// carry the same members, the same values and the same integer-ness.
func canon(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "decode %s", data)
	return canonValue(t, v)
}

func canonValue(t testing.TB, v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			n, ok := new(big.Int).SetString(s, 10)
			require.True(t, ok, s)
			return "int:" + n.String()
		}
		f, err := x.Float64()
		require.NoError(t, err)
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = canonValue(t, e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonValue(t, e)
		}
	}
	return v
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// remove, given to edit as a value, deletes the member.
var remove = &struct{ remove bool }{true}

// edit returns data with the member at path (dotted names and [i]
// indices, e.g. "data.result.nlu.rules[1]") set to val, or deleted when val
// is remove. val is JSON text when it is a string.
func edit(t testing.TB, data []byte, path string, val any) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	require.NoError(t, dec.Decode(&doc))
	var tokens []any
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		tokens = append(tokens, name)
		for rest != "" {
			idx, more, _ := strings.Cut(rest, "]")
			var i int
			require.NoError(t, json.Unmarshal([]byte(idx), &i))
			tokens = append(tokens, i)
			rest = strings.TrimPrefix(more, "[")
		}
	}
	var newVal any
	if s, ok := val.(string); ok {
		vd := json.NewDecoder(strings.NewReader(s))
		vd.UseNumber()
		require.NoError(t, vd.Decode(&newVal), "value %s", s)
	}
	cur := doc
	for i, tok := range tokens {
		last := i == len(tokens)-1
		switch c := cur.(type) {
		case map[string]any:
			name := tok.(string)
			if last {
				if val == remove {
					delete(c, name)
				} else {
					c[name] = newVal
				}
				break
			}
			cur = c[name]
		case []any:
			idx := tok.(int)
			if last {
				c[idx] = newVal
				break
			}
			cur = c[idx]
		default:
			t.Fatalf("edit %s: cannot descend into %T at %v", path, cur, tok)
		}
	}
	return mustJSON(t, doc)
}

func itoa(i int) string { return strconv.Itoa(i) }

// jsonRaw is shorthand for json.RawMessage from a string or bytes.
func jsonRaw[T string | []byte](s T) json.RawMessage { return json.RawMessage(s) }

func inf() float64 { return math.Inf(1) }

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}
