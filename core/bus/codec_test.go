package bus

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		unknown []string
	}{
		{"minimal, absent data/context mean {} (MSG-01)", `{"type":"a.b"}`, "", nil},
		{"unknown top-level key ignored (MSG-02)", `{"type":"a.b","extra":1}`, "", []string{"extra"}},
		{"not an object (MSG-03)", `[1,2]`, "not an object", nil},
		{"type missing (MSG-03)", `{"data":{}}`, "type missing", nil},
		{"type not a string (MSG-03)", `{"type":3}`, "want string", nil},
		{"data not an object (MSG-03)", `{"type":"a","data":[]}`, "data is array", nil},
		{"context null (MSG-03)", `{"type":"a","context":null}`, "context is null", nil},
		{"bad topic (MSG-04)", `{"type":"a..b"}`, "must not contain", nil},
		{"invalid JSON", `{"type":`, "decoding JSON", nil},
		{"trailing data", `{"type":"a"} {}`, "trailing", nil},
		{"invalid UTF-8 (MSG-17)", "{\"type\":\"a\",\"data\":{\"x\":\"\xff\"}}", "UTF-8", nil},
		// Issue 22 items 9 and 10: no key twice, no escape to half a pair.
		{"type twice", `{"type":"a","data":{},"type":"b"}`, `type: member given twice ("type")`, nil},
		{"data key twice", `{"type":"a","data":{"utterances":["stop"],"utterances":["go"]}}`, `data.utterances: member given twice`, nil},
		{"half a surrogate pair (MSG-17)", `{"type":"a","data":{"x":"\udc00"}}`, "data.x: invalid UTF-8", nil},
		{"too deep", `{"type":"a","data":` + strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 41), "nesting", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, unknown, err := DecodeJSON([]byte(tt.in))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrMalformed)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, m.Data)
			assert.NotNil(t, m.Context)
			assert.Equal(t, tt.unknown, unknown)
		})
	}
}

func TestDecodeJSONTooLarge(t *testing.T) {
	big := `{"type":"a","data":{"x":"` + strings.Repeat("a", MaxMessageBytes) + `"}}`
	_, _, err := DecodeJSON([]byte(big))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "limit")
}

var sample = Message{
	Type: "ovos.utterance.handle",
	Data: map[string]any{"utterances": []any{"what time is it"}, "lang": "en-US",
		"n": int64(42), "big": int64(1) << 60, "f": 1.5, "neg": int64(-7), "flag": true, "nil": nil},
	Context: map[string]any{"source": "console", "session": map[string]any{"session_id": "default",
		"pipeline": []any{"templates-high"}}},
}

func TestJSONRoundTrip(t *testing.T) {
	b, err := EncodeJSON(sample)
	require.NoError(t, err)
	m, _, err := DecodeJSON(b)
	require.NoError(t, err)
	assert.Equal(t, sample, m, "integers stay exact, floats stay floats")
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &keys))
	assert.Len(t, keys, 3, "MSG-01: only type, data and context")
}

func TestCBORRoundTrip(t *testing.T) {
	c, err := NewCBOR()
	require.NoError(t, err)
	b, err := c.Encode(sample)
	require.NoError(t, err)
	m, _, err := c.Decode(b)
	require.NoError(t, err)
	assert.Equal(t, sample, m)

	// Deterministic: encoding twice gives the same bytes.
	b2, err := c.Encode(sample)
	require.NoError(t, err)
	assert.Equal(t, b, b2)

	// JSON -> CBOR -> JSON is lossless.
	j1, _ := EncodeJSON(sample)
	j2, _ := EncodeJSON(m)
	assert.JSONEq(t, string(j1), string(j2))
}

func TestCBORRejects(t *testing.T) {
	c, err := NewCBOR()
	require.NoError(t, err)
	tests := []struct {
		name string
		in   []byte
	}{
		{"garbage", []byte{0xff, 0x00, 0x13}},
		{"array at top", []byte{0x82, 0x01, 0x02}},
		{"type not string", []byte{0xa1, 0x64, 't', 'y', 'p', 'e', 0x01}},
		{"indefinite length", []byte{0xbf, 0x64, 't', 'y', 'p', 'e', 0x61, 'a', 0xff}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := c.Decode(tt.in)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
		})
	}
}

func TestNormalize(t *testing.T) {
	type pt struct {
		X int `json:"x"`
	}
	v, err := Normalize(map[string]any{"i": 3, "u": uint8(2), "s": []string{"a"}, "p": pt{X: 1},
		"m": map[string]string{"k": "v"}, "raw": json.RawMessage(`{"z":[1,2.5]}`)})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"i": int64(3), "u": int64(2), "s": []any{"a"},
		"p": map[string]any{"x": int64(1)}, "m": map[string]any{"k": "v"},
		"raw": map[string]any{"z": []any{int64(1), 2.5}}}, v)

	_, err = Normalize(map[string]any{"x": math.NaN()})
	assert.ErrorContains(t, err, "MSG-17")
	_, err = Normalize(map[string]any{"x": math.Inf(1)})
	assert.ErrorContains(t, err, "not finite")
	_, err = Normalize("\xff")
	assert.ErrorContains(t, err, "UTF-8")
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"type":"a.b","data":{"x":[1,2,{"y":null}]},"context":{"session":{}}}`))
	f.Add([]byte(`{"type":"s:i"}`))
	f.Add([]byte(`[]`))
	c, err := NewCBOR()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, _, err := DecodeJSON(raw)
		if err != nil {
			return
		}
		// Anything accepted must re-encode and decode to the same message in both codecs.
		b, err := EncodeJSON(m)
		if err != nil {
			t.Fatalf("re-encoding accepted message: %v", err)
		}
		m2, _, err := DecodeJSON(b)
		if err != nil {
			t.Fatalf("decoding re-encoded message: %v", err)
		}
		cb, err := c.Encode(m2)
		if err != nil {
			t.Fatalf("CBOR encoding: %v", err)
		}
		if _, _, err := c.Decode(cb); err != nil {
			t.Fatalf("CBOR decoding: %v", err)
		}
	})
}

func FuzzDecodeCBOR(f *testing.F) {
	c, err := NewCBOR()
	if err != nil {
		f.Fatal(err)
	}
	b, _ := c.Encode(sample)
	f.Add(b)
	f.Add([]byte{0xa0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, _, err := c.Decode(raw)
		if err != nil {
			return
		}
		if _, err := EncodeJSON(m); err != nil {
			t.Fatalf("accepted CBOR message does not encode as JSON: %v", err)
		}
	})
}

func BenchmarkCodecs(b *testing.B) {
	c, _ := NewCBOR()
	j, _ := EncodeJSON(sample)
	cb, _ := c.Encode(sample)
	b.Run("json-decode", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := DecodeJSON(j); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cbor-decode", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := c.Decode(cb); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cbor-encode", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Encode(sample); err != nil {
				b.Fatal(err)
			}
		}
	})
}
