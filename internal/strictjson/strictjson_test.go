package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckAccepts(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf(`"m%d":%d`, i, i)
	}
	for _, doc := range []string{
		`{}`, `[]`, `0`, `-0.5e+3`, `"x"`, `true`, `false`, `null`, " \t\n{ } \r\n",
		`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`,
		`[{"type":"x"},{"type":"y"}]`,
		`{"A":1,"a":2}`,
		"{" + strings.Join(many, ",") + "}",
		`{"text":"héllo wörld ✓ 🤖"}`,
		`{"t":"\ud83e\udd16 \u00e9 \n\t\"\\\/"}`,
		`{"\u0061b":1,"ab ":2}`,
	} {
		assert.NoError(t, Check([]byte(doc)), doc)
	}
}

func TestCheckRefuses(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf(`"m%d":%d`, i, i)
	}
	tests := []struct {
		name, doc string
		want      error
		path      string
		msg       string
	}{
		{"a member twice", `{"type":"LISTEN","msgID":"m","type":"CONTEXT"}`, ErrDuplicate, "type", `type: member given twice ("type") at byte 29`},
		{"nested, in an array", `{"data":{"items":[{"id":1},{"id":2,"id":3}]}}`, ErrDuplicate, "data.items[1].id", ""},
		{"the same name escaped", `{"esml":"a","\u0065sml":"b"}`, ErrDuplicate, "esml", ""},
		{"a big object", "{" + strings.Join(many, ",") + `,"m7":0}`, ErrDuplicate, "m7", ""},
		{"invalid UTF-8 in a value", "{\"data\":{\"text\":\"caf\xe9\"}}", ErrInvalidUTF8, "data.text", ""},
		{"invalid UTF-8 in a name", "{\"n\xffame\":\"x\"}", ErrInvalidUTF8, "", ""},
		{"a truncated sequence", "[\"\xe2\x82\"]", ErrInvalidUTF8, "[0]", ""},
		{"an overlong encoding", "\"\xc0\xaf\"", ErrInvalidUTF8, "", ""},
		{"an encoded surrogate", "\"\xed\xa0\x80\"", ErrInvalidUTF8, "", ""},
		{"a lone high surrogate", `{"name":"\ud83e"}`, ErrInvalidUTF8, "name", ""},
		{"a lone low surrogate", `{"name":"\udd16x"}`, ErrInvalidUTF8, "name", ""},
		{"a reversed pair", `["\udd16\ud83e"]`, ErrInvalidUTF8, "[0]", ""},
		{"a high surrogate before a plain escape", `"\ud83e\u0041"`, ErrInvalidUTF8, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.doc))
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
			var e *Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, tt.path, e.Path)
			if tt.msg != "" {
				assert.Equal(t, tt.msg, err.Error())
			}
			var v any
			assert.ErrorIs(t, Unmarshal([]byte(tt.doc), &v), tt.want)
		})
	}
}

// Syntax errors are encoding/json's own, so readers' messages stay as
// they were.
func TestCheckSyntaxErrorsAreEncodingJSONs(t *testing.T) {
	for _, doc := range []string{
		``, ` `, `{`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":1}x`, `{"a":1}{}`,
		`tru`, `nul`, `-`, `01`, `1.`, `1e`, `.5`, `"a`, "\"a\tb\"", `"\x"`, `"\u12"`, `{1:2}`, `[}`, `{]`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		err := Check([]byte(doc))
		var want json.RawMessage
		wantErr := json.Unmarshal([]byte(doc), &want)
		require.Error(t, wantErr, doc)
		if assert.Error(t, err, doc) {
			assert.Equal(t, wantErr.Error(), err.Error(), doc)
		}
	}
}

func TestCheckMembers(t *testing.T) {
	assert.NoError(t, CheckMembers([]byte(`{"a":1,"b":`)), "syntax errors are the reader's to report")
	assert.NoError(t, CheckMembers([]byte(`{"a":1}`)))
	assert.ErrorIs(t, CheckMembers([]byte(`{"a":1,"a":2,`)), ErrDuplicate, "found before the syntax error")
	assert.ErrorIs(t, CheckMembers([]byte("[\"\xff\"]")), ErrInvalidUTF8)
}

func TestUnmarshal(t *testing.T) {
	var v struct{ Type string }
	require.NoError(t, Unmarshal([]byte(`{"type":"LISTEN"}`), &v))
	assert.Equal(t, "LISTEN", v.Type)
	err := Unmarshal([]byte(`{"type":"LISTEN","Type":"CONTEXT"}`), &v)
	assert.NoError(t, err, "names differing in case are two members (encoding/json folds them; callers that care disallow unknown fields)")
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[1,{"b":"\ud83e\udd16"}]}`, "\"\xff\"", `[1,2`, `{"a":"\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		valid := json.Valid(data)
		var e *Error
		switch {
		case err == nil:
			if !valid {
				t.Fatalf("accepted what encoding/json refuses: %q", data)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber() // numbers beyond float64 are valid JSON
			var v any
			if dec.Decode(&v) != nil {
				t.Fatalf("accepted what does not decode: %q", data)
			}
			if b, _ := json.Marshal(v); !utf8.Valid(b) {
				t.Fatalf("accepted text that is not UTF-8: %q", data)
			}
		case errors.As(err, &e):
			if !errors.Is(err, ErrDuplicate) && !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("unknown problem %v", err)
			}
		default:
			if valid {
				t.Fatalf("syntax error %v for what encoding/json accepts: %q", err, data)
			}
		}
	})
}
