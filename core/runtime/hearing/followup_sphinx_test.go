//go:build sphinx

package hearing

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/jcp"
)

type silentVoice struct{}

func (silentVoice) Say(context.Context, string) error { return nil }

// timerStack is the robot's intent stack with the built-in timer skill
// registered through the skill host, as the robot registers it: its
// change_timer requires the timer's "set" context (CTX-11).
func timerStack(t *testing.T) *intent.Stack {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	b := bus.New(bus.Options{Logger: log})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	st, err := intent.NewStack(intent.StackConfig{Bus: b, Logger: log})
	require.NoError(t, err)
	require.NoError(t, st.Start())
	t.Cleanup(st.Close)
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: silentVoice{}})
	require.NoError(t, err)
	host, err := skill.NewHost(skill.HostConfig{Bus: b, Body: ex, Logger: log})
	require.NoError(t, err)
	t.Cleanup(func() { _ = host.Close(context.Background()) })
	tm, err := timer.New(timer.Options{Logger: log})
	require.NoError(t, err)
	require.NoError(t, host.Add(tm))
	require.NoError(t, host.Register(t.Context()))
	return st
}

// timerSetSession is the robot's session right after the timer skill set
// a timer: its "set" context live for the follow-up's turns.
func timerSetSession(t *testing.T) session.Session {
	t.Helper()
	s, err := session.Empty().WithContext(timer.ID+":"+timer.ContextSet, nil, timer.ChangeTurns, 0)
	require.NoError(t, err)
	return s
}

// TestUnderstandClaimsFollowUpInTheSession: the recogniser's claim on a
// transcript (understand: the fallback's and the rival check's) is made
// in the robot's session, so "make it five minutes" is the timer's
// change_timer while the timer's "set" context is live, and in a session
// without it is no command at all: neither the follow-up the
// orchestrator would refuse nor a second timer (set_timer) (CTX-11).
func TestUnderstandClaimsFollowUpInTheSession(t *testing.T) {
	st := timerStack(t)
	live := timerSetSession(t)
	tests := []struct {
		name    string
		sess    func() session.Session
		text    string
		claim   string
		slots   map[string]string
		context bool
	}{
		{"a timer was just set", func() session.Session { return live }, "make it five minutes",
			timer.ID + ":" + timer.IntentChange, map[string]string{timer.SlotDuration: "five minutes"}, true},
		{"no context live", session.Empty, "make it five minutes", "", nil, false},
		{"no session given", nil, "make it five minutes", "", nil, false},
		{"a new timer is still a new timer in context", func() session.Session { return live }, "set a timer for ten minutes",
			timer.ID + ":" + timer.IntentSet, map[string]string{timer.SlotDuration: "ten minutes"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := understand(st, tt.sess, "en-US", slog.New(slog.DiscardHandler))(t.Context(), tt.text)
			require.NoError(t, err)
			assert.Equal(t, tt.claim, m.Intent)
			if tt.claim != "" {
				assert.Equal(t, tt.slots, m.Slots)
			}
			assert.Equal(t, tt.context, m.Context != "", "the answer names the live contexts: %q", m.Context)
		})
	}
}

// TestLiveContextsNameWhatAClaimDependsOn: the live contexts an answer
// names are the same while a context counts down its turns, and change
// when one ends or another value is set, so the recogniser's remembered
// meanings follow them.
func TestLiveContextsNameWhatAClaimDependsOn(t *testing.T) {
	now := time.Unix(1000, 0)
	key := timer.ID + ":" + timer.ContextSet
	two, err := session.Empty().WithContext(key, nil, 2, 0)
	require.NoError(t, err)
	one, err := session.Empty().WithContext(key, nil, 1, 0)
	require.NoError(t, err)
	spent, _, err := session.Parse(map[string]any{session.FieldIntentContext: map[string]any{
		key: map[string]any{"value": nil, "turns_remaining": int64(0)}}})
	require.NoError(t, err)
	expired, err := session.Empty().WithContext(key, nil, 0, 999)
	require.NoError(t, err)
	v := "kitchen"
	valued, err := session.Empty().WithContext(key, &v, 2, 0)
	require.NoError(t, err)

	assert.Empty(t, liveContexts(session.Empty(), now))
	assert.NotEmpty(t, liveContexts(two, now))
	assert.Equal(t, liveContexts(two, now), liveContexts(one, now), "counting down is the same context")
	assert.Empty(t, liveContexts(spent, now), "no turns left")
	assert.Empty(t, liveContexts(expired, now), "expired")
	assert.NotEqual(t, liveContexts(two, now), liveContexts(valued, now), "another value")
}
