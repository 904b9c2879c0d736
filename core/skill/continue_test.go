package skill

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/jcp"
)

// entrySkill says hello with a Skill Entry in its analytics on every
// turn, as a careless skill might, and leaves a session whose id is the
// one it got with "+1" appended ("new" on a launch), not final.
func entrySkill(t *testing.T, id string) *fakeSkill {
	return &fakeSkill{id: id, handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		next := "new"
		if s := req.Data.Skill.Session; s != nil {
			next = s.ID + "+1"
		}
		a, err := ActionJSON(jcp.NewAction(jcp.Say("hi")))
		require.NoError(t, err)
		launch := req.Type == protocol.TypeListenLaunch
		ev, err := protocol.SkillEntryProperties{InitialIntent: "n/a", WasHeyJiboLaunch: launch, UserInitiated: launch}.Event()
		require.NoError(t, err)
		resp := protocol.NewSkillAction(req, protocol.SkillData{ID: req.Data.Skill.ID, Session: &protocol.Session{ID: next}}, a, false)
		resp.Action.Analytics = protocol.Analytics{id: {ev}}
		return resp, nil
	}}
}

// A turn that continues a skill's conversation (Dispatch.Continues: the
// hub routed it to the running cloud skill) is no launch, unlike a launch
// of the same skill: the skill gets LISTEN_UPDATE with the session the
// host kept, the run record says LISTEN_UPDATE, its Skill Entry's
// initial_intent is the answer turn's, and the skill launched next still
// names the skill launched before it as last_skill.
func TestContinuationIsNoLaunch(t *testing.T) {
	tests := []struct {
		name          string
		intent        string
		continues     bool
		wantType      string
		wantSent      string // id of the session the skill got; "" for none
		wantInitial   string // the quiz's Skill Entry initial_intent
		wantNextLast  string // last_skill of the launch after it
		wantKeptAfter string
	}{
		{"launch", "play_quiz", false, protocol.TypeListenLaunch, "", "play_quiz", "t.quiz", "new"},
		{"continuation", "hub_match", true, protocol.TypeListenUpdate, "q-1", IntentResponse, "t.a", "q-1+1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New(bus.Options{})
			t.Cleanup(func() { _ = b.Close(context.Background()) })
			ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: &voice{}})
			require.NoError(t, err)
			runs, kept := invoke.NewLog(16), NewMemoryState()
			h, err := NewHost(HostConfig{Bus: b, Body: ex, Records: runs, Conversations: kept})
			require.NoError(t, err)
			t.Cleanup(func() { _ = h.Close(context.Background()) })
			quiz := entrySkill(t, "t.quiz")
			for _, s := range []Skill{entrySkill(t, "t.a"), quiz, entrySkill(t, "t.next")} {
				require.NoError(t, h.Add(s))
			}
			got := make(chan bus.Message, 8)
			_, err = b.Subscribe(TopicAnalytics, func(_ context.Context, m bus.Message) { got <- m })
			require.NoError(t, err)
			// The quiz's conversation, kept after its question's answer
			// could not reach the hub (final false, no question waiting).
			id := "t.quiz"
			require.NoError(t, kept.PutConversation(store.Conversation{BusSession: session.DefaultID, SkillID: id,
				Skill: protocol.SkillData{ID: &id, Session: &protocol.Session{ID: "q-1"}}, Lang: "en-US", UpdatedAt: time.Now()}))

			sess := defaultSession(t)
			_, err = h.Invoke(context.Background(), withSession(dispatch("t.a", "hello_a"), sess, "hello"))
			require.NoError(t, err)
			d := withSession(dispatch("t.quiz", tt.intent), sess, "blue")
			d.Slots = map[string]string{"hub_transaction": "tid-1"}
			d.Continues = tt.continues
			_, err = h.Invoke(context.Background(), d)
			require.NoError(t, err)
			_, err = h.Invoke(context.Background(), withSession(dispatch("t.next", "hello_next"), sess, "hi"))
			require.NoError(t, err)

			// What the skill got.
			require.Len(t, quiz.reqs, 1)
			req := quiz.reqs[0]
			assert.Equal(t, tt.wantType, req.Type)
			assert.NoError(t, req.Validate())
			assert.Equal(t, "t.quiz", req.Data.Skill.Name())
			if tt.wantSent == "" {
				assert.Nil(t, req.Data.Skill.Session, "a launch starts afresh")
			} else if assert.NotNil(t, req.Data.Skill.Session) {
				assert.Equal(t, tt.wantSent, req.Data.Skill.Session.ID, "the kept session goes with it")
			}
			assert.Equal(t, tt.intent, req.Data.Result.NLU.IntentName())
			assert.Equal(t, "tid-1", req.Data.Result.NLU.Entities["hub_transaction"], "the slots go as entities either way")
			assert.Equal(t, "blue", req.Data.Result.ASR.Text)

			// What a technician sees in the run records.
			recs := runs.List(invoke.Filter{Skill: "t/quiz"})
			require.Len(t, recs, 1)
			assert.Equal(t, tt.wantType, recs[0].RequestType)
			assert.Equal(t, tt.intent, recs[0].Intent)
			assert.Equal(t, invoke.OutcomeOK, recs[0].Outcome)

			// What analytics see.
			entries := map[string]protocol.SkillEntryProperties{}
			for range 3 {
				m := <-got
				var a protocol.Analytics
				raw, err := json.Marshal(m.Data["analytics"])
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(raw, &a))
				skillID := m.DataString("skill_id")
				p, err := a[skillID][0].SkillEntry()
				require.NoError(t, err)
				entries[skillID] = p
			}
			assert.Equal(t, tt.wantInitial, entries["t.quiz"].InitialIntent)
			assert.Equal(t, "t.a", entries["t.quiz"].LastSkill, "launched before it either way")
			assert.Equal(t, tt.continues, !entries["t.quiz"].WasHeyJiboLaunch, "the skill's own fields are kept")
			assert.Equal(t, "hello_next", entries["t.next"].InitialIntent)
			assert.Equal(t, tt.wantNextLast, entries["t.next"].LastSkill, "only a launch is the last skill")

			// The conversation goes on with the skill's new session.
			conv, ok, err := kept.Conversation(session.DefaultID, "t.quiz")
			require.NoError(t, err)
			require.True(t, ok)
			require.NotNil(t, conv.Skill.Session)
			assert.Equal(t, tt.wantKeptAfter, conv.Skill.Session.ID)
		})
	}
}
