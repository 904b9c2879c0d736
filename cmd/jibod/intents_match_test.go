package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/console"
)

const testSkills = "testdata/skills"

// TestIntentsMatch runs utterances against the example skills through the
// intent stack's bands and checks what a skill author sees on each line.
func TestIntentsMatch(t *testing.T) {
	tests := []struct {
		utterance string
		want      map[string]any // the fields checked; "match": nil for no match
		near      string         // for no match: skill:intent of the first near miss
		reason    string         // substring of its reason
	}{
		{"Turn on the lamp!", map[string]any{"skill_id": "lights.openjibo", "intent_name": "turn_on",
			"slots": map[string]any{"device": "lamp"}, "confidence": 0.97, "pipeline_id": "intents-high"}, "", ""},
		{"lights off", map[string]any{"skill_id": "lights.openjibo", "intent_name": "turn_off",
			"slots": map[string]any{}, "confidence": 0.97, "pipeline_id": "intents-high"}, "", ""},
		{"please switch on the kitchen light", map[string]any{"skill_id": "lights.openjibo", "intent_name": "turn_on",
			"slots": map[string]any{"device": "kitchen light"}, "pipeline_id": "intents-high"}, "", ""},
		{"please set a timer for five minutes", map[string]any{"skill_id": "timer.openjibo", "intent_name": "start_timer",
			"slots": map[string]any{"length": "five minutes"}, "pipeline_id": "intents-high"}, "", ""},
		{"play bohemian rhapsody by queen", map[string]any{"skill_id": "music.openjibo", "intent_name": "play",
			"slots": map[string]any{"song": "bohemian rhapsody", "artist": "queen"}, "pipeline_id": "intents-high"}, "", ""},
		{"dont turn on the lamp", map[string]any{"match": nil}, "lights.openjibo:turn_on", `unexplained "dont"`},
		{"turn on the alarm", map[string]any{"match": nil}, "lights.openjibo:turn_on", "suppressed by its blacklist (RES-06)"},
		{"set a timer for ever", map[string]any{"match": nil}, "timer.openjibo:start_timer", `"ever" is blacklisted for it (RES-06)`},
		{"light me up", map[string]any{"match": nil}, "lights.openjibo:turn_off", `template word "off" not said`},
	}
	var in strings.Builder
	for _, tc := range tests {
		in.WriteString(tc.utterance + "\n")
	}
	out, errOut, code := runTool(t, in.String(), "intents", "match", "--skills", testSkills)
	require.Equal(t, 0, code, errOut)
	lines := jsonLines(t, out)
	require.Len(t, lines, len(tests))
	for i, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			got := lines[i]
			assert.Equal(t, tc.utterance, got["utterance"], "the input, verbatim")
			for k, v := range tc.want {
				assert.Equal(t, v, got[k], k)
			}
			if _, unmatched := tc.want["match"]; unmatched {
				assert.Contains(t, got, "match")
				near, ok := got["near_misses"].([]any)
				require.True(t, ok)
				require.NotEmpty(t, near)
				first := near[0].(map[string]any)
				assert.Equal(t, tc.near, first["skill_id"].(string)+":"+first["intent_name"].(string))
				assert.Contains(t, first["reason"], tc.reason)
				assert.NotEmpty(t, first["sample"])
				assert.GreaterOrEqual(t, first["score"], 0.0)
				return
			}
			assert.NotContains(t, got, "match")
			c := got["confidence"].(float64)
			assert.True(t, c > 0 && c <= 1, "confidence %v in (0, 1]", c)
			assert.NotEmpty(t, got["why"])
		})
	}
}

// TestIntentsMatchOverrideAndLang: --override layers a user's files over
// the skill's (RES-02); --lang picks the language.
func TestIntentsMatchOverrideAndLang(t *testing.T) {
	out, errOut, code := runTool(t, "light me up\nturn on the lamp\n", "intents", "match", "--skills", testSkills,
		"--override", "testdata/override")
	require.Equal(t, 0, code, errOut)
	lines := jsonLines(t, out)
	require.Len(t, lines, 2)
	assert.Equal(t, "turn_on", lines[0]["intent_name"], "RES-02: the user's turn_on.intent is used")
	assert.Equal(t, "turn_on", lines[1]["intent_name"])

	out, errOut, code = runTool(t, "schalte den fernseher ein\nturn on the lamp\n", "intents", "match", "--skills", testSkills, "--lang", "de-DE")
	require.Equal(t, 0, code, errOut)
	lines = jsonLines(t, out)
	require.Len(t, lines, 2)
	assert.Equal(t, "turn_on", lines[0]["intent_name"])
	assert.Equal(t, map[string]any{"device": "fernseher"}, lines[0]["slots"], "German's optional \"den\" is tolerated; the device is the listed value")
	assert.Nil(t, lines[1]["match"], "English does not match in German")
}

// TestIntentsMatchBadInput: lines that are not utterances get an error
// line naming them; the rest go on.
func TestIntentsMatchBadInput(t *testing.T) {
	in := "lights on\n\nbad\x01line\n" + strings.Repeat("x", console.MaxLineBytes+1) + "\nlights off"
	out, errOut, code := runTool(t, in, "intents", "match", "--skills", testSkills)
	require.Equal(t, 0, code, errOut)
	lines := jsonLines(t, out)
	require.Len(t, lines, 4)
	assert.Equal(t, "turn_on", lines[0]["intent_name"])
	assert.Equal(t, map[string]any{"line": 3.0, "error": "contains control characters"}, lines[1])
	assert.Equal(t, 4.0, lines[2]["line"])
	assert.Contains(t, lines[2]["error"], "exceeds the 2048-byte limit")
	assert.Equal(t, "turn_off", lines[3]["intent_name"])
}

// TestIntentsMatchBadSkills: a bad skill folder is an error naming the
// file and line; nothing is matched (exit 1, nothing on stdout).
func TestIntentsMatchBadSkills(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "broken", "locale", "en-us"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken", "locale", "en-us", "y.intent"), []byte("turn (on\n"), 0o644))
	out, errOut, code := runTool(t, "hello\n", "intents", "match", "--skills", dir)
	assert.Equal(t, 1, code)
	assert.Empty(t, out, "nothing matched against a half-loaded set")
	assert.Contains(t, errOut, "jibod intents: intents match: skill broken: ")
	assert.Contains(t, errOut, "broken/locale/en-us/y.intent:1:6: '(' is never closed by ')'")
}

func TestIntentsMatchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"intents", "match"},
		{"intents", "match", "--skills", testSkills, "extra"},
		{"intents", "match", "--skills", testSkills, "--lang", "english"},
		{"intents", "match", "--skills", testSkills, "--near", "0"},
		{"intents", "match", "--skills", testSkills, "--log-level", "loud"},
		{"intents", "match", "--bogus"},
		{"intents", "nope"},
	} {
		_, _, code := runTool(t, "", args...)
		assert.Equal(t, 2, code, "%v", args)
	}
}
