package skill

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/jcp"
)

// proactiveAsker asks "Want to play?" when launched proactively and ends
// with what it heard when answered.
type proactiveAsker struct {
	fakeSkill
	updated chan struct{} // gets each LISTEN_UPDATE's arrival
}

func (p *proactiveAsker) Manifest() *Manifest {
	m := p.fakeSkill.Manifest()
	m.Permissions = append(m.Permissions, registry.PermProactive)
	m.SafetyLevel = m.ImpliedSafetyLevel()
	return m
}

func newProactiveAsker(t *testing.T) *proactiveAsker {
	p := &proactiveAsker{updated: make(chan struct{}, 4)}
	p.id = "test.greeter"
	p.handle = func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		if req.Type == protocol.TypeProactiveLaunch {
			act, err := ActionJSON(jcp.NewAction(jcp.Question("Want to play?", "globals/yes_no")))
			require.NoError(t, err)
			sess := &protocol.Session{ID: "g-1", NodeID: 1, Data: json.RawMessage(`{"offered":true}`)}
			return protocol.NewSkillAction(req, protocol.SkillData{ID: ptr("test.greeter"), Session: sess}, act, false), nil
		}
		p.updated <- struct{}{}
		act, err := ActionJSON(jcp.NewAction(jcp.Say("Heard " + req.Data.Result.NLU.IntentName())))
		require.NoError(t, err)
		return protocol.NewSkillAction(req, protocol.Skill("test.greeter"), act, true), nil
	}
	return p
}

// gatedVoice holds the question's speech until released, as a slow
// speaker would: an answer can then arrive while it is still being asked.
type gatedVoice struct {
	voice
	gate     string
	speaking chan struct{}
	release  chan struct{}
	once     sync.Once
}

func (g *gatedVoice) Say(ctx context.Context, text string) error {
	if text == g.gate {
		g.once.Do(func() { close(g.speaking) })
		select {
		case <-g.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.voice.Say(ctx, text)
}

// TestProactiveQuestionAnswerableWhileAsked: a proactive launch ending on
// a question puts the skill in response mode (ovos.session.sync) before
// the question is spoken, so an answer that comes at once is routed to the
// skill (CONV-05); that answer's turn keeps the conversation, which the
// launch does not then overwrite when its speech ends.
func TestProactiveQuestionAnswerableWhileAsked(t *testing.T) {
	tests := []struct {
		name     string
		answer   bool
		wantConv bool
	}{
		{"answered while the question is spoken", true, false},
		{"not answered: the question waits", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New(bus.Options{})
			t.Cleanup(func() { _ = b.Close(context.Background()) })
			v := &gatedVoice{gate: "Want to play?", speaking: make(chan struct{}), release: make(chan struct{})}
			ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: v})
			require.NoError(t, err)
			h, err := NewHost(HostConfig{Bus: b, Body: ex})
			require.NoError(t, err)
			t.Cleanup(func() { _ = h.Close(context.Background()) })
			sk := newProactiveAsker(t)
			require.NoError(t, h.Add(sk))
			syncs := make(chan bus.Message, 8)
			_, err = b.Subscribe(pipeline.TopicSessionSync, func(_ context.Context, m bus.Message) { syncs <- m })
			require.NoError(t, err)

			done := make(chan error, 1)
			go func() { // ends when the launch's action has run; waited for below
				done <- h.Proactive(context.Background(), store.Timer{SkillID: "test.greeter", Label: "arrival"})
			}()
			<-v.speaking
			// The question is being spoken: response mode is already out.
			m := <-syncs
			s, _, err := session.Parse(m.Data["session"].(map[string]any))
			require.NoError(t, err)
			rm, ok := s.ResponseMode()
			require.True(t, ok, "response mode published before the question was spoken out")
			assert.Equal(t, "test.greeter", rm.SkillID)

			answered := make(chan error, 1)
			if tt.answer {
				go func() { // waited for below
					_, err := h.Invoke(context.Background(), withSession(dispatch("test.greeter", IntentResponse), s, "yes"))
					answered <- err
				}()
				// The skill has the answer (its reply waits for the body,
				// which is still asking).
				<-sk.updated
			}
			close(v.release)
			require.NoError(t, <-done)
			if tt.answer {
				require.NoError(t, <-answered, "the early answer finds the question")
			}

			conv, ok, err := h.cfg.Conversations.Conversation(session.DefaultID, "test.greeter")
			require.NoError(t, err)
			assert.Equal(t, tt.wantConv, ok)
			if tt.answer {
				require.Len(t, sk.reqs, 2)
				assert.Equal(t, "yes", sk.reqs[1].Data.Result.NLU.IntentName())
				assert.JSONEq(t, `{"offered":true}`, string(sk.reqs[1].Data.Skill.Session.Data), "the answer got the stored session")
				assert.Contains(t, v.said, "Heard yes")
				assert.Nil(t, h.waitingTimer(session.DefaultID, "test.greeter"), "no no-input turn for an answered question")
			} else {
				assert.Equal(t, []string{"globals/yes_no"}, conv.Listen)
				assert.NotNil(t, h.waitingTimer(session.DefaultID, "test.greeter"), "the question waits for its answer")
				assert.True(t, conv.ExpiresAt.After(time.Now()))
			}
		})
	}
}
