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
// pipeline tiers and checks what a skill author sees on each line.
func TestIntentsMatch(t *testing.T) {
	tests := []struct {
		utterance string
		want      map[string]any // the fields checked; "match": nil for no match
		near      string         // for no match: skill:intent of the first near miss
		reason    string         // substring of its reason
	}{
		{"Turn on the lamp!", map[string]any{"skill_id": "lights.openjibo", "intent_name": "turn_on",
			"slots": map[string]any{"device": "lamp"}, "confidence": 0.9625, "pipeline_id": "templates-high"}, "", ""},
		{"lights off", map[string]any{"skill_id": "lights.openjibo", "intent_name": "turn_off",
			"slots": map[string]any{}, "confidence": 1.0, "pipeline_id": "templates-high"}, "", ""},
		{"please switch on the kitchen light", map[string]any{"skill_id": "lights.openjibo", "intent_name": "turn_on",
			"slots": map[string]any{"device": "kitchen light"}, "pipeline_id": "templates-high"}, "", ""},
		{"please set a timer for five minutes", map[string]any{"skill_id": "timer.openjibo", "intent_name": "start_timer",
			"slots": map[string]any{"length": "five minutes"}, "pipeline_id": "templates-medium"}, "", ""},
		{"play bohemian rhapsody by queen", map[string]any{"skill_id": "music.openjibo", "intent_name": "play",
			"slots": map[string]any{"song": "bohemian rhapsody", "artist": "queen"}, "pipeline_id": "templates-high"}, "", ""},
		{"play something nobody knows at all today", map[string]any{"skill_id": "music.openjibo", "intent_name": "play",
			"pipeline_id": "templates-low"}, "", ""},
		{"dont turn on the lamp", map[string]any{"match": nil}, "lights.openjibo:turn_on", `words not in the sample: "dont"`},
		{"turn on the alarm", map[string]any{"match": nil}, "lights.openjibo:turn_on", "blacklist phrase"},
		{"set a timer for ever", map[string]any{"match": nil}, "timer.openjibo:start_timer", "is blacklisted for it (RES-06)"},
		{"light me up", map[string]any{"match": nil}, "lights.openjibo:turn_off", "sample words not said"},
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
				assert.Greater(t, first["score"], 0.0)
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
	assert.Equal(t, map[string]any{"device": "den fernseher"}, lines[0]["slots"])
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
	write := func(t *testing.T, root string, files map[string]string) {
		for p, data := range files {
			full := filepath.Join(root, p)
			require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
			require.NoError(t, os.WriteFile(full, []byte(data), 0o644))
		}
	}
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"skill id from the folder name", map[string]string{"Bad Skill/locale/en-us/x.intent": "hello\n"},
			[]string{"Bad Skill: folder name is the skill id: skill id \"Bad Skill\""}},
		{"malformed template names file, line and column", map[string]string{
			"good/locale/en-us/x.intent":       "hello\n",
			"broken/locale/en-us/sub/y.intent": "# comment\nturn (on\n",
		}, []string{"skill broken:", "broken/locale/en-us/sub/y.intent:2:6: '(' is never closed by ')'"}},
		{"every broken skill is reported", map[string]string{
			"one/locale/en-us/x.intent": "{only}\n",
			"two/locale/en-us/y.voc":    "a\n",
			"two/locale/en-us/y.intent": "say <nope>\n",
		}, []string{"one/locale/en-us/x.intent:1:1:", "two/locale/en-us/y.intent:1:5: vocabulary <nope> is not defined"}},
		{"reserved intent name refused by the service", map[string]string{"s/locale/en-us/stop.intent": "stop now\n"},
			[]string{"registering skills: skill s: intents refused by the intent service (see its log): stop/en-us (", "s/locale/en-us/stop.intent)"}},
		{"no skills", map[string]string{"README.md": "nothing here\n"}, []string{"no skill folders"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tc.files)
			out, errOut, code := runTool(t, "hello\n", "intents", "match", "--skills", dir)
			assert.Equal(t, 1, code)
			assert.Empty(t, out, "nothing matched against a half-loaded set")
			for _, w := range tc.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
	_, errOut, code := runTool(t, "", "intents", "match", "--skills", filepath.Join(t.TempDir(), "missing"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "reading skills folder")
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

// TestIntentsMatchRefused: when a low tier refuses its guess as
// implausible (intent.Plausible), the no-match line says what it refused
// and why, so an author sees what a looser robot would have done.
func TestIntentsMatchRefused(t *testing.T) {
	dir := t.TempDir()
	for p, data := range map[string]string{
		"home/locale/en-us/turn_on.intent": "{name} in {area}\n",
		"media/locale/en-us/play.intent":   "play {query}\n",
	} {
		full := filepath.Join(dir, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(data), 0o644))
	}
	out, errOut, code := runTool(t, "please turn the lights off in here\nplay the breaking bad tv show\n", "intents", "match", "--skills", dir)
	require.Equal(t, 0, code, errOut)
	lines := jsonLines(t, out)
	require.Len(t, lines, 2)

	assert.Contains(t, lines[0], "match")
	assert.Nil(t, lines[0]["match"])
	refused, ok := lines[0]["refused"].([]any)
	require.True(t, ok, "refused guesses listed: %v", lines[0])
	require.Len(t, refused, 1)
	r := refused[0].(map[string]any)
	assert.Equal(t, "templates-low", r["pipeline_id"])
	assert.Equal(t, "home", r["skill_id"])
	assert.Equal(t, "turn_on", r["intent_name"])
	assert.Equal(t, map[string]any{"name": "please turn the lights off", "area": "here"}, r["slots"])
	assert.Contains(t, r["reason"], "no evidence")
	assert.NotEmpty(t, r["why"])

	assert.Equal(t, "templates-low", lines[1]["pipeline_id"], "a verb is evidence: claimed")
	assert.NotContains(t, lines[1], "refused")
}
