package skilltool

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// fakeSkill is a skill that only has a manifest.
type fakeSkill struct{ m *registry.Manifest }

func (s fakeSkill) Manifest() *skill.Manifest { return s.m }
func (s fakeSkill) Locale() fs.FS             { return nil }
func (s fakeSkill) Handle(context.Context, *protocol.Request) (*protocol.Response, error) {
	return nil, nil
}

func fakeSkills(t *testing.T, manifests ...string) []skill.Skill {
	t.Helper()
	var out []skill.Skill
	for _, text := range manifests {
		m, err := registry.ParseManifest([]byte(text))
		require.NoError(t, err)
		out = append(out, fakeSkill{m})
	}
	return out
}

var twoSkills = []string{
	`{"id": "jibo/clock", "version": "1.0.0", "name": "Clock", "description": "Tells the time.", "permissions": ["speech"], "safety_level": "low"}`,
	`{"id": "jibo/timer", "version": "2.1.0", "name": "Timer", "description": "Counts down.", "permissions": ["speech", "timers"], "safety_level": "moderate"}`,
}

// TestList: the table lists every skill with its kind, permissions and
// limits; --permission keeps the skills granted it; JSON lines are the
// manifests.
func TestList(t *testing.T) {
	skills := fakeSkills(t, twoSkills...)
	var out, warn strings.Builder
	require.NoError(t, List(&out, &warn, skills, t.TempDir(), "", false))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, []string{"ID", "BUS", "ID", "VERSION", "KIND", "SAFETY", "PERMISSIONS", "LIMITS", "DESCRIPTION"}, strings.Fields(lines[0]))
	assert.Equal(t, "jibo/clock  jibo.clock  1.0.0    built-in  low       speech         10s per call, 120 calls/min  Tells the time.", lines[1])
	assert.Equal(t, []string{"jibo/timer", "jibo.timer", "2.1.0", "built-in", "moderate", "speech,timers"}, strings.Fields(lines[2])[:6])
	assert.Empty(t, warn.String())

	out.Reset()
	require.NoError(t, List(&out, &warn, skills, "", registry.Permission("timers"), true))
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &m))
	assert.Equal(t, "jibo/timer", m["id"])

	assert.Contains(t, PermissionNames(), "speech, ")
}

// TestGraphRefuses: a skill without a graph and an unknown skill are
// errors naming what there is.
func TestGraphRefuses(t *testing.T) {
	skills := fakeSkills(t, twoSkills...)
	var out strings.Builder
	assert.EqualError(t, Graph(context.Background(), &out, skills, "jibo.clock", ""), "skill jibo/clock is not a graph skill")
	assert.EqualError(t, Graph(context.Background(), &out, skills, "jibo/nope", ""), `no skill "jibo/nope" on this robot (skills: jibo/clock, jibo/timer)`)
	assert.Empty(t, out.String())
}

// TestRuns: the records are listed newest first, filtered, as a table or
// JSON lines; none recorded is said.
func TestRuns(t *testing.T) {
	dir := t.TempDir()
	f, err := invoke.OpenFile(filepath.Join(dir, "runs.jsonl"), invoke.FileOptions{})
	require.NoError(t, err)
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for _, r := range []invoke.Record{
		{Time: at, Skill: "jibo/timer", Intent: "set_timer", RequestID: "mid-1", RequestType: "LISTEN_LAUNCH", Outcome: invoke.OutcomeOK, Attempts: 1, Duration: time.Millisecond},
		{Time: at.Add(time.Second), Skill: "jibo/clock", RequestID: "mid-2", RequestType: "LISTEN_LAUNCH", Outcome: invoke.OutcomeDenied,
			Error: "skill jibo/clock:\n no \"motion\" permission"},
	} {
		f.Record(r)
	}
	require.NoError(t, f.Close())

	var out strings.Builder
	require.NoError(t, Runs(&out, dir, "runs.jsonl", invoke.Filter{Limit: 10}, false))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, []string{"TIME", "SKILL", "INTENT", "TYPE", "OUTCOME", "TRIES", "DURATION", "REQUEST", "ERROR"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"jibo/clock", "-", "LISTEN_LAUNCH", "denied"}, strings.Fields(lines[1])[2:6], "newest first; no intent is a dash")
	assert.True(t, strings.HasSuffix(lines[1], `skill jibo/clock: no "motion" permission`), "the error on one line: %q", lines[1])
	assert.Contains(t, lines[2], "1ms")

	out.Reset()
	require.NoError(t, Runs(&out, dir, "runs.jsonl", invoke.Filter{Outcome: invoke.OutcomeOK, Limit: 10}, true))
	var rec invoke.Record
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out.String())), &rec))
	assert.Equal(t, "mid-1", rec.RequestID)

	out.Reset()
	empty := t.TempDir()
	require.NoError(t, Runs(&out, empty, "runs.jsonl", invoke.Filter{Limit: 10}, false))
	assert.Equal(t, "no skill calls recorded in "+empty+"\n", out.String())
}

func TestCheckOutcome(t *testing.T) {
	assert.NoError(t, CheckOutcome("ok"))
	assert.NoError(t, CheckOutcome("denied"))
	err := CheckOutcome("meh")
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "want one of ok, "), err.Error())
}
