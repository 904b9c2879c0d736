package diag

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSyncer records what it was asked and answers with changes.
type fakeSyncer struct {
	asked   [][]string
	changes []SkillChange
	err     error
}

func (f *fakeSyncer) SyncSkills(_ context.Context, ids []string) (SkillSync, error) {
	f.asked = append(f.asked, ids)
	return SkillSync{StateDir: "/var/lib/jibod", Changes: f.changes}, f.err
}

// skills sync makes the running skills match the state folder and says
// what it did to each; it needs no technician mode.
func TestSkillsSync(t *testing.T) {
	r := newRig(t)
	f := &fakeSyncer{changes: []SkillChange{
		{ID: "acme/echo", Change: "updated", Version: "1.1.0", Previous: "1.0.0"},
		{ID: "acme/gone", Change: "unloaded", Previous: "2.0.0"},
		{ID: "acme/new", Change: "loaded", Version: "0.1.0"},
		{ID: "acme/bad", Change: "not loaded", Error: "manifest.json is missing"},
		{ID: "acme/gone", Change: "purged"},
	}}
	s := r.server(t, func(c *Config) { c.Env.Installed = f })
	out := script(t, s, "skills sync acme/echo acme/gone\n")
	assert.Equal(t, [][]string{{"acme/echo", "acme/gone"}}, f.asked)
	assert.Contains(t, out, "updated acme/echo 1.0.0 → 1.1.0\n")
	assert.Contains(t, out, "unloaded acme/gone (was 2.0.0)\n")
	assert.Contains(t, out, "loaded acme/new 0.1.0\n")
	assert.Contains(t, out, "not loaded acme/bad: manifest.json is missing\n")
	assert.Contains(t, out, "deleted the data acme/gone stored\n")

	res := jsonLines(t, script(t, s, "skills sync --json\n"))[0]
	assert.Empty(t, f.asked[1], "no ids: every skill")
	assert.Equal(t, "/var/lib/jibod", res["state_dir"])
	require.Len(t, res["changes"], 5)
	assert.Equal(t, map[string]any{"id": "acme/echo", "change": "updated", "version": "1.1.0", "previous": "1.0.0"}, res["changes"].([]any)[0])

	f.err = errors.New("installed skills: closed")
	assert.Contains(t, script(t, s, "skills sync --json acme/echo\n"), `{"error":"installed skills: closed"}`)

	s = r.server(t, nil)
	assert.Contains(t, script(t, s, "skills sync\n"), "this robot has no state folder with installed skills")
}
