package skill

import (
	"context"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// patientSkill is a fakeSkill with time to answer on a loaded machine.
type patientSkill struct{ fakeSkill }

func (p *patientSkill) Manifest() *Manifest {
	m := p.fakeSkill.Manifest()
	m.Timeout = 30 * time.Second
	return m
}

func inDefaultSession(t *testing.T, d pipeline.Dispatch) pipeline.Dispatch {
	s, _, err := session.Parse(map[string]any{"session_id": session.DefaultID})
	require.NoError(t, err)
	d.Session = s
	return d
}

// A local skill sets context while it handles a turn; the host writes it
// in place, private to the skill, into the session the turn commits
// (CTX-02, CTX-07).
func TestSetContextCTX07(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	answer := "time"
	var mu sync.Mutex
	var setErrs []error
	s := &patientSkill{fakeSkill{id: "t.s", handle: func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		setErrs = []error{
			SetContext(ctx, ContextWrite{Key: "asked", Value: &answer, Turns: 2, TTL: time.Minute}),
			SetContext(ctx, ContextWrite{Key: "flag", Turns: 1}),
			SetContext(ctx, ContextWrite{Key: "flag", Turns: 3}), // written twice: the last write counts
		}
		return say(t, req, jcp.Say("It's noon.")), nil
	}}}
	errs := func() []error {
		mu.Lock()
		defer mu.Unlock()
		return setErrs
	}
	r := newHostRig(t, s)
	r.host.cfg.Now = func() time.Time { return now }

	out, err := r.host.Invoke(context.Background(), inDefaultSession(t, dispatch("t.s", "time")))
	require.NoError(t, err)
	assert.Equal(t, []error{nil, nil, nil}, errs())
	nowS := float64(now.Unix())
	e, ok := out.ContextLookup("t.s:asked", nowS)
	require.True(t, ok, "written under the skill's private key")
	assert.Equal(t, "time", *e.Value)
	assert.Equal(t, int64(2), *e.TurnsRemaining)
	assert.Equal(t, nowS+60, *e.ExpiresAt)
	f, ok := out.ContextLookup("t.s:flag", nowS)
	require.True(t, ok)
	assert.Nil(t, f.Value, "a presence flag")
	assert.Equal(t, int64(3), *f.TurnsRemaining)
	assert.True(t, out.ContextAllows("t.s", []session.ContextRef{{Key: "asked"}}, nil, nowS), "the skill's follow-ups now pass CTX-11")

	// Without a session (a proactive launch, a call from a tool) there is
	// no turn to carry context.
	_, err = r.host.Invoke(context.Background(), dispatch("t.s", "time"))
	require.NoError(t, err)
	for _, e := range errs() {
		assert.ErrorIs(t, e, ErrNoTurn)
	}
	assert.ErrorIs(t, SetContext(context.Background(), ContextWrite{Key: "k", Turns: 1}), ErrNoTurn)
}

func TestSetContextFailedTurnWritesNothing(t *testing.T) {
	s := &patientSkill{fakeSkill{id: "t.s", handle: func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
		if err := SetContext(ctx, ContextWrite{Key: "asked", Turns: 1}); err != nil {
			return nil, err
		}
		return protocol.NewError(req, "broken"), nil
	}}}
	r := newHostRig(t, s)
	out, err := r.host.Invoke(context.Background(), inDefaultSession(t, dispatch("t.s", "time")))
	require.Error(t, err)
	assert.True(t, out.IsZero(), "nothing committed for a turn that failed")
}

func TestSetContextValidates(t *testing.T) {
	ctx := withTurn(context.Background(), turn{writes: &contextWrites{}}, time.Now)
	tests := []struct {
		name string
		w    ContextWrite
		want string
	}{
		{"no key", ContextWrite{Turns: 1}, "key"},
		{"a colon", ContextWrite{Key: "a:b", Turns: 1}, "key"},
		{"upper case", ContextWrite{Key: "Asked", Turns: 1}, "key"},
		{"no turns", ContextWrite{Key: "k"}, "turns"},
		{"too many turns", ContextWrite{Key: "k", Turns: MaxContextTurns + 1}, "turns"},
		{"negative ttl", ContextWrite{Key: "k", Turns: 1, TTL: -time.Second}, "time to live"},
		{"ttl too long", ContextWrite{Key: "k", Turns: 1, TTL: MaxContextTTL + time.Second}, "time to live"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorContains(t, SetContext(ctx, tt.w), tt.want)
		})
	}
	for i := range MaxContextWrites {
		require.NoError(t, SetContext(ctx, ContextWrite{Key: "k" + string(rune('a'+i)), Turns: 1}))
	}
	assert.ErrorContains(t, SetContext(ctx, ContextWrite{Key: "one_more", Turns: 1}), "more than")
}

// TestContextValue: a skill reads the value of its own entry in the
// session of the turn it handles: not another skill's, not a flag, not
// an expired one, and nothing outside a turn; an entry whose turns ran
// out with this very round still reads (it was live when the round
// matched, CTX-06).
func TestContextValue(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	sess, _, err := session.Parse(map[string]any{"session_id": "default", "intent_context": map[string]any{
		"t.s:set":        map[string]any{"value": "t-1", "turns_remaining": float64(1)},
		"t.s:last_round": map[string]any{"value": "t-1", "turns_remaining": float64(0), "expires_at": float64(now.Unix() + 60)},
		"t.s:flag":       map[string]any{"value": nil, "turns_remaining": float64(1)},
		"t.s:old":        map[string]any{"value": "t-1", "expires_at": float64(now.Unix() - 1)},
		"other:set":      map[string]any{"value": "t-2"},
	}})
	require.NoError(t, err)
	ctx := withTurn(context.Background(), turn{skillID: "t.s", sess: sess, writes: &contextWrites{}}, func() time.Time { return now })
	for _, tt := range []struct {
		key  string
		want string
		ok   bool
	}{{"set", "t-1", true}, {"last_round", "t-1", true}, {"flag", "", false}, {"old", "", false}, {"missing", "", false}} {
		got, ok := ContextValue(ctx, tt.key)
		assert.Equal(t, tt.ok, ok, tt.key)
		assert.Equal(t, tt.want, got, tt.key)
	}
	_, ok := ContextValue(context.Background(), "set")
	assert.False(t, ok, "outside a turn")
	_, ok = ContextValue(withTurn(context.Background(), turn{skillID: "other"}, time.Now), "set")
	assert.False(t, ok, "a turn without a session")
}

// gatedSkill has a locale and gates one intent on its context.
type gatedSkill struct{ patientSkill }

func (g *gatedSkill) Locale() fs.FS {
	return fstest.MapFS{
		"en-us/time.intent":     {Data: []byte("what time is it\n")},
		"en-us/followup.intent": {Data: []byte("and the date\n")},
	}
}

func (g *gatedSkill) RequiredContext() map[string][]string {
	return map[string][]string{"followup": {"asked"}}
}

// A ContextGated skill's intents are registered with requires_context, so
// the orchestrator gates them (CTX-11).
func TestRegisterRequiresContextCTX11(t *testing.T) {
	g := &gatedSkill{patientSkill{fakeSkill{id: "t.s"}}}
	r := newHostRig(t, g)
	svc := intent.NewService(r.bus, intent.NewTemplateEngine(intent.EngineOptions{}), nil)
	require.NoError(t, svc.Start())
	t.Cleanup(svc.Close)
	// The bus delivers to each subscriber on its own; Register returns once
	// the intent service confirmed, which says nothing of this subscriber.
	seen := make(chan bus.Message, 16)
	sub, err := r.bus.Subscribe(intent.TopicRegisterTemplate, func(_ context.Context, m bus.Message) {
		seen <- m
	}, bus.WithQueue(16, bus.Block))
	require.NoError(t, err)
	t.Cleanup(sub.Close)
	require.NoError(t, r.host.Register(context.Background()))
	got := map[string]any{}
	timeout := time.After(10 * time.Second)
	for len(got) < 2 {
		select {
		case m := <-seen:
			got[m.DataString("intent_name")] = m.Data["requires_context"]
		case <-timeout:
			t.Fatalf("registrations seen: %v", got)
		}
	}
	assert.Equal(t, map[string]any{"followup": []any{"asked"}, "time": nil}, got)
}
