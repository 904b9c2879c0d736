package hub

import (
	"context"
	"encoding/json"
	"sync/atomic"
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

// dropMidTurn is a hub that reads the robot's part of each transaction
// (up to CLIENT_NLU or CLIENT_ASR, or a TRIGGER's CONTEXT), sends SOS and
// then vanishes: its TCP connection closes with no close frame, as when
// the hub is killed, so the robot's read fails with an error wrapping
// io.EOF. The per-turn link's probe closes cleanly and is let go.
func dropMidTurn(h *atomic.Pointer[fakeHub]) func(t *testing.T, c *wire.Conn) {
	return func(t *testing.T, c *wire.Conn) {
		trigger := false
		for {
			r, err := c.ReadRequest(context.Background())
			if err != nil {
				return // the probe, or the robot went away
			}
			switch {
			case r.Type == protocol.TypeTrigger:
				trigger = true
				continue
			case r.Type == protocol.TypeClientNLU, r.Type == protocol.TypeClientASR,
				r.Type == protocol.TypeContext && trigger:
			default:
				continue
			}
			_ = c.WriteResponse(context.Background(), protocol.NewSpeechMark(protocol.TypeSOS, protocol.WithTransID(r.TransID)))
			h.Load().dropTCP(t, c)
			return
		}
	}
}

// A hub that drops the TCP connection mid-transaction (no close frame:
// the read error wraps io.EOF) fails the transaction with ErrLinkDown,
// never a clean end, on both kinds of link; a RemoteSkill answers with
// the offline MIM (an answer turn keeping its session and asking for the
// answer again), the remote fallback declines without failing, and a
// TRIGGER fails with the drop rather than "nothing eligible".
func TestHubDropsTCPMidTurn(t *testing.T) {
	sess := &protocol.Session{ID: "quiz-1", NodeID: 3, Data: json.RawMessage(`{"asked":"colour"}`)}
	tests := []struct {
		name string
		run  func(t *testing.T, r *Remote, host *memHost)
	}{
		{"transaction", func(t *testing.T, r *Remote, _ *memHost) {
			tx, err := r.client.Transact(context.Background(), launchMsgs()...)
			require.NoError(t, err)
			defer tx.Close()
			first, err := tx.Next(context.Background())
			require.NoError(t, err)
			assert.Equal(t, protocol.TypeSOS, first.Type, "what arrived before the drop is delivered")
			_, err = tx.Next(context.Background())
			require.ErrorIs(t, err, ErrLinkDown)
			assert.False(t, Ended(err), "a drop is not the transaction's end")
			assert.Contains(t, err.Error(), "EOF", "the hub vanished: the read hit the end of the stream")
			assert.Contains(t, err.Error(), tx.ID, "the error names the transaction")
		}},
		{"remote skill launch", func(t *testing.T, _ *Remote, host *memHost) {
			resp, err := host.get(t, "openjibo.fact").Handle(context.Background(), launch("openjibo.fact", "fun_fact", nil))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type, "the offline MIM, not silence")
			assert.Contains(t, string(resp.Action.Action), "can't reach the cloud right now")
			require.NotNil(t, resp.Action.Final)
			assert.True(t, *resp.Action.Final, "a launch simply ends")
			assert.NoError(t, resp.Validate())
		}},
		{"remote skill answer", func(t *testing.T, _ *Remote, host *memHost) {
			id := "openjibo.trivia"
			upd := protocol.NewListenUpdate(protocol.Context{General: protocol.GeneralData{Lang: "en-US"},
				Skill: protocol.SkillData{ID: &id, Session: sess}}, protocol.NLUResult{}, protocol.ASRResult{Text: "blue", Confidence: 1})
			resp, err := host.get(t, "openjibo.trivia").Handle(context.Background(), upd)
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type)
			said := string(resp.Action.Action)
			assert.Contains(t, said, "can't reach the cloud right now")
			assert.Contains(t, said, "your answer", "the answer turn's prompt (OfflineAnswerMIM)")
			assert.Contains(t, said, "again", "it asks for the answer again")
			require.NotNil(t, resp.Action.Final)
			assert.False(t, *resp.Action.Final, "the conversation is kept")
			assert.Equal(t, sess, resp.Action.Skill.Session, "the stored session is handed back unchanged")
			assert.NoError(t, resp.Validate())
		}},
		{"remote fallback", func(t *testing.T, r *Remote, _ *memHost) {
			m, err := r.Fallback().Match(context.Background(), []string{"tell me something cool"}, "en-US", session.Session{})
			assert.NoError(t, err, "an unreachable hub is no failure of the stage")
			assert.Nil(t, m, "the stage declines")
		}},
		{"trigger", func(t *testing.T, r *Remote, _ *memHost) {
			err := r.Trigger(context.Background(), protocol.TriggerNewArrival, "")
			require.ErrorIs(t, err, ErrLinkDown)
			assert.NotErrorIs(t, err, ErrNothingEligible)
		}},
	}
	for _, mode := range []LinkMode{Persistent, PerTurn} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				var hp atomic.Pointer[fakeHub]
				h := newFakeHub(t, dropMidTurn(&hp))
				hp.Store(h)
				states := make(chan LinkState, 64)
				c := newTestClient(t, h, mode, wire.CBOR, states)
				waitState(t, states, Up)
				r, host := newTestRemote(t, c)
				tt.run(t, r, host)
			})
		}
	}
}

// The hub routes an answer said again to the running skill (the remote
// fallback named it in CONTEXT) and vanishes before the skill's action.
// The host dropped the skill's conversation when it launched the proxy
// with the handed-over transaction, so the proxy hands back the session
// CONTEXT carried, in a non-final action speaking the answer turn's
// offline prompt: the conversation survives for the next retry.
func TestHubDropsTCPBeforeAContinuedSkillAnswers(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, mode := range []LinkMode{Persistent, PerTurn} {
		t.Run(string(mode), func(t *testing.T) {
			var hp atomic.Pointer[fakeHub]
			h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
				msgs := readTurn(t, c, protocol.TypeClientASR)
				if len(msgs) < 3 {
					return // the per-turn link's probe
				}
				tid, sk := msgs[0].TransID, msgs[1].Context.Skill
				if !assert.NotNil(t, sk.ID, "CONTEXT names the running skill") {
					return
				}
				launch := false
				nlu := protocol.NLUResult{Entities: map[string]any{}}
				asr := protocol.ASRResult{Text: msgs[2].ClientASR.Text, Confidence: 1}
				_ = c.WriteResponse(context.Background(), protocol.NewListenResult(&nlu, &asr,
					&protocol.MatchData{SkillID: *sk.ID, Launch: &launch}, false, protocol.WithTransID(tid)))
				hp.Load().dropTCP(t, c)
			})
			hp.Store(h)
			states := make(chan LinkState, 64)
			c := newTestClient(t, h, mode, wire.JSON, states)
			waitState(t, states, Up)
			id := "openjibo.trivia"
			sess := &protocol.Session{ID: "t-1", NodeID: 4, Data: json.RawMessage(`{"q":2}`)}
			kept := skill.NewMemoryState()
			require.NoError(t, kept.PutConversation(store.Conversation{BusSession: session.DefaultID, SkillID: id,
				Skill: protocol.SkillData{ID: &id, Session: sess}, UpdatedAt: now.Add(-time.Minute)}))
			host := &memHost{skills: map[string]skill.Skill{}}
			r, err := NewRemote(RemoteConfig{Client: c, Host: host, Conversations: kept, Logger: quiet,
				Now: func() time.Time { return now }})
			require.NoError(t, err)
			require.NoError(t, r.Apply(context.Background(), testCatalog()))

			m, err := r.Fallback().Match(context.Background(), []string{"blue"}, "en-US", session.Session{})
			require.NoError(t, err)
			require.NotNil(t, m)
			require.Equal(t, id, m.SkillID)
			resp, err := host.get(t, id).Handle(context.Background(), launch(id, m.IntentName, m.Slots))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type)
			assert.Contains(t, string(resp.Action.Action), "your answer", "the answer turn's offline prompt")
			require.NotNil(t, resp.Action.Final)
			assert.False(t, *resp.Action.Final, "the conversation goes on")
			assert.Equal(t, id, resp.Action.Skill.Name(), "kept under the proxy's id")
			assert.Equal(t, sess, resp.Action.Skill.Session, "the session CONTEXT carried is handed back")
		})
	}
}
