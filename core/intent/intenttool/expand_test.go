package intenttool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expand runs ExpandLines on in and returns what it wrote.
func expand(t *testing.T, in string) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, ExpandLines(context.Background(), strings.NewReader(in), &out))
	return out.String()
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "line %q", l)
		out = append(out, m)
	}
	return out
}

// TestExpandLines: one JSON line out per request line; the §3.2 worked
// examples give their sample sets, sorted and unique (GRM-10, GRM-11), and
// a bad line gives an error naming it while the tool carries on.
func TestExpandLines(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`{"template": "open (the|) (door|gate)"}`, `{"expansions":["open door","open gate","open the door","open the gate"]}`},
		{`{"template": "[[very] big] dog"}`, `{"expansions":["big dog","dog","very big dog"]}`},
		{`{"template": "x (a|[b]) y"}`, `{"expansions":["x a y","x b y","x y"]}`},
		{`{"template": "(a|(b|c)) d"}`, `{"expansions":["a d","b d","c d"]}`},
		{`{"template": "  turn   on  "}`, `{"expansions":["turn on"]}`},
		{`{"template": "(hi|hi) there"}`, `{"expansions":["hi there"]}`},
		{`{"template": "set timer for {duration:length}"}`, `{"expansions":["set timer for {length}"]}`},
		{`{"template": "call {{who}} now"}`, `{"expansions":["call {who} now"]}`},
		{`{"template": "turn (on|off) <device>", "vocab": {"device": ["lamp", "(tv|television)"]}}`,
			`{"expansions":["turn off lamp","turn off television","turn off tv","turn on lamp","turn on television","turn on tv"]}`},
		{`{"template": "say (yes)"}`, `{"expansions":["say yes"],"warnings":["template:1:5: group \"(yes)\" has a single branch; read as its content (GRM-03)"]}`},
		{`{"template": "light[s] on", "vocab": {}}`, `{"expansions":["light on","lights on"]}`},
		{`{"template": "[please]"}`, `{"error":"line 1: template:1:1: template \"[please]\" can expand to an empty sample (GRM-07)"}`},
		{`{"template": "(a]"}`, `{"error":"line 1: template:1:3: ']' closes the '(' opened at line 1 col 1"}`},
		{`{"template": "{a} (and|) {b}"}`, `{"error":"line 1: template:1:12: slots {a} and {b} are adjacent in sample \"{a} {b}\" (GRM-07)"}`},
		{`{"template": "<v> x", "vocab": {"v": ["{s}"]}}`, `{"error":"line 1: template:1:1: vocabulary <v> template \"{s}\" has slot {s}; vocabularies are slot-free (GRM-06)"}`},
		{`{"template": "<nope> x"}`, `{"error":"line 1: template:1:1: vocabulary <nope> is not defined (GRM-07)"}`},
		{`{"template": "x", "vocab": {"Bad Name": ["y"]}}`, `{"error":"line 1: vocab \"Bad Name\": name must match [a-z_][a-z0-9_]* (GRM-04)"}`},
		{`{"template": "x", "vocab": {"v": []}}`, `{"error":"line 1: vocab \"v\": no phrases"}`},
		{`{"template": "x", "vocab": {"v": "y"}}`, `{"error":"line 1: invalid request: field \"vocab\": want []string, got JSON string"}`},
		{`{"template": 5}`, `{"error":"line 1: invalid request: field \"template\": want string, got JSON number"}`},
		{`{"vocab": {}}`, `{"error":"line 1: invalid request: \"template\" is missing"}`},
		{`{"template": "x", "extra": true}`, `{"error":"line 1: invalid request: json: unknown field \"extra\""}`},
		{`{"template": "x"} {"template": "y"}`, `{"error":"line 1: invalid request: more than one JSON value on the line"}`},
		{`not json`, `{"error":"line 1: invalid request: invalid character 'o' in literal null (expecting 'u')"}`},
		{"{\"template\": \"a\xffb\"}", `{"error":"line 1: not valid UTF-8"}`},
		// Strict input (issue 22 items 9 and 10).
		{`{"template": "open", "template": "close"}`, `{"error":"line 1: invalid request: template: member given twice (\"template\") at byte 21"}`},
		{`{"template": "a\ud800b"}`, `{"error":"line 1: invalid request: template: invalid UTF-8 (\\ud800 is half a UTF-16 surrogate pair) at byte 15"}`},
		{`{"template": "ring\u0007 the bell"}`, `{"error":"line 1: template:1:5: template contains control character U+0007 (BEL)"}`},
		{`{"template": "play \u202egnos"}`, `{"error":"line 1: template:1:6: template contains control character U+202E (RLO)"}`},
		{`{"template": "turn on <d>", "vocab": {"d": ["lamp\u0000"]}}`, `{"error":"line 1: template:1:9: vocabulary <d> is malformed: <d>[1]:1:5: template contains control character U+0000 (NUL)"}`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want+"\n", expand(t, tc.in+"\n"))
		})
	}
}

// TestExpandLinesStream: errors name the input line, blank lines are
// skipped, CRLF and a last line without a newline are read, and the tool
// goes on after a bad line.
func TestExpandLinesStream(t *testing.T) {
	in := "{\"template\": \"a [b]\"}\r\n\n   \nbroken\n{\"template\": \"(x|y)\"}"
	assert.Equal(t, []map[string]any{
		{"expansions": []any{"a", "a b"}},
		{"error": "line 4: invalid request: invalid character 'b' looking for beginning of value"},
		{"expansions": []any{"x", "y"}},
	}, jsonLines(t, expand(t, in)))

	long := `{"template": "` + strings.Repeat("a ", maxExpandLine) + `"}`
	assert.Equal(t, []map[string]any{
		{"error": "line 1: longer than 1048576 bytes; skipped"},
		{"expansions": []any{"ok"}},
	}, jsonLines(t, expand(t, long+"\n{\"template\": \"ok\"}\n")))
	assert.Empty(t, expand(t, ""))
}

// TestExpandLinesReadError: only failing to read or write is an error.
func TestExpandLinesReadError(t *testing.T) {
	err := ExpandLines(context.Background(), iotest.ErrReader(errors.New("disk on fire")), &bytes.Buffer{})
	assert.EqualError(t, err, "reading standard input: disk on fire")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, ExpandLines(ctx, strings.NewReader("{\"template\": \"x\"}\n"), &bytes.Buffer{}), context.Canceled)
}
