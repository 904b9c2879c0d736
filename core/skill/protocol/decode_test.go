package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeRequestErrors(t *testing.T) {
	launch := readExample(t, "listen_launch")
	update := readExample(t, "listen_update")
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "not JSON", in: []byte(`{"type":`), want: "decode skill request: unexpected end of JSON input"},
		{name: "trailing garbage", in: append(append([]byte{}, launch...), '}'), want: "decode skill request: invalid character '}' after top-level value"},
		{name: "array", in: []byte(`[]`), want: "decode skill request: want object"},
		{name: "null", in: []byte(`null`), want: "decode skill request: want object"},
		{name: "empty", in: nil, want: "decode skill request: unexpected end of JSON input"},
		{name: "type not string", in: edit(t, launch, "type", `5`), want: "decode skill request: type: want string"},
		{name: "ts not number", in: edit(t, launch, "ts", `"now"`), want: "decode skill request: ts: want integer"},
		{name: "ts fractional", in: edit(t, launch, "ts", `1.5`), want: "decode skill request: ts: want integer, got 1.5"},
		{name: "transID not string", in: edit(t, launch, "transID", `5`), want: "decode skill request: transID: want string"},
		{name: "general not object", in: edit(t, launch, "data.general", `[]`), want: "decode skill request: data.general: want object"},
		{name: "lang not string", in: edit(t, launch, "data.general.lang", `1`), want: "decode skill request: data.general.lang: want string"},
		{name: "speaker not string", in: edit(t, launch, "data.runtime.perception.speaker", `5`), want: "decode skill request: data.runtime.perception.speaker: want string or null"},
		{name: "person confidence not number", in: edit(t, launch, "data.runtime.perception.peoplePresent[1].confidence", `"high"`), want: "decode skill request: data.runtime.perception.peoplePresent[1].confidence: want number"},
		{name: "users not array", in: edit(t, launch, "data.runtime.loop.users", `{}`), want: "decode skill request: data.runtime.loop.users: want array"},
		{name: "birthdate not integer", in: edit(t, launch, "data.runtime.loop.users[0].birthdate", `"1990"`), want: "decode skill request: data.runtime.loop.users[0].birthdate: want integer"},
		{name: "lat not number", in: edit(t, launch, "data.runtime.location.lat", `true`), want: "decode skill request: data.runtime.location.lat: want number"},
		{name: "valence not number", in: edit(t, launch, "data.runtime.character.emotion.valence", `null`), want: "decode skill request: data.runtime.character.emotion.valence: want number"},
		{name: "skill id not string", in: edit(t, launch, "data.skill.id", `7`), want: "decode skill request: data.skill.id: want string or null"},
		{name: "session not object", in: edit(t, update, "data.skill.session", `7`), want: "decode skill request: data.skill.session: want object"},
		{name: "nodeID not integer", in: edit(t, update, "data.skill.session.nodeID", `"3"`), want: "decode skill request: data.skill.session.nodeID: want integer"},
		{name: "nodeID out of range", in: edit(t, update, "data.skill.session.nodeID", `1e10`), want: "decode skill request: data.skill.session.nodeID: integer 10000000000 out of range"},
		{name: "trace not array", in: edit(t, update, "data.skill.session.trace", `{}`), want: "decode skill request: data.skill.session.trace: want array"},
		{name: "trace entry not object", in: edit(t, update, "data.skill.session.trace[2]", `[0,"a"]`), want: "decode skill request: data.skill.session.trace[2]: want object"},
		{name: "trace entry without nodeID", in: edit(t, update, "data.skill.session.trace[0].nodeID", remove), want: "decode skill request: data.skill.session.trace[0].nodeID: required"},
		{name: "trace transition not string", in: edit(t, update, "data.skill.session.trace[1].transition", `1`), want: "decode skill request: data.skill.session.trace[1].transition: want string or null"},
		{name: "result not object", in: edit(t, launch, "data.result", `"x"`), want: "decode skill request: data.result: want object"},
		{name: "rule not string", in: edit(t, launch, "data.result.nlu.rules[1]", `5`), want: "decode skill request: data.result.nlu.rules[1]: want string"},
		{name: "intent not string", in: edit(t, launch, "data.result.nlu.intent", `false`), want: "decode skill request: data.result.nlu.intent: want string or null"},
		{name: "entities not object", in: edit(t, launch, "data.result.nlu.entities", `[]`), want: "decode skill request: data.result.nlu.entities: want object or null"},
		{name: "external rules not array", in: edit(t, launch, "data.result.nlu.external.smalltalk.rules", `"x"`), want: "decode skill request: data.result.nlu.external.smalltalk.rules: want array"},
		{name: "asr not object", in: edit(t, launch, "data.result.asr", `"text"`), want: "decode skill request: data.result.asr: want object"},
		{name: "asr confidence not number", in: edit(t, launch, "data.result.asr.confidence", `"0.5"`), want: "decode skill request: data.result.asr.confidence: want number"},
		{name: "asr text not string", in: edit(t, launch, "data.result.asr.text", `["a"]`), want: "decode skill request: data.result.asr.text: want string"},
		{name: "number beyond float64", in: edit(t, launch, "data.runtime.location.lng", `1e999`), want: "decode skill request: data.runtime.location.lng: number out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeRequest(tt.in)
			require.EqualError(t, err, tt.want)
			assert.Nil(t, r, "nothing half-decoded is returned")
			var fe *FieldError
			if strings.Contains(tt.want, ": want") || strings.Contains(tt.want, "required") || strings.Contains(tt.want, "range") {
				assert.ErrorAs(t, err, &fe)
			}
		})
	}
}

func TestDecodeResponseErrors(t *testing.T) {
	action := readExample(t, "skill_action")
	redirect := readExample(t, "skill_redirect")
	errMsg := readExample(t, "error")
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "not JSON", in: []byte(`{`), want: "decode skill response: unexpected end of JSON input"},
		{name: "unknown type", in: edit(t, action, "type", `"LISTEN"`), want: `decode skill response: type: unknown response type "LISTEN"`},
		{name: "request type", in: edit(t, action, "type", `"LISTEN_LAUNCH"`), want: `decode skill response: type: unknown response type "LISTEN_LAUNCH"`},
		{name: "final not boolean", in: edit(t, action, "final", `"yes"`), want: "decode skill response: final: want boolean"},
		{name: "timings not numbers", in: edit(t, action, "timings.total", `"fast"`), want: "decode skill response: timings.total: want number"},
		{name: "data not object", in: edit(t, action, "data", `[]`), want: "decode skill response: data: want object"},
		{name: "data final not boolean", in: edit(t, action, "data.final", `1`), want: "decode skill response: data.final: want boolean"},
		{name: "fireAndForget not boolean", in: edit(t, action, "data.fireAndForget", `"no"`), want: "decode skill response: data.fireAndForget: want boolean"},
		{name: "analytics not object", in: edit(t, action, "data.analytics", `[]`), want: "decode skill response: data.analytics: want object"},
		{name: "analytics events not array", in: edit(t, action, "data.analytics.@be/weather", `{}`), want: "decode skill response: data.analytics.@be/weather: want array"},
		{name: "analytics event name not string", in: edit(t, action, "data.analytics.@be/weather[1].event", `1`), want: "decode skill response: data.analytics.@be/weather[1].event: want string"},
		{name: "skill not object", in: edit(t, action, "data.skill", `"@be/weather"`), want: "decode skill response: data.skill: want object"},
		{name: "skillID not string", in: edit(t, redirect, "data.skillID", `3`), want: "decode skill response: data.skillID: want string"},
		{name: "redirect nlu not object", in: edit(t, redirect, "data.nlu", `"x"`), want: "decode skill response: data.nlu: want object"},
		{name: "error message not string", in: edit(t, errMsg, "data.message", `{"text":"x"}`), want: "decode skill response: data.message: want string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResponse(tt.in)
			require.EqualError(t, err, tt.want)
			assert.Nil(t, r)
		})
	}
}

// Lenient where the spec is loose: integral numbers in any notation, and
// members the spec does not list for a type, are accepted and kept.
func TestDecodeAccepts(t *testing.T) {
	launch := readExample(t, "listen_launch")
	proactive := readExample(t, "proactive_launch")

	r, err := DecodeRequest(edit(t, launch, "ts", `1.718035200123e12`))
	require.NoError(t, err)
	assert.Equal(t, int64(1718035200123), r.TS)

	r, err = DecodeRequest(edit(t, proactive, "data.result.asr", `{"text":"","confidence":0}`))
	require.NoError(t, err)
	require.NotNil(t, r.Data.Result.ASR)

	r, err = DecodeRequest(edit(t, launch, "data.skill.id", `null`))
	require.NoError(t, err, "a launch names its skill in the hub's routing, not in skill.id")
	assert.Nil(t, r.Data.Skill.ID)
}

func TestDecodeLimits(t *testing.T) {
	launch := readExample(t, "listen_launch")
	nested := func(depth int) []byte {
		return []byte(`{"type":"LISTEN_LAUNCH","msgID":"m","extra":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
	}
	array := func(n int) []byte {
		return []byte(`{"x":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}`)
	}
	object := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"k` + itoa(i) + `":0`)
		}
		b.WriteString(`}`)
		return b.Bytes()
	}
	padded := append(append([]byte{}, launch[:len(launch)-2]...), []byte(`,"pad":"`+strings.Repeat("x", MaxMessageSize)+`"}`)...)

	tests := []struct {
		name string
		in   []byte
		want string // empty: within limits
	}{
		{name: "size over limit", in: padded, want: "bytes, limit 1048576"},
		{name: "nesting at limit", in: nested(MaxNestedLevels)},
		{name: "nesting over limit", in: nested(MaxNestedLevels + 1), want: "message exceeds protocol limit: nesting deeper than 64 levels at byte"},
		{name: "nesting over limit in a string is text", in: []byte(`{"s":"` + strings.Repeat("[", 100) + `"}`)},
		{name: "escaped quote keeps string open", in: []byte(`{"s":"\"` + strings.Repeat("{", 100) + `"}`)},
		{name: "array at limit", in: array(MaxArrayElements)},
		{name: "array over limit", in: array(MaxArrayElements + 1), want: "message exceeds protocol limit: array with more than 16384 elements"},
		{name: "object at limit", in: object(MaxMapPairs)},
		{name: "object over limit", in: object(MaxMapPairs + 1), want: "message exceeds protocol limit: object with more than 4096 members"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkJSON(tt.in)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrLimit)
			assert.Contains(t, err.Error(), tt.want)
			for _, decode := range []func([]byte) error{
				func(b []byte) error { _, err := DecodeRequest(b); return err },
				func(b []byte) error { _, err := DecodeResponse(b); return err },
				func(b []byte) error { _, err := DecodeEnvelope(b); return err },
			} {
				assert.ErrorIs(t, decode(tt.in), ErrLimit)
			}
		})
	}
}

func TestCBORLimits(t *testing.T) {
	// CBOR heads for an array or map of n items (n < 2^16).
	head := func(major byte, n int) []byte {
		if n < 24 {
			return []byte{major<<5 | byte(n)}
		}
		return []byte{major<<5 | 25, byte(n >> 8), byte(n)}
	}
	array := func(n int) []byte { return append(head(4, n), bytes.Repeat([]byte{0}, n)...) }
	object := func(n int) []byte {
		b := head(5, n)
		for i := range n {
			k := "k" + itoa(i)
			b = append(append(b, head(3, len(k))...), k...)
			b = append(b, 0)
		}
		return b
	}
	nested := func(depth int) []byte { return append(bytes.Repeat([]byte{0x81}, depth-1), 0x80) }

	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "size over limit is checked first", in: make([]byte, MaxMessageSize+1), want: "decode cbor: message exceeds protocol limit: 1048577 bytes, limit 1048576"},
		{name: "nesting at limit", in: nested(MaxNestedLevels)},
		{name: "nesting over limit", in: nested(MaxNestedLevels + 1), want: "decode cbor: message exceeds protocol limit: nesting deeper than 64 levels at byte 64"},
		{name: "nesting far over limit", in: nested(MaxNestedLevels + 2), want: "decode cbor: cbor: exceeded max nested level 65"},
		{name: "array at limit", in: array(MaxArrayElements)},
		{name: "array over limit", in: array(MaxArrayElements + 1), want: "decode cbor: cbor: exceeded max number of elements 16384 for CBOR array"},
		{name: "map at limit", in: object(MaxMapPairs)},
		{name: "map over limit", in: object(MaxMapPairs + 1), want: "decode cbor: cbor: exceeded max number of key-value pairs 4096 for CBOR map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := DecodeCBOR(tt.in)
			if tt.want == "" {
				require.NoError(t, err)
				again, err := EncodeCBOR(jsonRaw(out))
				require.NoError(t, err)
				assert.Equal(t, tt.in, again)
				return
			}
			require.EqualError(t, err, tt.want)
		})
	}
	_, err := EncodeCBOR(jsonRaw(`{"x":` + strings.Repeat("[", MaxNestedLevels) + strings.Repeat("]", MaxNestedLevels) + `}`))
	require.ErrorIs(t, err, ErrLimit, "EncodeCBOR will not produce what DecodeCBOR refuses")
}

// The member scanner handles what valid JSON may contain: whitespace
// everywhere, escaped names, brackets and quotes inside strings, empty
// containers (duplicate names are refused: TestDuplicateMembersRefused).
func TestDecodeTrickyJSON(t *testing.T) {
	in := " \n{ \"type\" :\t\"LISTEN_UPDATE\" , \"msg\\u0049D\":\"m-\\\"1\\\"\" ,\"ts\": 5 , " +
		"\"odd}\" : [ \"]\" , { \"[\" : \"{\\\\\" } , [ ] , { } ] ,\r\n" +
		"\"data\" : { \"skill\" : { \"id\" : \"s\\u00e9\" } , \"result\" : { \"nlu\" : { \"intent\" : null , " +
		"\"entities\" : { \"n\" : -1.5e+3 , \"s\" : \"a,b}\" , \"deep\" : { \"x\" : [ true , false , null ] } } , \"rules\" : [ ] } , " +
		"\"asr\" : { \"text\" : \"\\ud83d\\ude00\" , \"confidence\" : 0 } } } } \n"
	r, err := DecodeRequest([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, `m-"1"`, r.MsgID, "escaped member name")
	assert.Equal(t, int64(5), r.TS)
	assert.Equal(t, "sé", r.Data.Skill.Name())
	assert.Equal(t, "😀", r.Data.Result.ASR.Text)
	assert.Equal(t, map[string]any{
		"n":    json.Number("-1.5e+3"),
		"s":    "a,b}",
		"deep": map[string]any{"x": []any{true, false, nil}},
	}, r.Data.Result.NLU.Entities)
	assert.JSONEq(t, `["]",{"[":"{\\"},[],{}]`, string(r.Extra["odd}"]))
}
