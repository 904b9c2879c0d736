package hub

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

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
// A hub_transaction slot naming no handed-over transaction is refused,
// and so is an answer (LISTEN_UPDATE) naming one handed to a launch,
// which stays parked for it.
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
	sent := recv(t, turns, "turn at the hub")
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

	// An answer naming the transaction the fallback handed to a launch is
	// refused, and the transaction stays for the launch.
	m, err = f.Match(context.Background(), []string{"tell me something cool"}, "en-US", session.Session{})
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.False(t, m.Continues, "no skill was running: a launch")
	recv(t, turns, "turn at the hub")
	resp, err = proxy.Handle(context.Background(), update("openjibo.fact", m, nil))
	require.NoError(t, err)
	require.Equal(t, protocol.TypeError, resp.Type)
	assert.Contains(t, resp.Error.Message, "an answer can continue only a transaction the hub routed to this skill's conversation")
	resp, err = proxy.Handle(context.Background(), launch("openjibo.fact", m.IntentName, m.Slots))
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type, "still parked for the launch")
	assert.Empty(t, turns, "the hub was asked once")
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

// followUpHub answers CLIENT_ASR turns as jibo.md §1.5 routes them when
// no launch intent matches: a turn whose CONTEXT names a skill and that
// no hot phrase started goes to that skill as LISTEN_UPDATE (here the
// skill answers at once, returning its session with "+1" appended to the
// id); any other turn is no match.
func followUpHub(turns chan<- []*protocol.HubRequest) func(t *testing.T, c *wire.Conn) {
	return func(t *testing.T, c *wire.Conn) {
		ctx := context.Background()
		for {
			msgs := readTurn(t, c, protocol.TypeClientASR)
			if len(msgs) < 3 {
				return
			}
			turns <- msgs
			tid, listen, sk := msgs[0].TransID, msgs[0].Listen, msgs[1].Context.Skill
			asr := protocol.ASRResult{Text: msgs[2].ClientASR.Text, Confidence: 1}
			nlu := protocol.NLUResult{Entities: map[string]any{}, Rules: listen.Rules}
			if sk.ID == nil || listen.Hotphrase {
				_ = c.WriteResponse(ctx, protocol.NewListenResult(&nlu, &asr, nil, true, protocol.WithTransID(tid)))
				continue
			}
			launch := false
			_ = c.WriteResponse(ctx, protocol.NewListenResult(&nlu, &asr, &protocol.MatchData{SkillID: *sk.ID, Launch: &launch},
				false, protocol.WithTransID(tid)))
			next := *sk.Session
			next.ID += "+1"
			a := protocol.NewHubSkillAction(&protocol.SkillActionData{Skill: protocol.SkillData{ID: sk.ID, Session: &next},
				Action: json.RawMessage(sayAction), Final: final(false)}, protocol.WithTransID(tid))
			a.Final = final(true)
			_ = c.WriteResponse(ctx, a)
		}
	}
}

// The remote fallback's CONTEXT names the cloud skill active in the bus
// session (jibo.md §1.3): of the conversations the host keeps for the
// session's proxies, updated within the active window, the newest, as
// {id: catalog id, session} with hotphrase false, plus the rules of a
// question it still waits on. The hub routes the turn to that skill
// (§1.5), the stage claims it for the skill's proxy, and the proxy's
// action carries the skill's new session under the proxy's own id, which
// the host keeps. With no such conversation CONTEXT is {id: null} with
// hotphrase true, as before.
func TestFallbackNamesTheActiveCloudSkill(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	conv := func(busSession, skillID, sessID string, age time.Duration, listen []string) store.Conversation {
		id := skillID
		exp := time.Time{}
		if listen != nil {
			exp = now.Add(time.Minute)
		}
		return store.Conversation{BusSession: busSession, SkillID: skillID, Lang: "en-US", Listen: listen, ExpiresAt: exp,
			Skill:     protocol.SkillData{ID: &id, Session: &protocol.Session{ID: sessID, Data: json.RawMessage(`{"q":2}`)}},
			UpdatedAt: now.Add(-age)}
	}
	tests := []struct {
		name      string
		kept      []store.Conversation
		wantSkill string // "" is CONTEXT skill {id: null}
		wantSess  string
		wantRules []string
	}{
		{"no conversation", nil, "", "", []string{"launch"}},
		{"a cloud skill's conversation", []store.Conversation{
			conv("default", "openjibo.trivia", "t-1", time.Minute, nil),
		}, "openjibo/trivia", "t-1", []string{"launch"}},
		{"the newest of two; a local skill's is not the hub's", []store.Conversation{
			conv("default", "openjibo.fact", "f-1", 3*time.Minute, nil),
			conv("default", "openjibo.trivia", "t-1", 2*time.Minute, nil),
			conv("default", "openjibo.clock", "c-1", time.Second, nil),
		}, "openjibo/trivia", "t-1", []string{"launch"}},
		{"still waiting on its question: its rules too", []store.Conversation{
			conv("default", "openjibo.trivia", "t-1", 0, []string{"openjibo/trivia/answer"}),
		}, "openjibo/trivia", "t-1", []string{"launch", "openjibo/trivia/answer"}},
		{"another bus session's", []store.Conversation{
			conv("kitchen", "openjibo.trivia", "t-1", time.Minute, nil),
		}, "", "", []string{"launch"}},
		{"older than the active window", []store.Conversation{
			conv("default", "openjibo.trivia", "t-1", DefaultActiveWindow+time.Second, nil),
		}, "", "", []string{"launch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turns := make(chan []*protocol.HubRequest, 4)
			h := newFakeHub(t, followUpHub(turns))
			states := make(chan LinkState, 64)
			c := newTestClient(t, h, Persistent, wire.JSON, states)
			waitState(t, states, Up)
			kept := skill.NewMemoryState()
			for _, cv := range tt.kept {
				require.NoError(t, kept.PutConversation(cv))
			}
			host := &memHost{skills: map[string]skill.Skill{}}
			r, err := NewRemote(RemoteConfig{Client: c, Host: host, Conversations: kept, Logger: quiet,
				Now: func() time.Time { return now }})
			require.NoError(t, err)
			require.NoError(t, r.Apply(context.Background(), testCatalog()))

			m, err := r.Fallback().Match(context.Background(), []string{"blue"}, "en-US", session.Session{})
			require.NoError(t, err)
			sent := recv(t, turns, "turn at the hub")
			require.Len(t, sent, 3)
			listen, sk := sent[0].Listen, sent[1].Context.Skill
			assert.Equal(t, tt.wantRules, listen.Rules)
			if tt.wantSkill == "" {
				assert.Nil(t, sk.ID, "CONTEXT skill {id: null}")
				assert.Nil(t, sk.Session)
				assert.True(t, listen.Hotphrase)
				assert.Nil(t, m, "the hub matched nothing")
				return
			}
			require.NotNil(t, sk.ID)
			assert.Equal(t, tt.wantSkill, *sk.ID, "CONTEXT names the skill by its catalog id")
			require.NotNil(t, sk.Session)
			assert.Equal(t, tt.wantSess, sk.Session.ID)
			assert.JSONEq(t, `{"q":2}`, string(sk.Session.Data), "the stored session, as the host kept it")
			assert.False(t, listen.Hotphrase, "a turn for the running skill")

			require.NotNil(t, m, "the hub routed the turn to the running skill")
			busID := strings.ReplaceAll(tt.wantSkill, "/", ".")
			assert.Equal(t, busID, m.SkillID, "claimed for the proxy of the skill the hub named")
			assert.Equal(t, "blue", m.Utterance)
			assert.True(t, m.Continues, "a turn of the skill's conversation, no launch")
			resp, err := host.get(t, busID).Handle(context.Background(), update(busID, m, sk.Session))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type)
			assert.Equal(t, busID, resp.Action.Skill.Name(), "kept by the host under the proxy's id")
			require.NotNil(t, resp.Action.Skill.Session)
			assert.Equal(t, tt.wantSess+"+1", resp.Action.Skill.Session.ID, "the skill's new session comes back")
			assert.Empty(t, turns, "the proxy continued the hub's transaction")
		})
	}
}
