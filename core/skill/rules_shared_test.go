package skill

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Jibo's shared rules, which its skills' MIMs name, map to the robot's own
// answer rules; the NLU result names the rule as the question asked it.
func TestJiboSharedRules(t *testing.T) {
	a, err := NewAnswerRules(nil)
	require.NoError(t, err)
	for _, tt := range []struct {
		rule, answer, intent string
		entities             map[string]any
	}{
		{"shared/yes_no", "yeah", "yes", map[string]any{}},
		{"shared/yes_no", "no thanks", "no", map[string]any{}},
		{"shared/no_id", "sure", "yes", map[string]any{}},
		{"shared/verify_id", "that is not me", "wrongID", map[string]any{}},
		{"shared/verify_id", "of course", "yes", map[string]any{}},
		{"shared/wrong_id", "never mind", "cancel", map[string]any{}},
		{"shared/wildcard", "a purple elephant", "wildcard", map[string]any{"content": "a purple elephant"}},
		{"shared/yes_no", "banana bread", "", nil},
	} {
		nlu := a.Understand(tt.answer, "en-US", []string{tt.rule})
		assert.Equal(t, tt.intent, nlu.IntentName(), "%s %q", tt.rule, tt.answer)
		assert.Equal(t, tt.entities, nlu.Entities, "%s %q", tt.rule, tt.answer)
		assert.Equal(t, []string{tt.rule}, nlu.Rules, "the rule as the question named it")
	}
	// The wildcard takes only what nothing else understood.
	both := a.Understand("yes", "en-US", []string{"shared/wildcard", "shared/yes_no"})
	assert.Equal(t, "yes", both.IntentName())
	silence := a.Understand("  ", "en-US", []string{"shared/wildcard"})
	assert.Equal(t, "", silence.IntentName(), "silence is no answer")

	require.NoError(t, a.Check("shared/yes_no", "globals/yes_no", "optin/who", "globals/wildcard", "shared/wrong_id"))
	err = a.Check("globals/yes_no", "shared/yes_nope", "circuit-saver/play_again")
	require.ErrorIs(t, err, ErrUnknownRule)
	assert.ErrorContains(t, err, `"shared/yes_nope", "circuit-saver/play_again" names no answer rule (the robot's rules: globals/yes_no, optin/who, optin/yes_no, globals/wildcard, and Jibo's shared/no_id,`)
}

// questioner is a skill whose MIMs ask with the given rules.
type questioner struct {
	fakeSkill
	listen []string
}

func (q *questioner) ListenRules() []string { return q.listen }

// A local skill whose question names a rule the robot does not have is
// refused when it loads, not left to turn every answer into a no-match.
func TestAddRefusesUnknownListenRules(t *testing.T) {
	r := newHostRig(t)
	good := &questioner{fakeSkill: fakeSkill{id: "t.good"}, listen: []string{"shared/yes_no", "globals/yes_no"}}
	require.NoError(t, r.host.Add(good))
	bad := &questioner{fakeSkill: fakeSkill{id: "t.bad"}, listen: []string{"shared/yes_no", "shared/maybe"}}
	err := r.host.Add(bad)
	require.ErrorIs(t, err, ErrUnknownRule)
	assert.ErrorContains(t, err, `adding skill t/bad: its questions: "shared/maybe" names no answer rule`)
	assert.Len(t, r.host.Skills(), 1)

	// Its own rules count: "<bus id>/<rule>".
	own := newAskingSkill(t)
	q := &struct {
		*askingSkill
		listenRules
	}{own, listenRules{"test.asker/duration"}}
	require.NoError(t, r.host.Add(q))
	require.NoError(t, r.host.Remove(context.Background(), "test/asker"))
}

type listenRules []string

func (l listenRules) ListenRules() []string { return l }
