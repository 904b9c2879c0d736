package pipeline

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// inBubble runs f with a bus inside a synctest bubble: poll windows and
// timeouts pass instantly and exactly.
func inBubble(t *testing.T, f func(t *testing.T, b *bus.Bus)) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(bus.Options{})
		defer b.Close(context.Background())
		f(t, b)
	})
}

// answerer replies to a ping topic with the pongs make builds (each gets
// context.skill_id = its data.skill_id unless make set one) and counts pings.
type answerer struct {
	mu    sync.Mutex
	pings []bus.Message
}

func answer(t *testing.T, b *bus.Bus, ping, pong string, make func(m bus.Message) []bus.Message) *answerer {
	t.Helper()
	a := &answerer{}
	sub, err := b.Subscribe(ping, func(ctx context.Context, m bus.Message) {
		a.mu.Lock()
		a.pings = append(a.pings, m)
		a.mu.Unlock()
		for _, p := range make(m) {
			r := m.Reply(pong, p.Data)
			for k, v := range p.Context {
				r.Context[k] = v
			}
			if _, set := r.Context[bus.KeySkillID]; !set {
				r.Context[bus.KeySkillID] = p.Data["skill_id"]
			}
			_ = b.Publish(ctx, r)
		}
	})
	require.NoError(t, err)
	t.Cleanup(sub.Close)
	return a
}

func (a *answerer) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pings)
}

func pongs(list ...map[string]any) func(bus.Message) []bus.Message {
	return func(bus.Message) []bus.Message {
		var out []bus.Message
		for _, d := range list {
			m := bus.Message{Data: d, Context: map[string]any{}}
			if c, ok := d["_ctx_skill"]; ok {
				m.Data = bus.CopyMap(d)
				delete(m.Data, "_ctx_skill")
				m.Context[bus.KeySkillID] = c
			}
			out = append(out, m)
		}
		return out
	}
}

func round(t *testing.T, utterance string, sess map[string]any) Round {
	t.Helper()
	s, _, err := session.Parse(sess)
	require.NoError(t, err)
	e := bus.NewMessage(TopicHandle, map[string]any{"utterances": []any{utterance}})
	e.Context[bus.KeyUtteranceID] = "u-1"
	e.Context[bus.KeySource] = "tester"
	e.Context[bus.KeySession] = s.Map()
	return Round{Utterances: []string{utterance}, Lang: "en-US", Session: s, Entry: e}
}

func handlersList(pairs ...any) []any {
	var out []any
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, map[string]any{"skill_id": pairs[i], "activated_at": pairs[i+1]})
	}
	return out
}

func TestStop_STOP02_STOP03_STOP04_STOP05_STOP09(t *testing.T) {
	active := handlersList("a", 9.0, "b", 5.0, "c", 1.0)
	tests := []struct {
		name      string
		utterance string
		lang      string
		sess      map[string]any
		pongs     []map[string]any
		want      string // "skill:intent", "" for no match
		pinged    bool
	}{
		{"no vocabulary for the language (STOP-02)", "stop", "pt-PT", nil, nil, "", false},
		{"not a stop phrase", "play music", "en-US", nil, nil, "", false},
		{"nothing active: global stop, no ping (STOP-03.1)", "stop", "en-US", nil, nil, "stop:global_stop", false},
		{"only the plugin itself active counts as empty (STOP-05)", "Stop!", "en-US",
			map[string]any{"active_handlers": handlersList("stop", 3.0)}, nil, "stop:global_stop", false},
		{"stop everything goes straight to global (STOP-02)", "stop everything", "en-US",
			map[string]any{"active_handlers": active}, nil, "stop:global_stop", false},
		{"only positive responders are chosen (STOP-03.5)", "stop", "en-US", map[string]any{"active_handlers": active},
			[]map[string]any{{"skill_id": "c", "can_handle": true}, {"skill_id": "a", "can_handle": false}}, "c:stop", true},
		{"no positive responder: the most recent, never global (STOP-03.6)", "stop", "en-US", map[string]any{"active_handlers": active},
			nil, "a:stop", true},
		{"can_handle must be a boolean (STOP-04)", "stop", "en-US", map[string]any{"active_handlers": active},
			[]map[string]any{{"skill_id": "c", "can_handle": "true"}}, "a:stop", true},
		{"a pong for another skill than its emitter cannot stop (STOP-04)", "stop", "en-US", map[string]any{"active_handlers": active},
			[]map[string]any{{"skill_id": "c", "can_handle": true, "_ctx_skill": "b"}}, "a:stop", true},
		{"a skill not in active_handlers is ignored", "stop", "en-US", map[string]any{"active_handlers": active},
			[]map[string]any{{"skill_id": "zz", "can_handle": true}}, "a:stop", true},
		{"a blacklisted skill is never the target (STOP-09)", "stop", "en-US",
			map[string]any{"active_handlers": active, "blacklisted_skills": []any{"a"}}, nil, "b:stop", true},
		{"a blacklisted <skill>:stop is never returned (STOP-09)", "stop", "en-US",
			map[string]any{"active_handlers": active, "blacklisted_intents": []any{"a:stop", "b:stop"}}, nil, "c:stop", true},
		{"every candidate filtered: no match (STOP-03.7)", "stop", "en-US",
			map[string]any{"active_handlers": handlersList("a", 1.0), "blacklisted_skills": []any{"a"}}, nil, "", true},
		{"a blacklisted global_stop: no match", "stop", "en-US", map[string]any{"blacklisted_intents": []any{"stop:global_stop"}}, nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T, b *bus.Bus) {
				a := answer(t, b, TopicStopPing, TopicStopPong, pongs(tt.pongs...))
				p, err := NewStop(StopConfig{Bus: b})
				require.NoError(t, err)
				r := round(t, tt.utterance, tt.sess)
				r.Lang = tt.lang
				m, err := p.MatchRound(context.Background(), r)
				require.NoError(t, err)
				got := ""
				if m != nil {
					got = m.SkillID + ":" + m.IntentName
					assert.NoError(t, m.validate())
				}
				assert.Equal(t, tt.want, got)
				assert.Equal(t, tt.pinged, a.count() == 1, "pinged")
			})
		})
	}
}

// TestStopUnstopped: a cancel phrase that finds nothing to stop (nothing
// active, or no active skill answering the ping, and no question open)
// is stopped exactly as STOP-03 says, and carries Unstopped's word to run
// after the stop (Match.After); every other stop carries none.
func TestStopUnstopped_STOP03(t *testing.T) {
	active := handlersList("a", 9.0)
	asking := map[string]any{"active_handlers": active, "response_mode": map[string]any{"skill_id": "a", "expires_at": 1e12}}
	tests := []struct {
		name      string
		utterance string
		sess      map[string]any
		pongs     []map[string]any
		offer     bool // Unstopped returns a word
		want      string
		after     bool
	}{
		{"nothing active: global stop, then the word (STOP-03.1)", "cancel please", nil, nil, true, "stop:global_stop", true},
		{"an active skill with nothing running: its stop, then the word (STOP-03.6)", "stop it", map[string]any{"active_handlers": active},
			nil, true, "a:stop", true},
		{"an active skill that can stop: its stop alone (STOP-03.5)", "cancel", map[string]any{"active_handlers": active},
			[]map[string]any{{"skill_id": "a", "can_handle": true}}, true, "a:stop", false},
		{"a question open: the stop ends it, no word", "cancel", asking, nil, true, "a:stop", false},
		{"never mind is no cancel", "never mind", nil, nil, true, "stop:global_stop", false},
		{"a stop phrase asking for quiet", "be quiet", nil, nil, true, "stop:global_stop", false},
		{"stop everything (STOP-02)", "stop everything", nil, nil, true, "stop:global_stop", false},
		{"nothing to say", "cancel", nil, nil, false, "stop:global_stop", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T, b *bus.Bus) {
				answer(t, b, TopicStopPing, TopicStopPong, pongs(tt.pongs...))
				asked := 0
				p, err := NewStop(StopConfig{Bus: b, Unstopped: func(_ context.Context, r Round) func(context.Context, Dispatch) error {
					asked++
					if !tt.offer {
						return nil
					}
					return func(context.Context, Dispatch) error { return nil }
				}})
				require.NoError(t, err)
				m, err := p.MatchRound(context.Background(), round(t, tt.utterance, tt.sess))
				require.NoError(t, err)
				require.NotNil(t, m)
				assert.NoError(t, m.validate())
				assert.Equal(t, tt.want, m.SkillID+":"+m.IntentName)
				assert.Equal(t, tt.after, m.After != nil, "a word after the stop")
				assert.LessOrEqual(t, asked, 1)
			})
		})
	}
	_, err := NewStop(StopConfig{Bus: bus.New(bus.Options{}), Vocab: map[string][]string{"en": {"stop"}},
		Cancel: map[string][]string{"en": {"cancel"}}})
	assert.ErrorContains(t, err, "no stop phrase")
}

func TestStopUpdatedSession_STOP03_STOP05(t *testing.T) {
	inBubble(t, func(t *testing.T, b *bus.Bus) {
		p, err := NewStop(StopConfig{Bus: b})
		require.NoError(t, err)
		start := time.Now()
		m, err := p.MatchRound(context.Background(), round(t, "stop", map[string]any{
			"active_handlers":   handlersList("a", 9.0, "b", 5.0),
			"converse_handlers": handlersList("a", 9.0),
			"response_mode":     map[string]any{"skill_id": "a", "expires_at": 1e12}}))
		require.NoError(t, err)
		assert.Equal(t, DefaultPollWindow, time.Since(start), "silence waits out the whole window")
		assert.Equal(t, map[string]any{"active_handlers": handlersList("b", 5.0), "converse_handlers": handlersList("a", 9.0)},
			m.UpdatedSession, "the target leaves active_handlers and its response mode is cleared; converse_handlers stays (CONV-01)")

		g, err := p.MatchRound(context.Background(), round(t, "stop everything", map[string]any{
			"active_handlers": handlersList("a", 9.0), "converse_handlers": handlersList("a", 9.0),
			"response_mode": map[string]any{"skill_id": "a", "expires_at": 1e12}}))
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"active_handlers": []any{}, "converse_handlers": []any{}}, g.UpdatedSession, "STOP-05")
	})
}

func TestStopPingClosesEarly_STOP03(t *testing.T) {
	inBubble(t, func(t *testing.T, b *bus.Bus) {
		answer(t, b, TopicStopPing, TopicStopPong, pongs(map[string]any{"skill_id": "a", "can_handle": false},
			map[string]any{"skill_id": "b", "can_handle": true}))
		p, err := NewStop(StopConfig{Bus: b})
		require.NoError(t, err)
		start := time.Now()
		m, err := p.MatchRound(context.Background(), round(t, "stop", map[string]any{"active_handlers": handlersList("a", 9.0, "b", 5.0)}))
		require.NoError(t, err)
		assert.Equal(t, "b", m.SkillID)
		assert.Zero(t, time.Since(start), "every active skill answered: no wait")
	})
}

func TestGlobalStopEmitsOvosStop_STOP06(t *testing.T) {
	inBubble(t, func(t *testing.T, b *bus.Bus) {
		got := make(chan bus.Message, 1)
		sub, err := b.Subscribe(TopicStop, func(_ context.Context, m bus.Message) { got <- m })
		require.NoError(t, err)
		defer sub.Close()
		p, err := NewStop(StopConfig{Bus: b})
		require.NoError(t, err)
		d := bus.NewMessage("stop:global_stop", nil)
		d.Context[bus.KeyDestination] = "tester"
		d.Context[bus.KeySession] = map[string]any{"session_id": "k"}
		_, err = p.HandleIntent(context.Background(), Dispatch{Message: d, SkillID: "stop", IntentName: "global_stop"})
		require.NoError(t, err)
		m := <-got
		assert.Equal(t, map[string]any{"session_id": "k"}, m.Context[bus.KeySession], "for that session only")
		assert.NotContains(t, m.Context, bus.KeyDestination, "a broadcast")
		_, err = p.HandleIntent(context.Background(), Dispatch{Message: d, SkillID: "stop", IntentName: "other"})
		assert.Error(t, err)
	})
}

func TestConverse_CONV06(t *testing.T) {
	future, past := 1e12, 1.0
	handlers := handlersList("news", 5.0, "music", 9.0)
	tests := []struct {
		name   string
		sess   map[string]any
		pongs  []map[string]any
		cfg    func(*ConverseConfig)
		want   string
		pinged bool
	}{
		{"nobody active: no poll", nil, nil, nil, "", false},
		{"a live listed holder takes it, no poll (CONV-06.1)", map[string]any{"converse_handlers": handlers,
			"response_mode": map[string]any{"skill_id": "news", "expires_at": future}}, nil, nil, "news:response", false},
		{"an expired holder is ignored (CONV-06.2)", map[string]any{"converse_handlers": handlers,
			"response_mode": map[string]any{"skill_id": "news", "expires_at": past}}, nil, nil, "", true},
		{"an unlisted holder is ignored (CONV-06.2)", map[string]any{"converse_handlers": handlersList("music", 9.0),
			"response_mode": map[string]any{"skill_id": "news", "expires_at": future}}, nil, nil, "", true},
		{"first claimer in recency order, not the most recent (CONV-06.5)", map[string]any{"converse_handlers": handlers},
			[]map[string]any{{"skill_id": "news", "can_handle": true}, {"skill_id": "music", "can_handle": false}}, nil, "news:converse", true},
		{"recency order beats arrival order (CONV-06.5)", map[string]any{"converse_handlers": handlers},
			[]map[string]any{{"skill_id": "news", "can_handle": true}, {"skill_id": "music", "can_handle": true}}, nil, "music:converse", true},
		{"only listed skills may answer (CONV-06.3)", map[string]any{"converse_handlers": handlersList("music", 9.0)},
			[]map[string]any{{"skill_id": "news", "can_handle": true}}, nil, "", true},
		{"blacklisted skills are not polled", map[string]any{"converse_handlers": handlers, "blacklisted_skills": []any{"news", "music"}},
			nil, nil, "", false},
		{"ineligible skills are not waited for", map[string]any{"converse_handlers": handlers}, nil,
			func(c *ConverseConfig) { c.Eligible = func(string) bool { return false } }, "", false},
		{"TTL prunes before the poll (CONV-04)", map[string]any{"converse_handlers": handlersList("old", 1.0)}, nil,
			func(c *ConverseConfig) { c.TTL = time.Minute }, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T, b *bus.Bus) {
				a := answer(t, b, TopicConversePing, TopicConversePong, pongs(tt.pongs...))
				cfg := ConverseConfig{Bus: b, Now: func() time.Time { return time.Unix(100000, 0) }, TTL: -1}
				if tt.cfg != nil {
					tt.cfg(&cfg)
				}
				p, err := NewConverse(cfg)
				require.NoError(t, err)
				m, err := p.MatchRound(context.Background(), round(t, "next one", tt.sess))
				require.NoError(t, err)
				got := ""
				if m != nil {
					got = m.SkillID + ":" + m.IntentName
					assert.NoError(t, m.validate())
					assert.Empty(t, m.Slots)
				}
				assert.Equal(t, tt.want, got)
				assert.Equal(t, tt.pinged, a.count() == 1, "pinged")
				if a.count() == 1 {
					assert.Equal(t, map[string]any{"utterances": []any{"next one"}, "lang": "en-US"}, a.pings[0].Data)
					assert.Equal(t, "tester", a.pings[0].Context[bus.KeyDestination], "reply-derived from the entry")
				}
			})
		})
	}
}

func TestConverseDetails_CONV05_CONV07(t *testing.T) {
	inBubble(t, func(t *testing.T, b *bus.Bus) {
		answer(t, b, TopicConversePing, TopicConversePong, func(m bus.Message) []bus.Message {
			other := m.Reply(TopicConversePong, map[string]any{"skill_id": "news", "can_handle": true})
			other.Context[bus.KeyUtteranceID] = "another-round"
			other.Context[bus.KeySkillID] = "news"
			_ = b.Publish(context.Background(), other) // PIPE-02: another round's answer is ignored
			return pongs(map[string]any{"skill_id": "music", "can_handle": false, "error_code": "done"},
				map[string]any{"skill_id": "news", "can_handle": true})(m)
		})
		p, err := NewConverse(ConverseConfig{Bus: b, TTL: -1})
		require.NoError(t, err)
		start := time.Now()
		m, err := p.MatchRound(context.Background(), round(t, "next", map[string]any{"converse_handlers": handlersList("music", 9.0, "news", 5.0)}))
		require.NoError(t, err)
		assert.Equal(t, "news", m.SkillID)
		assert.Zero(t, time.Since(start), "every candidate answered: the window closes at once")
		assert.Equal(t, map[string]any{"converse_handlers": handlersList("news", 5.0)}, m.UpdatedSession,
			"error_code done removes the skill through the claiming match (CONV-07)")

		r := round(t, "yes", map[string]any{"converse_handlers": handlersList("music", 9.0),
			"response_mode": map[string]any{"skill_id": "music", "expires_at": 1e12}, "x": "kept"})
		m, err = p.MatchRound(context.Background(), r)
		require.NoError(t, err)
		assert.Equal(t, "response", m.IntentName)
		assert.Equal(t, "yes", m.Utterance)
		assert.NotContains(t, m.UpdatedSession, "response_mode", "single-shot (CONV-05)")
		assert.Equal(t, "kept", m.UpdatedSession["x"])
	})
}

func TestConverseActiveList_CONV09(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newRig(t, Config{Plugins: []Plugin{hi()}, Now: func() time.Time { return now }, ConverseTTL: time.Minute})
	q := bus.NewMessage(TopicConverseActiveList, nil)
	q.Context[bus.KeySession] = map[string]any{"session_id": "k",
		"converse_handlers": handlersList("fresh", 990.0, "stale", 100.0, "holder", 50.0),
		"response_mode":     map[string]any{"skill_id": "holder", "expires_at": 2000.0}}
	require.NoError(t, r.bus.Publish(context.Background(), q))
	got := r.rec.waitFor(t, func(m bus.Message) bool { return m.Type == TopicConverseActiveList+".response" }, 1)
	assert.Equal(t, map[string]any{"converse_handlers": handlersList("fresh", 990.0, "holder", 50.0)}, got[0].Data,
		"pruned by TTL, never the live response-mode holder (CONV-03, CONV-04)")
}

func fallbackRegistry(t *testing.T, b *bus.Bus, regs ...[]any) *Fallbacks {
	t.Helper()
	f, err := NewFallbacks(FallbackConfig{Bus: b})
	require.NoError(t, err)
	for _, r := range regs {
		m := bus.NewMessage(TopicFallbackRegister, map[string]any{"skill_id": r[0], "priority": r[1]})
		m.Context[bus.KeySkillID] = r[0]
		if len(r) > 2 {
			m.Context[bus.KeySkillID] = r[2] // a mismatch
		}
		f.Receive(context.Background(), m)
	}
	return f
}

func TestFallbackRegistry_FALLBACK1(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	f := fallbackRegistry(t, b, []any{"wiki", int64(10)}, []any{"spoof", int64(1), "evil"}, []any{"bad", 2.5}, []any{"chat", int64(90)})
	assert.Equal(t, map[string]int{"wiki": 10, "chat": 90}, f.registered("default"),
		"a context.skill_id mismatch and a non-integer priority are not indexed (§3.1)")

	scoped := bus.NewMessage(TopicFallbackRegister, map[string]any{"skill_id": "local", "priority": int64(20)})
	scoped.Context[bus.KeySkillID] = "local"
	scoped.Context[bus.KeySession] = map[string]any{"session_id": "kiosk"}
	f.Receive(context.Background(), scoped)
	assert.NotContains(t, f.registered("default"), "local")
	assert.Contains(t, f.registered("kiosk"), "local", "session-scoped registration extends that session's pool (§3.4)")
	assert.Contains(t, f.registered("kiosk"), "wiki", "every session inherits default")

	dereg := bus.NewMessage(TopicFallbackDeregister, map[string]any{"skill_id": "local"})
	dereg.Context[bus.KeySkillID] = "local"
	f.Receive(context.Background(), dereg)
	assert.Contains(t, f.registered("kiosk"), "local", "a default-scoped deregister leaves session entries alone (§3.2)")
}

func TestFallbackPool_FALLBACK1_5(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	f := fallbackRegistry(t, b, []any{"z", int64(10)}, []any{"a", int64(10)}, []any{"m", int64(60)}, []any{"low", int64(95)}, []any{"neg", int64(-5)}, []any{"unknown", int64(UnknownPriority)})
	stages := f.DefaultStages()
	reg := f.registered("default")
	s, _, _ := session.Parse(map[string]any{"fallback_handlers": []any{"m", "z", "ghost"}, "blacklisted_skills": []any{"low"}})
	assert.Equal(t, []string{"z", "neg", "a"}, stages[0].pool(s, reg),
		"preference first, then priority, ties by skill_id; the range drops m; the high stage is open below")
	assert.Equal(t, []string{"m"}, stages[1].pool(s, reg))
	assert.Empty(t, stages[2].pool(s, reg), "blacklisted skills are removed")
	assert.Equal(t, []string{"low"}, stages[2].pool(session.Empty(), reg))
	assert.Equal(t, FallbackUnknown, stages[3].ID())
	assert.Equal(t, []string{"unknown"}, stages[3].pool(session.Empty(), reg), "the last stage is open above")
	assert.Equal(t, []string{"neg", "a", "z"}, stages[0].pool(session.Empty(), reg), "equal priorities: ascending skill_id")
	_, err := f.Stage("x", intp(5), intp(1))
	assert.Error(t, err)
}

func intp(v int) *int { return &v }

func TestFallbackSelection_FALLBACK1_6(t *testing.T) {
	inBubble(t, func(t *testing.T, b *bus.Bus) {
		f := fallbackRegistry(t, b, []any{"first", int64(1)}, []any{"second", int64(2)}, []any{"third", int64(3)})
		a := answer(t, b, TopicFallbackPing, TopicFallbackPong, pongs(
			map[string]any{"skill_id": "third", "can_handle": true, "utterance": "x"},
			map[string]any{"skill_id": "second", "can_handle": true, "utterance": "x"},
			map[string]any{"skill_id": "first", "can_handle": false, "utterance": "x"}))
		st, err := f.Stage("fallback", nil, nil)
		require.NoError(t, err)
		start := time.Now()
		m, err := st.MatchRound(context.Background(), round(t, "what is love", nil))
		require.NoError(t, err)
		assert.Equal(t, "second:fallback", m.SkillID+":"+m.IntentName, "first willing skill in pool order, not arrival order")
		assert.Zero(t, time.Since(start), "decided before the window closed")
		assert.Equal(t, 1, a.count(), "one ping per round")
		assert.NoError(t, m.validate())

		empty, err := f.Stage("none", intp(50), intp(60))
		require.NoError(t, err)
		m, err = empty.MatchRound(context.Background(), round(t, "x", nil))
		require.NoError(t, err)
		assert.Nil(t, m)
		assert.Equal(t, 1, a.count(), "an empty pool returns at once, no ping")
	})
}

func TestCircuitBreaker_PIPE10(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bad := &scripted{id: "bad", err: errors.New("engine down")}
		good := &scripted{id: "good", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}
		r := newRig(t, Config{Defaults: session.Defaults{Lang: "en-US", Pipeline: []string{"bad", "good"}},
			Plugins: []Plugin{bad, good}, BreakerThreshold: 3, BreakerCooldown: time.Minute})
		say := func() {
			r.utter(t, hello(), nil)
			r.rec.waitHandled(t, 1)
		}
		calls := func() int { bad.mu.Lock(); defer bad.mu.Unlock(); return bad.calls }
		for i := 0; i < 3; i++ {
			say()
		}
		assert.Equal(t, 3, calls())
		say()
		assert.Equal(t, 3, calls(), "dropped after 3 consecutive failures")
		time.Sleep(time.Minute)
		say()
		assert.Equal(t, 4, calls(), "one trial after the cool-down")
		say()
		assert.Equal(t, 4, calls(), "the failed trial drops it again")
		bad.mu.Lock()
		bad.err = nil
		bad.mu.Unlock()
		time.Sleep(time.Minute)
		say()
		say()
		assert.Equal(t, 6, calls(), "a successful trial closes the breaker")
		assert.Equal(t, 8, len(r.rec.matching(func(m bus.Message) bool { return m.Type == "s:i" })), "every utterance still dispatched")
	})
}

func TestLateMatchIgnoredForever_PIPE11(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := &scripted{id: "slow", delay: 5 * time.Second, ignoreCtx: true,
			match: &Match{SkillID: "late", IntentName: "x", Slots: map[string]string{}, UpdatedSession: map[string]any{"poison": true}}}
		good := &scripted{id: "good", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}
		r := newRig(t, Config{Defaults: session.Defaults{Lang: "en-US", Pipeline: []string{"slow", "good"}},
			Plugins: []Plugin{slow, good}, MatchTimeout: time.Second})
		start := time.Now()
		r.utter(t, hello(), nil)
		msgs := r.rec.waitHandled(t, 1)
		assert.Equal(t, time.Second, time.Since(start), "the pipeline moved on at the match timeout")
		assert.Equal(t, "s:i", msgs[2].Type)
		time.Sleep(10 * time.Second) // the late answer arrives now
		synctest.Wait()
		assert.Empty(t, r.rec.matching(func(m bus.Message) bool { return m.Type == "late:x" }), "no dispatch of a late answer")
		_, poisoned := r.o.DefaultSession().Get("poison")
		assert.False(t, poisoned, "no commit of a late answer's updated_session")
	})
}

// Says tells a console which lines the plugin takes as a stop (STOP-02).
func TestStopSays(t *testing.T) {
	s, err := NewStop(StopConfig{Bus: bus.New(bus.Options{})})
	require.NoError(t, err)
	for _, tt := range []struct {
		text, lang string
		want       bool
	}{
		{"stop", "en-US", true}, {"Never mind!", "en-us", true}, {"stop everything", "en", true},
		{"stop the timer", "en-US", false}, {"stop", "pt-PT", false}, {"", "en-US", false},
		{"cancel please", "en-US", true}, {"Please cancel.", "en-US", true}, {"cancel the timer please", "en-US", false},
	} {
		assert.Equal(t, tt.want, s.Says(tt.text, tt.lang), "%q in %s", tt.text, tt.lang)
	}
}
