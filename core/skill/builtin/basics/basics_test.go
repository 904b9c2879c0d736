package basics

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

func general(lang string) protocol.GeneralData {
	return protocol.GeneralData{AccountID: "acct-1", RobotID: "Test-Robot", Lang: lang}
}

func launch(intentName, lang string) *protocol.Request {
	return protocol.NewListenLaunch(protocol.Context{General: general(lang), Skill: protocol.Skill(ID)},
		protocol.NLUFromSlots(intentName, nil, nil), protocol.ASRResult{Text: "x", Confidence: 1}, nil)
}

func spoken(t *testing.T, resp *protocol.Response) string {
	t.Helper()
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	require.NoError(t, resp.Validate())
	a, err := jcp.ParseAction(resp.Action.Action)
	require.NoError(t, err)
	seq, ok := a.Behavior.(*jcp.SequenceBehavior)
	require.True(t, ok, "answers with a SEQUENCE")
	require.Len(t, seq.Children, 2)
	feel, ok := seq.Children[0].(*jcp.ImpactEmotion)
	require.True(t, ok, "the robot is glad first")
	assert.Equal(t, jcp.ImpactLowPos, feel.Valence)
	slim, ok := seq.Children[1].(*jcp.SLIM)
	require.True(t, ok, "then says one SLIM")
	return slim.Play.ESML
}

func TestHandle(t *testing.T) {
	s, err := New(Options{Rand: func(int) int { return 0 }})
	require.NoError(t, err)
	ctx := context.Background()

	resp, err := s.Handle(ctx, launch(IntentGreet, "en-US"))
	require.NoError(t, err)
	assert.Equal(t, "<anim name='happy-wiggle' nonBlocking='true'/>Hello! It's nice to see you.", spoken(t, resp),
		"a greeting comes with a happy wiggle")
	assert.True(t, *resp.Action.Final)

	tests := []struct {
		name string
		req  *protocol.Request
		want string
	}{
		{"unknown intent", launch("dance", "en-US"), `has no intent "dance"`},
		{"unsupported language", launch(IntentGreet, "pt-PT"), `does not speak "pt-PT"`},
		{"update without a conversation", protocol.NewListenUpdate(protocol.Context{General: general("en-US"), Skill: protocol.Skill(ID)},
			protocol.NLUFromSlots("greet", nil, nil), protocol.ASRResult{}), "LISTEN_LAUNCH only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := s.Handle(ctx, tt.req)
			require.NoError(t, err)
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Contains(t, resp.Error.Message, tt.want)
		})
	}
}

// TestRegistersAndMatches loads the skill's locale through the real
// registration topics and intent service, then matches phrasings.
func TestRegistersAndMatches(t *testing.T) {
	engine, _ := newStack(t)

	plugins := intent.TemplatePlugins(engine)
	tests := []struct {
		utterance string
		intent    string
	}{
		{"hello", IntentGreet},
		{"Hey there, Jibo!", IntentGreet},
		{"good morning jibo", IntentGreet},
		{"hiya", IntentGreet},
		{"hi jibo", IntentGreet},
		{"howdy", IntentGreet},
		{"good evening jibo", IntentGreet},
		{"nice to meet you", IntentGreet},
		{"what time is it", ""}, // the clock skill's now
		{"flibbertigibbet", ""},
	}
	for _, tt := range tests {
		t.Run(tt.utterance, func(t *testing.T) {
			m, err := plugins[0].Match(context.Background(), []string{tt.utterance}, "en-US", session.Empty())
			require.NoError(t, err)
			if tt.intent == "" {
				assert.Nil(t, m)
				return
			}
			require.NotNil(t, m, "templates-high claims %q", tt.utterance)
			assert.Equal(t, ID, m.SkillID)
			assert.Equal(t, tt.intent, m.IntentName)
		})
	}
}

type voiceFunc func(context.Context, string) error

func (f voiceFunc) Say(ctx context.Context, s string) error { return f(ctx, s) }

// TestUnloadDeregisters removes the skill from the host and checks its
// intents are gone from the engines (REG-09, DEF-09).
func TestUnloadDeregisters(t *testing.T) {
	engine, h := newStack(t)
	require.NotNil(t, engine.Match("hello", "en-US", "default"))

	require.NoError(t, h.Remove(context.Background(), ID))
	assert.Empty(t, h.Skills())
	assert.Eventually(t, func() bool { return engine.Match("hello", "en-US", "default") == nil }, 5*time.Second, 5*time.Millisecond,
		"the skill's intents are deregistered")
	assert.ErrorContains(t, h.Remove(context.Background(), ID), "not found")
}

// newStack wires a bus, the intent service and a skill host holding this
// skill with its intents registered, as the robot does.
func newStack(t *testing.T) (*intent.TemplateEngine, *skill.Host) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := bus.New(bus.Options{Logger: log})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	engine := intent.NewTemplateEngine(intent.EngineOptions{Logger: log})
	svc := intent.NewService(b, engine, log)
	require.NoError(t, svc.Start())
	t.Cleanup(svc.Close)
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: voiceFunc(func(context.Context, string) error { return nil })})
	require.NoError(t, err)
	h, err := skill.NewHost(skill.HostConfig{Bus: b, Body: ex, Logger: log})
	require.NoError(t, err)
	s, err := New(Options{})
	require.NoError(t, err)
	require.NoError(t, h.Add(s))
	require.NoError(t, h.Register(context.Background()), "REG-06 payloads accepted")
	return engine, h
}
