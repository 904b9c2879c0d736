package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/registry"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), testTrainer, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestSkillsList(t *testing.T) {
	code, out, stderr := runCmd(t, "skills", "list")
	require.Equal(t, 0, code, stderr)
	for _, id := range []string{"jibo/basics", "jibo/clock", "jibo/timer", "jibo/chitchat", "jibo/volume", "jibo/capabilities"} {
		assert.Contains(t, out, id)
	}

	// Listing by permission: only skills granted it.
	code, out, stderr = runCmd(t, "skills", "list", "--permission", "timers", "--json")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1, out)
	m, err := registry.ParseManifest([]byte(lines[0]))
	require.NoError(t, err, "--json prints manifests that parse back")
	assert.Equal(t, "jibo/timer", m.ID)

	code, _, stderr = runCmd(t, "skills", "list", "--permission", "flying")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--permission "flying": want one of speech`)
}

func TestSkillsGraph(t *testing.T) {
	for _, id := range []string{"jibo/timer", "jibo.timer", "jibo/chitchat"} {
		code, out, stderr := runCmd(t, "skills", "graph", id)
		require.Equal(t, 0, code, stderr)
		assert.True(t, strings.HasPrefix(out, "digraph"), "DOT output: %s", out)
	}
	code, _, stderr := runCmd(t, "skills", "graph", "jibo/clock")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "skill jibo/clock is not a graph skill")
	code, _, stderr = runCmd(t, "skills", "graph", "jibo/nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `no skill "jibo/nope" on this robot (skills: jibo/basics`)
	code, _, _ = runCmd(t, "skills", "graph")
	assert.Equal(t, 2, code)
}

func TestSkillsRuns(t *testing.T) {
	dir := t.TempDir()
	f, err := invoke.OpenFile(filepath.Join(dir, runtime.RunsFileName), invoke.FileOptions{})
	require.NoError(t, err)
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for _, r := range []invoke.Record{
		{Time: at, Skill: "jibo/timer", Intent: "set_timer", RequestID: "mid-1", RequestType: "LISTEN_LAUNCH", Outcome: invoke.OutcomeOK, Attempts: 1, Duration: time.Millisecond},
		{Time: at.Add(time.Second), Skill: "jibo/clock", Intent: "time_now", RequestID: "mid-2", RequestType: "LISTEN_LAUNCH", Outcome: invoke.OutcomeDenied,
			Error: `skill jibo/clock: no "motion" permission`},
	} {
		f.Record(r)
	}
	require.NoError(t, f.Close())

	code, out, stderr := runCmd(t, "skills", "runs", "--state", dir)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Contains(t, lines[1], "jibo/clock", "newest first")
	assert.Contains(t, lines[1], "denied")
	assert.Contains(t, lines[1], `no "motion" permission`)

	code, out, stderr = runCmd(t, "skills", "runs", "--state", dir, "--outcome", "ok", "--json")
	require.Equal(t, 0, code, stderr)
	var rec invoke.Record
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &rec))
	assert.Equal(t, "mid-1", rec.RequestID)

	code, out, _ = runCmd(t, "skills", "runs", "--state", t.TempDir())
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "no skill calls recorded")

	for _, bad := range [][]string{{"--outcome", "meh"}, {"-n", "0"}, {"--state", "none"}} {
		code, _, _ = runCmd(t, append([]string{"skills", "runs"}, bad...)...)
		assert.Equal(t, 2, code, bad)
	}
	_, err = os.Stat(filepath.Join(dir, runtime.RunsFileName))
	assert.NoError(t, err)
}
