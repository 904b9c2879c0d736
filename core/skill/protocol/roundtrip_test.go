package protocol

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every example decodes, validates and re-encodes to the same JSON: unknown
// members at every level, the top-level transID and null-vs-absent all
// survive.
func TestExamplesRoundTripJSON(t *testing.T) {
	for _, ex := range examples(t) {
		t.Run(ex.name, func(t *testing.T) {
			msg := decodeAny(t, ex.data)
			out := mustJSON(t, msg)
			require.Equal(t, canon(t, ex.data), canon(t, out))

			again := decodeAny(t, out)
			assert.Equal(t, out, mustJSON(t, again), "re-encoding is stable")
		})
	}
}

// JSON→CBOR→JSON is lossless for every example, whether the JSON comes in
// as raw text or as a decoded message, and the CBOR is deterministic.
func TestExamplesRoundTripCBOR(t *testing.T) {
	for _, ex := range examples(t) {
		t.Run(ex.name, func(t *testing.T) {
			c, err := EncodeCBOR(json.RawMessage(ex.data))
			require.NoError(t, err)
			back, err := DecodeCBOR(c)
			require.NoError(t, err)
			require.Equal(t, canon(t, ex.data), canon(t, back), "raw JSON → CBOR → JSON")

			c2, err := EncodeCBOR(json.RawMessage(back))
			require.NoError(t, err)
			assert.Equal(t, c, c2, "CBOR → JSON → CBOR is byte-identical")

			msg := decodeAny(t, ex.data)
			mc, err := EncodeCBOR(msg)
			require.NoError(t, err)
			assert.Equal(t, c, mc, "a decoded message encodes to the same CBOR as its source text")
			js, err := DecodeCBOR(mc)
			require.NoError(t, err)
			require.Equal(t, canon(t, mustJSON(t, msg)), canon(t, mustJSON(t, decodeAny(t, js))))
		})
	}
}

// Integers stay integers of any size, floats stay floats, each in its
// shortest CBOR form (hex per RFC 8949 appendix A).
func TestCBORNumbers(t *testing.T) {
	tests := []struct {
		json     string
		cbor     string
		wantJSON string
	}{
		{json: `0`, cbor: "00", wantJSON: `0`},
		{json: `1`, cbor: "01", wantJSON: `1`},
		{json: `-1`, cbor: "20", wantJSON: `-1`},
		{json: `1718035200123`, cbor: "1b0000019002e0b87b", wantJSON: `1718035200123`},
		{json: `9007199254740993`, cbor: "1b0020000000000001", wantJSON: `9007199254740993`},
		{json: `18446744073709551615`, cbor: "1bffffffffffffffff", wantJSON: `18446744073709551615`},
		{json: `-18446744073709551616`, cbor: "3bffffffffffffffff", wantJSON: `-18446744073709551616`},
		{json: `18446744073709551616`, cbor: "c249010000000000000000", wantJSON: `18446744073709551616`},
		{json: `1.5`, cbor: "f93e00", wantJSON: `1.5`},
		{json: `1.0`, cbor: "f93c00", wantJSON: `1.0`},
		{json: `-0.0`, cbor: "f98000", wantJSON: `-0.0`},
		{json: `100000.0`, cbor: "fa47c35000", wantJSON: `100000.0`},
		{json: `0.1`, cbor: "fb3fb999999999999a", wantJSON: `0.1`},
		{json: `1.0e+300`, cbor: "fb7e37e43c8800759c", wantJSON: `1e+300`},
		{json: `1E3`, cbor: "f963d0", wantJSON: `1000.0`},
		{json: `[1, 1.0]`, cbor: "8201f93c00", wantJSON: `[1,1.0]`},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			c, err := EncodeCBOR(json.RawMessage(tt.json))
			require.NoError(t, err)
			assert.Equal(t, tt.cbor, hex.EncodeToString(c))
			back, err := DecodeCBOR(c)
			require.NoError(t, err)
			assert.Equal(t, tt.wantJSON, string(back))
			assert.Equal(t, canon(t, []byte(tt.json)), canon(t, back))
		})
	}
}

func TestEncodeCBORRejects(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "number beyond float64", in: json.RawMessage(`{"x":1e400}`), want: "encode cbor: number 1e400: out of float64 range"},
		{name: "invalid JSON", in: json.RawMessage(`{"x":`), want: "encode cbor: encode json: json: error calling MarshalJSON for type json.RawMessage: unexpected end of JSON input"},
		{name: "unencodable value", in: map[string]any{"c": make(chan int)}, want: "encode cbor: encode json: json: unsupported type: chan int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := EncodeCBOR(tt.in)
			require.EqualError(t, err, tt.want)
		})
	}
}

func TestDecodeCBORRejects(t *testing.T) {
	tests := []struct {
		name string
		cbor string
		want string
	}{
		{name: "byte string", cbor: "a1616142dead", want: "decode cbor: a: byte string has no JSON form"},
		{name: "nested unknown tag", cbor: "a1616182f5d82001", want: "decode cbor: a[1]: tag 32 has no JSON form"},
		{name: "time tag", cbor: "c11a514b67b0", want: "decode cbor: time tag has no JSON form"},
		{name: "integer map key", cbor: "a10101", want: "decode cbor: cbor: cannot unmarshal positive integer into Go value of type string"},
		{name: "undefined", cbor: "f7", want: "decode cbor: cbor: data item of cbor type primitives is not accepted by protocol: simple value 23 is not recognized"},
		{name: "NaN", cbor: "f97e00", want: "decode cbor: cbor: data item of cbor type primitives is not accepted by protocol: floating-point NaN"},
		{name: "infinity", cbor: "f97c00", want: "decode cbor: cbor: data item of cbor type primitives is not accepted by protocol: floating-point infinity"},
		{name: "duplicate key", cbor: "a2616101616102", want: `decode cbor: cbor: found duplicate map key "a" at map element index 1`},
		{name: "truncated", cbor: "a16161", want: "decode cbor: unexpected EOF"},
		{name: "trailing bytes", cbor: "0101", want: "decode cbor: cbor: 1 bytes of extraneous data starting at index 1"},
		{name: "invalid UTF-8 text", cbor: "62c328", want: "decode cbor: cbor: invalid UTF-8 string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := hex.DecodeString(tt.cbor)
			require.NoError(t, err)
			_, err = DecodeCBOR(b)
			require.EqualError(t, err, tt.want)
		})
	}
}

// Null and absent stay distinct where the spec gives null a meaning, and
// explicit nulls of optional members are written back.
func TestNullVersusAbsent(t *testing.T) {
	tests := []struct {
		name string
		in   string
		new  func() any
	}{
		{name: "skill id null", in: `{"id":null}`, new: func() any { return &SkillData{} }},
		{name: "session null", in: `{"id":"x","session":null}`, new: func() any { return &SkillData{} }},
		{name: "intent and entities null", in: `{"intent":null,"entities":null,"rules":[]}`, new: func() any { return &NLUResult{} }},
		{name: "entities empty", in: `{"intent":"yes","entities":{},"rules":["a"]}`, new: func() any { return &NLUResult{} }},
		{name: "speaker null", in: `{"speaker":null,"peoplePresent":[]}`, new: func() any { return &Perception{} }},
		{name: "trace transition null", in: `{"nodeID":3,"transition":null}`, new: func() any { return &TraceEntry{} }},
		{name: "result nlu null", in: `{"nlu":null}`, new: func() any { return &Result{} }},
		{name: "result empty", in: `{}`, new: func() any { return &Result{} }},
		{name: "memo null", in: `{"memo":null}`, new: func() any { return &Result{} }},
		{name: "referent absent", in: `{}`, new: func() any { return &Dialog{} }},
		{name: "referent null", in: `{"referent":null}`, new: func() any { return &Dialog{} }},
		{name: "action null", in: `{"skill":{"id":"s"},"action":null}`, new: func() any { return &SkillActionData{} }},
		{name: "analytics null", in: `{"skill":{"id":"s"},"action":null,"analytics":null}`, new: func() any { return &SkillActionData{} }},
		{name: "transID null", in: `{"type":"EOS","msgID":"m","ts":1,"transID":null}`, new: func() any { return &Envelope{} }},
		{name: "remote address absent", in: `{"accountID":"a","robotID":"r","lang":"en-US","release":"1.9.2"}`, new: func() any { return &GeneralData{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.new()
			require.NoError(t, json.Unmarshal([]byte(tt.in), v))
			assert.JSONEq(t, tt.in, string(mustJSON(t, v)))
		})
	}
}

// A modelled member that is set wins over an Extra entry of the same name:
// the output never repeats a key.
func TestModelledMemberWinsOverExtra(t *testing.T) {
	var r Result
	require.NoError(t, json.Unmarshal([]byte(`{"nlu":null}`), &r))
	n := NLUFromSlots("yes", nil, nil)
	r.NLU = &n
	assert.Equal(t, `{"nlu":{"intent":"yes","entities":{},"rules":[]}}`, string(mustJSON(t, r)))
}

// ESML travels inside JSON strings; it must reach the robot as written,
// not as \u003c escapes.
func TestMarkupIsNotEscaped(t *testing.T) {
	resp := NewSkillAction(nil, Skill("s"), json.RawMessage(`{"type":"JCP","config":{"esml":"<speak>a & b</speak>"}}`), false)
	resp.Action.Extra = map[string]json.RawMessage{"note": json.RawMessage(`"<b>"`)}
	got, err := resp.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(got), `"esml":"<speak>a & b</speak>"`)
	assert.Contains(t, string(got), `"note":"<b>"`)
}

func TestStringEscaping(t *testing.T) {
	tests := []struct{ in, want string }{
		{in: "plain", want: `"plain"`},
		{in: "quote\" back\\slash", want: `"quote\" back\\slash"`},
		{in: "line\nbreak\ttab\rcr", want: `"line\nbreak\ttab\rcr"`},
		{in: "\x00\x1f", want: `"\u0000\u001f"`},
		{in: "bad\xffutf8", want: `"bad\ufffdutf8"`},
		{in: "sep\u2028\u2029", want: `"sep\u2028\u2029"`},
		{in: "héllo ☃", want: `"héllo ☃"`},
	}
	for _, tt := range tests {
		got := string(appendString(nil, tt.in))
		assert.Equal(t, tt.want, got)
		var back string
		require.NoError(t, json.Unmarshal([]byte(got), &back))
	}
}

func TestEncodeJSON(t *testing.T) {
	resp := NewSkillAction(nil, Skill("s"), json.RawMessage(`{"esml":"<speak>a & b</speak>"}`), false, WithMsgID("m"), WithTime(fixedTime))
	out, err := EncodeJSON(resp)
	require.NoError(t, err)
	assert.Equal(t, `{"type":"SKILL_ACTION","msgID":"m","ts":1718035200123,"data":{"skill":{"id":"s"},"action":{"esml":"<speak>a & b</speak>"},"final":false,"fireAndForget":false}}`, string(out))

	marshalled, err := json.Marshal(resp)
	require.NoError(t, err)
	assert.Equal(t, canon(t, out), canon(t, marshalled), "json.Marshal gives the same message, HTML-escaped")

	resp.Action.Action = json.RawMessage(`{"esml":"` + strings.Repeat("x", MaxMessageSize) + `"}`)
	_, err = EncodeJSON(resp)
	require.ErrorIs(t, err, ErrLimit)
	_, err = EncodeCBOR(resp)
	require.ErrorIs(t, err, ErrLimit)

	_, err = EncodeJSON(Response{Header: Header{Type: "X"}})
	require.EqualError(t, err, `encode json: encode response: unknown type "X"`)
}

// Decoded messages do not alias the caller's buffer, which a websocket
// reader reuses for the next frame.
func TestDecodeCopiesInput(t *testing.T) {
	for _, ex := range examples(t) {
		t.Run(ex.name, func(t *testing.T) {
			buf := append([]byte{}, ex.data...)
			msg := decodeAny(t, buf)
			for i := range buf {
				buf[i] = ' '
			}
			assert.Equal(t, canon(t, ex.data), canon(t, mustJSON(t, msg)))
		})
	}
}

// Every type's UnmarshalJSON can be called directly: invalid JSON is an
// error, never a panic, and null leaves the value alone.
func TestUnmarshalJSONDirect(t *testing.T) {
	targets := []json.Unmarshaler{
		&Request{}, &Response{}, &Envelope{}, &RequestData{}, &Result{}, &GeneralData{}, &RuntimeContext{},
		&Character{}, &Emotion{}, &Motivation{}, &Location{}, &Loop{}, &LooperInfo{}, &JiboInfo{},
		&Perception{}, &Person{}, &Dialog{}, &SkillData{}, &Session{}, &TraceEntry{}, &NLUResult{},
		&ASRResult{}, &SkillActionData{}, &SkillRedirectData{}, &ErrorData{}, &Analytics{},
		&AnalyticsEvent{}, &SkillEntryProperties{}, &SkillOfferProperties{},
	}
	for _, target := range targets {
		for _, in := range []string{`{`, `{"a":1,}`, `[1`, `"x`, ``, `{"a" 1}`} {
			require.Error(t, target.UnmarshalJSON([]byte(in)), "%T %q", target, in)
		}
		require.NoError(t, target.UnmarshalJSON([]byte(`null`)), "%T", target)
	}
}
