package hub

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
)

// memHost keeps the proxies Remote adds, by bus id.
type memHost struct {
	mu     sync.Mutex
	skills map[string]skill.Skill
}

func (h *memHost) Add(s skill.Skill) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.skills[s.Manifest().BusID()] = s
	return nil
}

func (h *memHost) Remove(_ context.Context, id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.skills, id)
	return nil
}

func (h *memHost) Register(context.Context) error               { return nil }
func (h *memHost) Proactive(context.Context, store.Timer) error { return nil }

func (h *memHost) get(t *testing.T, busID string) skill.Skill {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.skills[busID]
	require.True(t, ok, "proxy %s on the host", busID)
	return s
}

// testCatalog has the fact and trivia skills as jibohub advertises them.
func testCatalog() *wire.Catalog {
	return &wire.Catalog{Skills: []wire.CatalogSkill{
		{ID: "openjibo/fact", Name: "Fun facts", Version: "1.0.0",
			Config: protocol.ManifestSkillConfig{ID: "openjibo/fact", Intents: []protocol.ManifestIntent{{Name: "fun_fact"}}},
			Locale: map[string]map[string]string{"en-US": {"fun_fact.intent": "tell me a fun fact\n"}}},
		{ID: "openjibo/trivia", Name: "Trivia", Version: "1.0.0",
			Config: protocol.ManifestSkillConfig{ID: "openjibo/trivia", Intents: []protocol.ManifestIntent{{Name: "play_trivia"}}},
			Locale: map[string]map[string]string{"en-US": {"play_trivia.intent": "play trivia\n"}}},
	}}
}

// newTestRemote is a Remote on c whose host holds the catalog's proxies.
func newTestRemote(t *testing.T, c *Client) (*Remote, *memHost) {
	t.Helper()
	host := &memHost{skills: map[string]skill.Skill{}}
	r, err := NewRemote(RemoteConfig{Client: c, Host: host, Logger: quiet})
	require.NoError(t, err)
	require.NoError(t, r.Apply(context.Background(), testCatalog()))
	return r, host
}

// launch is the LISTEN_LAUNCH the host sends a proxy for a dispatch with
// these slots.
func launch(skillID, intentName string, slots map[string]string) *protocol.Request {
	nlu := protocol.NLUFromSlots(intentName, slots, nil)
	return protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{Lang: "en-US"}, Skill: protocol.Skill(skillID)},
		nlu, protocol.ASRResult{Text: "tell me something cool", Confidence: 1}, nil)
}

// A successful remote fallback: the hub understands the CLIENT_ASR text
// as a cloud skill's intent; the stage claims the utterance for that
// skill's proxy with the open transaction, and the proxy reads the
// skill's action from that same transaction (the hub is asked once).
// A hub_transaction slot naming no handed-over transaction is refused.
func TestFallbackMatchContinuesTheTransaction(t *testing.T) {
	turns := make(chan []*protocol.HubRequest, 8)
	h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
		for {
			msgs := readTurn(t, c, protocol.TypeClientASR)
			if len(msgs) == 0 {
				return
			}
			turns <- msgs
			answer(t, c, msgs[0].TransID, "openjibo/fact", sayAction)
		}
	})
	states := make(chan LinkState, 64)
	c := newTestClient(t, h, Persistent, wire.CBOR, states)
	waitState(t, states, Up)
	r, host := newTestRemote(t, c)
	f := r.Fallback()
	require.True(t, f.Available())

	m, err := f.Match(context.Background(), []string{"tell me something cool"}, "en-US", session.Session{})
	require.NoError(t, err)
	require.NotNil(t, m, "the hub's match is the stage's")
	assert.Equal(t, "openjibo.fact", m.SkillID)
	assert.Equal(t, "fun_fact", m.IntentName)
	assert.Equal(t, "tell me something cool", m.Utterance)
	tid := m.Slots[SlotTransaction]
	require.NotEmpty(t, tid)
	sent := <-turns
	require.Len(t, sent, 3)
	assert.Equal(t, protocol.TypeClientASR, sent[2].Type)
	assert.Equal(t, "tell me something cool", sent[2].ClientASR.Text)
	assert.Equal(t, tid, sent[0].TransID)

	proxy := host.get(t, "openjibo.fact")
	resp, err := proxy.Handle(context.Background(), launch("openjibo.fact", m.IntentName, m.Slots))
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	assert.JSONEq(t, sayAction, string(resp.Action.Action))
	assert.Equal(t, "openjibo.fact", resp.Action.Skill.Name(), "the action is the proxy's")
	assert.Empty(t, turns, "the proxy continued the transaction instead of asking again")

	for _, tt := range []struct{ name, slot string }{
		{"forged", "tid-00000000-0000-4000-8000-000000000000"},
		{"already claimed", tid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := proxy.Handle(context.Background(), launch("openjibo.fact", "fun_fact", map[string]string{SlotTransaction: tt.slot}))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Contains(t, resp.Error.Message, "no open transaction of this robot waits to be claimed")
			assert.Contains(t, resp.Error.Message, tt.slot)
			assert.Empty(t, turns, "nothing was sent to the hub")
		})
	}
}

// RemoteSkill on its own: what the hub does (or cannot do) becomes the
// proxy's answer to the host.
func TestRemoteSkillAnswers(t *testing.T) {
	yes := true
	tests := []struct {
		name  string
		reply func(tid string) []*protocol.HubResponse
		check func(t *testing.T, r *Remote, resp *protocol.Response)
	}{
		{"hub ERROR: a skill ERROR naming the code", func(tid string) []*protocol.HubResponse {
			return []*protocol.HubResponse{protocol.NewHubError(protocol.HubErrorTimeoutSkill, "skill openjibo/fact took too long",
				protocol.WithTransID(tid))}
		}, func(t *testing.T, _ *Remote, resp *protocol.Response) {
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Equal(t, "hub: skill openjibo/fact took too long (TIMEOUT_SKILL)", resp.Error.Message)
			assert.JSONEq(t, `"TIMEOUT_SKILL"`, string(resp.Error.Extra["code"]))
		}},
		{"hub redirect to a skill on the robot: a skill-form redirect with the memo", func(tid string) []*protocol.HubResponse {
			return []*protocol.HubResponse{protocol.NewHubRedirect(protocol.HubRedirectData{
				Match: &protocol.MatchData{SkillID: "openjibo/clock", OnRobot: &yes}, Memo: json.RawMessage(`{"why":"time"}`)},
				protocol.WithTransID(tid))}
		}, func(t *testing.T, _ *Remote, resp *protocol.Response) {
			require.Equal(t, protocol.TypeSkillRedirect, resp.Type)
			assert.Equal(t, "openjibo/clock", resp.Redirect.SkillID)
			assert.JSONEq(t, `{"why":"time"}`, string(resp.Redirect.Memo))
		}},
		{"hub redirect to another cloud skill: its transaction is handed over", func(tid string) []*protocol.HubResponse {
			return []*protocol.HubResponse{protocol.NewHubRedirect(protocol.HubRedirectData{
				Match: &protocol.MatchData{SkillID: "openjibo/trivia"}}, protocol.WithTransID(tid))}
		}, func(t *testing.T, r *Remote, resp *protocol.Response) {
			require.Equal(t, protocol.TypeSkillRedirect, resp.Type)
			assert.Equal(t, "openjibo/trivia", resp.Redirect.SkillID)
			var memo map[string]string
			require.NoError(t, json.Unmarshal(resp.Redirect.Memo, &memo))
			tx, err := r.client.Claim(memo[SlotTransaction])
			require.NoError(t, err, "the target's proxy can claim the transaction")
			tx.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
				for {
					msgs := readTurn(t, c, protocol.TypeClientNLU)
					if len(msgs) == 0 {
						return
					}
					for _, m := range tt.reply(msgs[0].TransID) {
						if c.WriteResponse(context.Background(), m) != nil {
							return
						}
					}
				}
			})
			states := make(chan LinkState, 64)
			c := newTestClient(t, h, Persistent, wire.JSON, states)
			waitState(t, states, Up)
			r, host := newTestRemote(t, c)
			resp, err := host.get(t, "openjibo.fact").Handle(context.Background(), launch("openjibo.fact", "fun_fact", nil))
			require.NoError(t, err)
			tt.check(t, r, resp)
		})
	}
}

// Offline: the proxy answers a launch with the offline MIM's speech, a
// final action; an answer turn keeps the conversation (final false).
func TestRemoteSkillOffline(t *testing.T) {
	h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {})
	h.srv.Close() // nothing listens: the hub is unreachable
	states := make(chan LinkState, 64)
	c := newTestClient(t, h, Persistent, wire.CBOR, states)
	waitState(t, states, Down)
	_, host := newTestRemote(t, c)
	proxy := host.get(t, "openjibo.fact")

	resp, err := proxy.Handle(context.Background(), launch("openjibo.fact", "fun_fact", nil))
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	assert.Contains(t, string(resp.Action.Action), "I can't reach the cloud right now")
	require.NotNil(t, resp.Action.Final)
	assert.True(t, *resp.Action.Final, "a launch simply ends")
	assert.NoError(t, resp.Validate())

	sess := &protocol.Session{ID: "g-1", NodeID: 2, Data: json.RawMessage(`{"next":1}`)}
	id := "openjibo.fact"
	upd := protocol.NewListenUpdate(protocol.Context{General: protocol.GeneralData{Lang: "en-US"},
		Skill: protocol.SkillData{ID: &id, Session: sess}}, protocol.NLUResult{}, protocol.ASRResult{Text: "seven", Confidence: 1})
	resp, err = proxy.Handle(context.Background(), upd)
	require.NoError(t, err)
	assert.Contains(t, string(resp.Action.Action), "I can't reach the cloud right now")
	require.NotNil(t, resp.Action.Final)
	assert.False(t, *resp.Action.Final, "the conversation is kept for when the hub is back")
	require.NotNil(t, resp.Action.Skill.Session)
	assert.JSONEq(t, `{"next":1}`, string(resp.Action.Skill.Session.Data), "the stored session is handed back unchanged")
}
