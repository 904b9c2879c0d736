package skill

import (
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/jcp"
)

// askingSkill asks a question on launch and answers the update with what
// it understood; it ships a "duration" rule of its own.
type askingSkill struct {
	fakeSkill
	rules fs.FS
}

func (a *askingSkill) Rules() fs.FS { return a.rules }

func newAskingSkill(t *testing.T, contexts ...string) *askingSkill {
	a := &askingSkill{rules: fstest.MapFS{
		"duration/en-us/duration.intent": {Data: []byte("{amount} minutes\nfor {amount} minutes\n")},
	}}
	a.id = "test.asker"
	a.handle = func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		sess := &protocol.Session{ID: "graph-1", NodeID: 3, Data: json.RawMessage(`{"asked":true}`),
			Trace: []protocol.TraceEntry{{NodeID: 3}}}
		switch req.Type {
		case protocol.TypeListenLaunch:
			act, err := ActionJSON(jcp.NewAction(jcp.Question("For how long?", contexts...)))
			require.NoError(t, err)
			return protocol.NewSkillAction(req, protocol.SkillData{ID: ptr("test.asker"), Session: sess}, act, false), nil
		default:
			act, err := ActionJSON(jcp.NewAction(jcp.Say("Heard " + req.Data.Result.NLU.IntentName())))
			require.NoError(t, err)
			return protocol.NewSkillAction(req, protocol.Skill("test.asker"), act, true), nil
		}
	}
	return a
}

func ptr[T any](v T) *T { return &v }

func defaultSession(t *testing.T) session.Session {
	s, _, err := session.Parse(map[string]any{"session_id": session.DefaultID})
	require.NoError(t, err)
	return s
}

func withSession(d pipeline.Dispatch, s session.Session, utterance string) pipeline.Dispatch {
	d.Session, d.Utterance, d.Slots = s, utterance, map[string]string{}
	return d
}

// TestQuestionPutsSkillInResponseModeAndAnswerIsListenUpdate follows a
// two-turn conversation through the host (jibo.md §2.5, CONV-05, CONV-08).
func TestQuestionPutsSkillInResponseModeAndAnswerIsListenUpdate(t *testing.T) {
	tests := []struct {
		name       string
		contexts   []string
		answer     string
		wantIntent string
		wantSlots  map[string]any
	}{
		{"global yes/no rule", []string{"globals/yes_no"}, "yeah", "yes", map[string]any{}},
		{"skill's own rule with a slot", []string{"test.asker/duration"}, "for five minutes", "duration", map[string]any{"amount": "five"}},
		{"answer outside the rules: intent null", []string{"globals/yes_no"}, "banana bread", "", nil},
		{"silence: intent null, empty asr", []string{"test.asker/duration"}, "", "", nil},
		{"unknown rule matches nothing", []string{"nobody/none"}, "yes", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1_700_000_000, 0)
			a := newAskingSkill(t, tt.contexts...)
			r := newHostRig(t, a)
			r.host.cfg.Now = func() time.Time { return now }
			sess := defaultSession(t)

			up, err := r.host.Invoke(context.Background(), withSession(dispatch("test.asker", "set"), sess, "set a timer"))
			require.NoError(t, err)
			rm, ok := up.ResponseMode()
			require.True(t, ok, "a question puts the skill in response mode (CONV-05)")
			assert.Equal(t, "test.asker", rm.SkillID)
			assert.InDelta(t, float64(now.Add(DefaultListenWindow).Unix()), rm.ExpiresAt, 0.001)

			conv, ok, err := r.host.cfg.Conversations.Conversation(session.DefaultID, "test.asker")
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, tt.contexts, conv.Listen)
			assert.Equal(t, 3, conv.Skill.Session.NodeID, "the skill's session is kept as it sent it")

			_, err = r.host.Invoke(context.Background(), withSession(dispatch("test.asker", IntentResponse), sess, tt.answer))
			require.NoError(t, err)
			require.Len(t, a.reqs, 2)
			upd := a.reqs[1]
			assert.Equal(t, protocol.TypeListenUpdate, upd.Type)
			assert.Equal(t, tt.wantIntent, upd.Data.Result.NLU.IntentName())
			assert.Equal(t, tt.wantSlots, upd.Data.Result.NLU.Entities)
			assert.Equal(t, tt.contexts, upd.Data.Result.NLU.Rules, "the question's contexts are the NLU rules")
			assert.Equal(t, tt.answer, upd.Data.Result.ASR.Text)
			require.NotNil(t, upd.Data.Skill.Session, "the stored session goes back to the skill")
			assert.JSONEq(t, `{"asked":true}`, string(upd.Data.Skill.Session.Data))
			assert.NoError(t, upd.Validate())

			_, ok, err = r.host.cfg.Conversations.Conversation(session.DefaultID, "test.asker")
			require.NoError(t, err)
			assert.False(t, ok, "a final action ends the conversation")
		})
	}
}

func TestAnswerWithoutQuestionFails(t *testing.T) {
	r := newHostRig(t, newAskingSkill(t, "globals/yes_no"))
	_, err := r.host.Invoke(context.Background(), withSession(dispatch("test.asker", IntentResponse), defaultSession(t), "yes"))
	assert.ErrorContains(t, err, "asked no question")
}

func TestStopEndsConversation(t *testing.T) {
	r := newHostRig(t, newAskingSkill(t, "globals/yes_no"))
	sess := defaultSession(t)
	_, err := r.host.Invoke(context.Background(), withSession(dispatch("test.asker", "set"), sess, "set"))
	require.NoError(t, err)
	_, err = r.host.Invoke(context.Background(), withSession(dispatch("test.asker", IntentStop), sess, "stop"))
	require.NoError(t, err)
	_, ok, _ := r.host.cfg.Conversations.Conversation(session.DefaultID, "test.asker")
	assert.False(t, ok, "STOP-07: a stopped skill's question is withdrawn")
}

// TestStopTakingTheRequestBack: a stop said to a question whose own rules
// read it as "cancel" goes to the skill as that answer, which it
// acknowledges; any other stop only stops. Either way the conversation
// ends (STOP-07).
func TestStopTakingTheRequestBack(t *testing.T) {
	tests := []struct {
		name, rule, say string
		expired         bool
		answered        bool
	}{
		{"the rules read it as cancel", "optin/who", "never mind", false, true},
		{"the rules do not read it", "optin/who", "stop", false, false},
		{"rules without a cancel", "globals/yes_no", "never mind", false, false},
		{"the question expired", "optin/who", "never mind", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAskingSkill(t, tt.rule)
			r := newHostRig(t, a)
			sess := defaultSession(t)
			_, err := r.host.Invoke(context.Background(), withSession(dispatch("test.asker", "set"), sess, "set"))
			require.NoError(t, err)
			if tt.expired {
				conv, ok, err := r.host.cfg.Conversations.Conversation(session.DefaultID, "test.asker")
				require.NoError(t, err)
				require.True(t, ok)
				conv.ExpiresAt = time.Now().Add(-time.Second)
				require.NoError(t, r.host.cfg.Conversations.PutConversation(conv))
			}
			up, err := r.host.Invoke(context.Background(), withSession(dispatch("test.asker", IntentStop), sess, tt.say))
			require.NoError(t, err)
			_, asking := up.ResponseMode()
			assert.False(t, asking)
			if tt.answered {
				require.Len(t, a.reqs, 2)
				assert.Equal(t, protocol.TypeListenUpdate, a.reqs[1].Type)
				assert.Equal(t, IntentCancelAnswer, a.reqs[1].Data.Result.NLU.IntentName())
			} else {
				assert.Len(t, a.reqs, 1, "no answer sent")
			}
			_, ok, _ := r.host.cfg.Conversations.Conversation(session.DefaultID, "test.asker")
			assert.False(t, ok, "STOP-07: the question is withdrawn")
		})
	}
}

// TestRestorePutsPendingQuestionBack: after a restart the kept question
// goes back into response mode through ovos.session.sync; an expired one
// is dropped.
func TestRestorePutsPendingQuestionBack(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	mem := NewMemoryState()
	id := "test.asker"
	require.NoError(t, mem.PutConversation(store.Conversation{BusSession: session.DefaultID, SkillID: id,
		Skill: protocol.SkillData{ID: &id}, Listen: []string{"test.asker/duration"}, ExpiresAt: now.Add(10 * time.Second)}))
	require.NoError(t, mem.PutConversation(store.Conversation{BusSession: "other", SkillID: id,
		Skill: protocol.SkillData{ID: &id}, Listen: []string{"test.asker/duration"}, ExpiresAt: now.Add(-time.Second)}))

	b := bus.New(bus.Options{})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: &voice{}})
	require.NoError(t, err)
	h, err := NewHost(HostConfig{Bus: b, Body: ex, Conversations: mem, Now: func() time.Time { return now }})
	require.NoError(t, err)
	require.NoError(t, h.Add(newAskingSkill(t)))
	synced := make(chan bus.Message, 4)
	_, err = b.Subscribe(pipeline.TopicSessionSync, func(_ context.Context, m bus.Message) { synced <- m })
	require.NoError(t, err)

	n, err := h.Restore(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	m := <-synced
	s, _, err := session.Parse(m.Data["session"])
	require.NoError(t, err)
	rm, ok := s.ResponseMode()
	require.True(t, ok)
	assert.Equal(t, "test.asker", rm.SkillID)
	_, ok, _ = mem.Conversation("other", id)
	assert.False(t, ok, "an expired question is dropped")
}

// TestUnansweredQuestionGetsNoInputTurn: when the answer window closes
// with nothing heard, the skill gets LISTEN_UPDATE with empty asr
// annotated SOS_TIMEOUT (jibo.md §2.2 ASRResult) so its no-input ladder
// runs; an answered question gets none.
func TestUnansweredQuestionGetsNoInputTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newAskingSkill(t, "globals/yes_no")
		r := newHostRig(t, a)
		r.host.cfg.Now = time.Now
		t.Cleanup(func() { _ = r.host.Close(context.Background()) })
		sess := defaultSession(t)
		_, err := r.host.Invoke(context.Background(), withSession(dispatch("test.asker", "set"), sess, "set"))
		require.NoError(t, err)

		time.Sleep(DefaultListenWindow - time.Second)
		synctest.Wait()
		a.mu.Lock()
		require.Len(t, a.reqs, 1, "nothing before the window closes")
		a.mu.Unlock()

		time.Sleep(2 * time.Second)
		synctest.Wait()
		a.mu.Lock()
		require.Len(t, a.reqs, 2)
		upd := a.reqs[1]
		a.mu.Unlock()
		assert.Equal(t, protocol.TypeListenUpdate, upd.Type)
		assert.Equal(t, "", upd.Data.Result.ASR.Text)
		assert.Equal(t, protocol.AnnotationSOSTimeout, upd.Data.Result.ASR.Annotation)
		assert.Nil(t, upd.Data.Result.NLU.Intent)
		assert.Equal(t, []string{"Heard"}, r.voice.said[1:], "the skill's no-input answer is spoken")

		// Asked again and answered in time: no no-input turn.
		_, err = r.host.Invoke(context.Background(), withSession(dispatch("test.asker", "set"), sess, "set"))
		require.NoError(t, err)
		_, err = r.host.Invoke(context.Background(), withSession(dispatch("test.asker", IntentResponse), sess, "yes"))
		require.NoError(t, err)
		time.Sleep(2 * DefaultListenWindow)
		synctest.Wait()
		a.mu.Lock()
		assert.Len(t, a.reqs, 4)
		a.mu.Unlock()
	})
}

func TestEntityNamesAreLowerCamelCase(t *testing.T) {
	for slot, want := range map[string]string{"amount": "amount", "loop_member_referent": "loopMemberReferent",
		"_x": "x", "a__b": "aB", "_": "_"} {
		assert.Equal(t, want, entityName(slot), slot)
	}
}

// TestOptInRules: the opt-in factory's rules understand yes, no, wrong
// person and who is speaking.
func TestOptInRules(t *testing.T) {
	b, err := newRuleBook(slog.Default(), nil)
	require.NoError(t, err)
	for _, tt := range []struct{ utterance, rule, intent string }{
		{"yes please", "optin/yes_no", "yes"},
		{"nope", "optin/yes_no", "no"},
		{"that is not me", "optin/yes_no", "wrongID"},
		{"this is ann", "optin/who", "loopmember"},
		{"never mind", "optin/who", "cancel"},
		{"sure", "globals/yes_no", "yes"},
	} {
		nlu := b.understand(tt.utterance, "en-US", []string{tt.rule})
		assert.Equal(t, tt.intent, nlu.IntentName(), tt.utterance)
	}
	nlu := b.understand("this is ann", "en-US", []string{"optin/who"})
	assert.Equal(t, map[string]any{"loopMemberReferent": "ann"}, nlu.Entities)
}

// TestRuleBookMatchesWithTheLexiconsGiven: the answer rules skip the
// words of the lexicons the host is given (the intent stack's), and skip
// none when given none.
func TestRuleBookMatchesWithTheLexiconsGiven(t *testing.T) {
	lex, err := intent.BuiltinLexicons()
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		lex  map[string]*intent.Lexicon
		want string
	}{
		{"the stack's", lex, "yes"},
		{"none", map[string]*intent.Lexicon{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := newRuleBook(slog.Default(), tt.lex)
			require.NoError(t, err)
			nlu := b.understand("um sure", "en-US", []string{"globals/yes_no"})
			assert.Equal(t, tt.want, nlu.IntentName())
		})
	}
}
