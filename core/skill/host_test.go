package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// fakeSkill answers with a function of the request.
type fakeSkill struct {
	id     string
	limits registry.Limits
	handle func(ctx context.Context, req *protocol.Request) (*protocol.Response, error)
	mu     sync.Mutex
	reqs   []*protocol.Request
}

func (f *fakeSkill) Manifest() *Manifest {
	return &Manifest{ID: strings.Replace(f.id, ".", "/", 1), Name: f.id, Version: "1.0.0", Description: "A test skill.",
		Permissions: []registry.Permission{registry.PermSpeech, registry.PermListen}, Timeout: 100 * time.Millisecond,
		SafetyLevel: registry.SafetyLow, Limits: f.limits}
}
func (f *fakeSkill) Locale() fs.FS { return nil }
func (f *fakeSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.handle(ctx, req)
}

// voice records what the body says.
type voice struct {
	mu   sync.Mutex
	said []string
}

func (v *voice) Say(_ context.Context, text string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.said = append(v.said, text)
	return nil
}

func say(t *testing.T, req *protocol.Request, b jcp.Behavior) *protocol.Response {
	a, err := ActionJSON(jcp.NewAction(b))
	require.NoError(t, err)
	return protocol.NewSkillAction(req, protocol.Skill("t.s"), a, true)
}

type hostRig struct {
	host  *Host
	bus   *bus.Bus
	voice *voice
	msgs  chan bus.Message
}

func newHostRig(t *testing.T, skills ...Skill) *hostRig {
	b := bus.New(bus.Options{})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	v := &voice{}
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: v})
	require.NoError(t, err)
	h, err := NewHost(HostConfig{Bus: b, Body: ex})
	require.NoError(t, err)
	for _, s := range skills {
		require.NoError(t, h.Add(s))
	}
	msgs := make(chan bus.Message, 100)
	_, err = b.Subscribe(pipeline.TopicSpeak, func(_ context.Context, m bus.Message) { msgs <- m })
	require.NoError(t, err)
	return &hostRig{host: h, bus: b, voice: v, msgs: msgs}
}

func dispatch(skillID, intentName string) pipeline.Dispatch {
	m := bus.Message{Type: skillID + ":" + intentName, Data: map[string]any{},
		Context: map[string]any{"skill_id": skillID, "destination": "console", "utterance_id": "u1"}}
	return pipeline.Dispatch{Message: m, SkillID: skillID, IntentName: intentName, Lang: "en-US",
		Utterance: "what time is it", Slots: map[string]string{"place": "kitchen"}}
}

func TestInvokeSendsListenLaunchAndRunsAction(t *testing.T) {
	s := &fakeSkill{id: "t.s", handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		return say(t, req, jcp.Sequence(jcp.Say("one"), jcp.Question("two?", "s/answer"))), nil
	}}
	r := newHostRig(t, s)
	_, err := r.host.Invoke(context.Background(), dispatch("t.s", "ask"))
	require.NoError(t, err)

	require.Len(t, s.reqs, 1)
	req := s.reqs[0]
	assert.Equal(t, protocol.TypeListenLaunch, req.Type, "§2.2")
	assert.Equal(t, "ask", req.Data.Result.NLU.IntentName())
	assert.Equal(t, map[string]any{"place": "kitchen"}, req.Data.Result.NLU.Entities, "slots become entities")
	assert.Equal(t, "what time is it", req.Data.Result.ASR.Text)
	assert.Equal(t, "t.s", req.Data.Skill.Name())
	assert.Equal(t, "en-US", req.Data.General.Lang)
	assert.NoError(t, req.Validate())

	assert.Equal(t, []string{"one", "two?"}, r.voice.said)
	first, second := <-r.msgs, <-r.msgs
	assert.Equal(t, "one", first.Data["utterance"])
	assert.Equal(t, false, first.Data["listen"])
	assert.Equal(t, "two?", second.Data["utterance"])
	assert.Equal(t, true, second.Data["listen"], "CONV-08: a question's speak says listen")
	assert.Equal(t, "t.s", first.ContextString(bus.KeySkillID), "PIPE-28: derived from the dispatch")
	assert.Equal(t, "u1", first.ContextString(bus.KeyUtteranceID))
}

func TestInvokeFailures(t *testing.T) {
	okSkill := func(id string) *fakeSkill {
		return &fakeSkill{id: id, handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewSkillAction(req, protocol.Skill(id), json.RawMessage(`{"type":"JCP","config":{"version":"2.0","jcp":{"id":"a","type":"SLIM","config":{"play":{"id":"b","type":"PLAY","esml":"redirected"}}}}}`), true), nil
		}}
	}
	tests := []struct {
		name   string
		handle func(ctx context.Context, req *protocol.Request) (*protocol.Response, error)
		want   string
		said   []string
	}{
		{"skill error response", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewError(req, "no weather today"), nil
		}, "skill t/s: no weather today", nil},
		{"go error", func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, errors.New("db down")
		}, "skill t/s: db down", nil},
		{"panic", func(context.Context, *protocol.Request) (*protocol.Response, error) { panic("bug") }, "skill t/s: panicked: bug", nil},
		{"timeout", func(ctx context.Context, _ *protocol.Request) (*protocol.Response, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, "no answer within 100ms", nil},
		{"nil response", func(context.Context, *protocol.Request) (*protocol.Response, error) { return nil, nil }, "skill t/s: invalid response: no response", nil},
		{"invalid action refused whole", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewSkillAction(req, protocol.Skill("t.s"), json.RawMessage(`{"type":"JCP","config":{"jcp":{"id":"x","type":"SEQUENCE","children":[{"id":"a","type":"SLIM","config":{"play":{"id":"b","type":"PLAY","esml":"never said"}}},{"id":"c","type":"DANCE"}]}}}`), true), nil
		}, `unknown behaviour type "DANCE"`, nil},
		{"action beyond the skill's permissions refused whole", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return say(t, req, jcp.Sequence(jcp.Say("never said"), jcp.Say("<anim cat='happy'/> nor this"))), nil
		}, `skill t/s: no "motion" permission: config.jcp.children[1]`, nil},
		{"redirect followed", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewRedirect(req, "t.t", nil, protocol.Skill("t.s")), nil
		}, "", []string{"redirected"}},
		{"redirect to unknown skill", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewRedirect(req, "t.nobody", nil, protocol.Skill("t.s")), nil
		}, "redirect to unknown skill", nil},
		{"null action ends the skill quietly", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewSkillEnd(req, protocol.Skill("t.s")), nil
		}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newHostRig(t, &fakeSkill{id: "t.s", handle: tt.handle}, okSkill("t.t"))
			_, err := r.host.Invoke(context.Background(), dispatch("t.s", "x"))
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.want)
			}
			said := tt.said
			if tt.want != "" {
				// Nothing of a refused action runs, and the robot says
				// the skill failed: never only text on a console.
				said = []string{"Sorry, something went wrong with the t.s."}
			}
			assert.Equal(t, said, r.voice.said)
			_, err = r.host.Invoke(context.Background(), dispatch("t.t", "x"))
			assert.NoError(t, err, "the robot carries on: the next skill call works")
			recs := r.host.cfg.Records.(*invoke.Log).List(invoke.Filter{Skill: "t/s"})
			require.Len(t, recs, 1, "every call leaves one record")
			if tt.want != "" && !strings.Contains(tt.name, "redirect") {
				assert.NotEqual(t, invoke.OutcomeOK, recs[0].Outcome)
				assert.NotEmpty(t, recs[0].Error)
			}
		})
	}
}

// A burst of utterances beyond a skill's calls_per_minute is refused, and
// the robot says so on the bus: jibo.skill.refused, derived from the
// dispatch (so it carries the utterance's context), names the skill, the
// limit and when the skill takes calls again; the handler error says it
// too. The skill is not called; the robot says it needs a moment (issue
// 22, item 8: the refusal was only in the handler error's text).
func TestBurstBeyondCallsPerMinuteIsRefusedOnTheBus(t *testing.T) {
	s := &fakeSkill{id: "t.s", limits: registry.Limits{CallsPerMinute: 3},
		handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return say(t, req, jcp.Say("it is noon")), nil
		}}
	r := newHostRig(t, s)
	refusals := make(chan bus.Message, 8)
	_, err := r.bus.Subscribe(TopicSkillRefused, func(_ context.Context, m bus.Message) { refusals <- m })
	require.NoError(t, err)

	var refused []error
	for i := range 5 {
		d := dispatch("t.s", "time_now")
		d.Message.Context[bus.KeyUtteranceID] = fmt.Sprintf("u%d", i)
		if _, err := r.host.Invoke(context.Background(), d); err != nil {
			refused = append(refused, err)
		}
	}
	require.Len(t, refused, 2, "the calls beyond the limit")
	for _, err := range refused {
		assert.ErrorIs(t, err, registry.ErrDenied)
		assert.ErrorContains(t, err, "skill t/s: over its calls_per_minute limit: 3 calls in the last minute, limit 3")
	}
	assert.Len(t, s.reqs, 3, "the refused calls never reach the skill")
	assert.Equal(t, []string{"it is noon", "it is noon", "it is noon",
		"Sorry, the t.s needs a moment. Please try again shortly.",
		"Sorry, the t.s needs a moment. Please try again shortly."}, r.voice.said,
		"the robot says it is busy instead of staying silent")
	for _, want := range []string{"u3", "u4"} {
		m := next(t, refusals)
		assert.Equal(t, want, m.ContextString(bus.KeyUtteranceID), "derived from the dispatch")
		assert.Equal(t, "t.s", m.Data["skill_id"])
		assert.Equal(t, "time_now", m.Data["intent_name"])
		assert.Equal(t, "calls_per_minute", m.Data["limit"])
		assert.Equal(t, "3 calls in the last minute, limit 3", m.Data["reason"])
		assert.NotContains(t, m.Data, "permission")
		ms, ok := m.Data["retry_after_ms"].(int64)
		require.True(t, ok, "retry_after_ms: %T", m.Data["retry_after_ms"])
		assert.Greater(t, ms, int64(0))
		assert.LessOrEqual(t, ms, int64(60_000))
	}
	assert.Empty(t, refusals)
}

// A refusal of the action (a permission it lacks) is said on the bus too.
func TestActionRefusalIsSaidOnTheBus(t *testing.T) {
	s := &fakeSkill{id: "t.s", handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		return say(t, req, jcp.Say("<anim cat='happy'/> hi")), nil
	}}
	r := newHostRig(t, s)
	refusals := make(chan bus.Message, 8)
	_, err := r.bus.Subscribe(TopicSkillRefused, func(_ context.Context, m bus.Message) { refusals <- m })
	require.NoError(t, err)
	_, err = r.host.Invoke(context.Background(), dispatch("t.s", "greet"))
	require.ErrorIs(t, err, registry.ErrDenied)
	m := next(t, refusals)
	assert.Equal(t, "motion", m.Data["permission"])
	assert.Equal(t, "greet", m.Data["intent_name"])
	assert.NotContains(t, m.Data, "limit")
	assert.NotContains(t, m.Data, "retry_after_ms")
	assert.Equal(t, err.Error(), m.Data["error"])
}

// next returns the next message on ch; a message that never comes fails
// the test rather than hang it.
func next(t *testing.T, ch <-chan bus.Message) bus.Message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message on the bus")
		return bus.Message{}
	}
}

func TestRedirectLoopRefused(t *testing.T) {
	loop := func(to string) func(context.Context, *protocol.Request) (*protocol.Response, error) {
		return func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewRedirect(req, to, nil, protocol.Skill("x")), nil
		}
	}
	r := newHostRig(t, &fakeSkill{id: "t.a", handle: loop("t.b")}, &fakeSkill{id: "t.b", handle: loop("t.a")})
	_, err := r.host.Invoke(context.Background(), dispatch("t.a", "x"))
	assert.ErrorContains(t, err, "only 1 allowed")
}

func TestAddValidates(t *testing.T) {
	r := newHostRig(t)
	assert.Error(t, r.host.Add(&fakeSkill{id: "Bad:Id"}))
	require.NoError(t, r.host.Add(&fakeSkill{id: "t.ok"}))
	assert.ErrorContains(t, r.host.Add(&fakeSkill{id: "t.ok"}), "already exists")
	_, err := r.host.Invoke(context.Background(), dispatch("t.missing", "x"))
	assert.ErrorContains(t, err, "no skill")
}

// TestAnalyticsForwardedWithRobotFields: a SKILL_ACTION's analytics go on
// the bus with Skill Entry's initial_intent and last_skill set by the
// robot (jibo.md §2.4, §3.2 step 7); last_skill is "n/a" when no skill was
// launched before, as Pegasus sends it (issue 22 item 17).
func TestAnalyticsForwardedWithRobotFields(t *testing.T) {
	entry := func(id string) *fakeSkill {
		return &fakeSkill{id: id, handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			resp := say(t, req, jcp.Say("hi"))
			ev, err := protocol.SkillEntryProperties{InitialIntent: "n/a", WasHeyJiboLaunch: true, UserInitiated: true}.Event()
			require.NoError(t, err)
			resp.Action.Analytics = protocol.Analytics{id: {ev}}
			return resp, nil
		}}
	}
	r := newHostRig(t, entry("t.a"), entry("t.b"))
	got := make(chan bus.Message, 4)
	_, err := r.bus.Subscribe(TopicAnalytics, func(_ context.Context, m bus.Message) { got <- m })
	require.NoError(t, err)
	for _, id := range []string{"t.a", "t.b"} {
		_, err := r.host.Invoke(context.Background(), withSession(dispatch(id, "hello_"+id[2:]), defaultSession(t), "hi"))
		require.NoError(t, err)
	}
	for _, want := range []struct{ skill, intent, last string }{{"t.a", "hello_a", "n/a"}, {"t.b", "hello_b", "t.a"}} {
		m := <-got
		assert.Equal(t, want.skill, m.DataString("skill_id"))
		var a protocol.Analytics
		raw, err := json.Marshal(m.Data["analytics"])
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &a))
		p, err := a[want.skill][0].SkillEntry()
		require.NoError(t, err)
		assert.Equal(t, want.intent, p.InitialIntent)
		assert.Equal(t, want.last, p.LastSkill)
		assert.True(t, p.UserInitiated, "the skill's own fields are kept")
	}
}
