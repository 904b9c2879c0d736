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

// TestIntentsMatchAbstained: when the stack abstains (the best candidate
// scores below the claim floor), the no-match line shows that candidate
// and how it was made, so an author sees what a looser robot would have
// done; --explain lists the round's ranked candidates.
func TestIntentsMatchAbstained(t *testing.T) {
	dir := t.TempDir()
	for p, data := range map[string]string{
		"home/locale/en-us/turn_on.intent": "{name} in {area}\n",
		"media/locale/en-us/play.intent":   "play {query}\n",
	} {
		full := filepath.Join(dir, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(data), 0o644))
	}
	out, errOut, code := runTool(t, "please turn the lights off in here\nplay the breaking bad tv show\n", "intents", "match", "--skills", dir, "--explain")
	require.Equal(t, 0, code, errOut)
	lines := jsonLines(t, out)
	require.Len(t, lines, 2)

	assert.Contains(t, lines[0], "match")
	assert.Nil(t, lines[0]["match"])
	a, ok := lines[0]["abstained"].(map[string]any)
	require.True(t, ok, "the abstained candidate is shown: %v", lines[0])
	assert.Equal(t, "home", a["skill_id"])
	assert.Equal(t, "turn_on", a["intent_name"])
	assert.Equal(t, map[string]any{"name": "turn the lights off", "area": "here"}, a["slots"])
	assert.Less(t, a["score"], 0.5)
	assert.Contains(t, a["why"], `skipped "please"`)

	assert.Equal(t, "intents-medium", lines[1]["pipeline_id"], "a verb is evidence: claimed")
	assert.NotContains(t, lines[1], "abstained")
	cands, ok := lines[1]["candidates"].([]any)
	require.True(t, ok, "--explain lists the candidates")
	require.Len(t, cands, 1)
	assert.Equal(t, "templates", cands[0].(map[string]any)["source"])
}
