package intenttool

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeSkills writes files (path → content) under a new folder.
func writeSkills(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, data := range files {
		full := filepath.Join(root, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(data), 0o644))
	}
	return root
}

// TestSkillFoldersRefused: a bad skill folder is an error naming the file
// and line; any problem loads nothing.
func TestSkillFoldersRefused(t *testing.T) {
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
	quiet := slog.New(slog.DiscardHandler)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkills(t, tc.files)
			skills, err := LoadSkillFolders(dir, "", quiet)
			if err == nil {
				var m *Matcher
				m, err = NewMatcher(context.Background(), skills, robotStack, quiet)
				require.Nil(t, m)
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	_, err := LoadSkillFolders(filepath.Join(t.TempDir(), "missing"), "", quiet)
	assert.ErrorContains(t, err, "reading skills folder")
}

// TestMatchAbstained: when the stack abstains (the best candidate scores
// below the claim floor), the no-match line shows that candidate and how
// it was made, so an author sees what a looser robot would have done;
// Explain lists the round's ranked candidates.
func TestMatchAbstained(t *testing.T) {
	dir := writeSkills(t, map[string]string{
		"home/locale/en-us/turn_on.intent": "{name} in {area}\n",
		"media/locale/en-us/play.intent":   "play {query}\n",
	})
	quiet := slog.New(slog.DiscardHandler)
	skills, err := LoadSkillFolders(dir, "", quiet)
	require.NoError(t, err)
	m, err := NewMatcher(context.Background(), skills, robotStack, quiet)
	require.NoError(t, err)
	defer m.Close()
	var out bytes.Buffer
	require.NoError(t, MatchLines(context.Background(), m, strings.NewReader("please turn the lights off in here\nplay the breaking bad tv show\n"),
		&out, MatchOptions{Lang: "en-us", Near: 3, Explain: true}))
	lines := jsonLines(t, out.String())
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
	require.True(t, ok, "Explain lists the candidates")
	require.Len(t, cands, 1)
	assert.Equal(t, "templates", cands[0].(map[string]any)["source"])
}
