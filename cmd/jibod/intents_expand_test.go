package main

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

// runTool runs `jibod <args>` in process and returns stdout, stderr and the
// exit code.
func runTool(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
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

// TestIntentsExpand: standard input's JSON lines are answered one JSON
// line each (intenttool's tests check the answers), a bad line naming it
// while the tool carries on.
func TestIntentsExpand(t *testing.T) {
	out, errOut, code := runTool(t, "{\"template\": \"open (the|) door\"}\r\n\nbroken\n", "intents", "expand")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, []map[string]any{
		{"expansions": []any{"open door", "open the door"}},
		{"error": "line 3: invalid request: invalid character 'b' looking for beginning of value"},
	}, jsonLines(t, out))
}

func TestIntentsExpandFailures(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"intents", "expand"}, iotest.ErrReader(errors.New("disk on fire")), &out, &errb)
	assert.Equal(t, 1, code, "standard input cannot be read")
	assert.Contains(t, errb.String(), "reading standard input: disk on fire")

	_, errOut, code := runTool(t, "", "intents", "expand", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "takes no arguments")
}
