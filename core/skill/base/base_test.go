package base_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

const name = "clock"

func launch() *protocol.Request {
	c := protocol.Context{
		General: protocol.GeneralData{AccountID: "acct-1", RobotID: "Maple-Otter-Lantern-Quiet", Lang: "en-US", Release: "1.9.2"},
		Skill:   protocol.Skill(name),
	}
	return protocol.NewListenLaunch(c, protocol.NLUFromSlots("time_now", nil, nil),
		protocol.ASRResult{Text: "what time is it", Confidence: 0.9}, nil, protocol.WithTransID("tid-1"))
}

// sayNoon answers every request with one announcement.
func sayNoon(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
	return base.ActionResponse(req, req.Data.Skill, jcp.NewAction(jcp.Say("It's noon.")), true)
}

func newSkill(t *testing.T, h base.Handler, opts base.Options) *base.Skill {
	t.Helper()
	s, err := base.New(name, h, opts)
	require.NoError(t, err)
	return s
}

func TestNewChecksItsArguments(t *testing.T) {
	_, err := base.New("", sayNoon, base.Options{})
	assert.EqualError(t, err, "base skill: empty name")
	_, err = base.New(strings.Repeat("n", base.MaxNameLen+1), sayNoon, base.Options{})
	assert.ErrorContains(t, err, "limit 256")
	_, err = base.New(name, nil, base.Options{})
	assert.EqualError(t, err, "base skill clock: no handler")
}

func TestHandleAnswers(t *testing.T) {
	s := newSkill(t, sayNoon, base.Options{})
	assert.Equal(t, name, s.Name())
	resp, err := s.Handle(context.Background(), launch())
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	assert.Equal(t, "tid-1", resp.TransID)
	assert.True(t, *resp.Action.Final)
	assert.False(t, *resp.Action.FireAndForget)
	a, err := jcp.ParseAction(resp.Action.Action)
	require.NoError(t, err)
	assert.Equal(t, "It's noon.", a.Behavior.(*jcp.SLIM).Play.ESML)
}

// §2.3: requests lacking accountID or robotID, or for another skill, are
// refused, as is anything but the three request types or a malformed
// request. The handler never sees them.
func TestHandleRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *protocol.Request) *protocol.Request
		want string
	}{
		{"no request", func(*protocol.Request) *protocol.Request { return nil }, "skill clock: no request"},
		{"unknown type", func(r *protocol.Request) *protocol.Request { r.Type = "SKILL_ACTION"; return r },
			`skill clock: refused request: type "SKILL_ACTION" is not LISTEN_LAUNCH, LISTEN_UPDATE or PROACTIVE_LAUNCH`},
		{"no data", func(r *protocol.Request) *protocol.Request { r.Data = nil; return r },
			"skill clock: refused LISTEN_LAUNCH: data: required"},
		{"no nlu", func(r *protocol.Request) *protocol.Request { r.Data.Result.NLU = nil; return r },
			"skill clock: refused LISTEN_LAUNCH: data.result.nlu: required for LISTEN_LAUNCH"},
		{"no accountID", func(r *protocol.Request) *protocol.Request { r.Data.General.AccountID = ""; return r },
			"skill clock: refused LISTEN_LAUNCH: data.general.accountID: required"},
		{"no robotID", func(r *protocol.Request) *protocol.Request { r.Data.General.RobotID = ""; return r },
			"skill clock: refused LISTEN_LAUNCH: data.general.robotID: required"},
		{"another skill", func(r *protocol.Request) *protocol.Request { r.Data.Skill = protocol.Skill("timer"); return r },
			`skill clock: refused LISTEN_LAUNCH: data.skill.id is "timer", not this skill`},
		{"no skill", func(r *protocol.Request) *protocol.Request { r.Data.Skill = protocol.SkillData{}; return r },
			`skill clock: refused LISTEN_LAUNCH: data.skill.id is "", not this skill`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			s := newSkill(t, func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
				called = true
				return sayNoon(ctx, req)
			}, base.Options{})
			resp, err := s.Handle(context.Background(), tt.edit(launch()))
			require.NoError(t, err)
			require.NoError(t, resp.Validate())
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Equal(t, tt.want, resp.Error.Message)
			assert.False(t, called)
		})
	}
}

// A handler's failures become ERROR responses naming the skill and what
// failed; a panic's stack stays out of the response.
func TestHandleTurnsFailuresIntoErrors(t *testing.T) {
	tests := []struct {
		name string
		h    base.Handler
		want string
	}{
		{"error", func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, errors.New("no clock")
		}, "skill clock: handling LISTEN_LAUNCH: no clock"},
		{"panic", func(context.Context, *protocol.Request) (*protocol.Response, error) {
			var m map[string]int
			//lint:ignore SA5000 the handler panics on purpose
			m["x"] = 1
			return nil, nil
		}, "skill clock: handling LISTEN_LAUNCH: panic: assignment to entry in nil map"},
		{"no response", func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, nil
		}, "skill clock: handling LISTEN_LAUNCH: the handler returned no response"},
		{"invalid response", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewSkillAction(req, protocol.SkillData{}, nil, true), nil
		}, "skill clock: handling LISTEN_LAUNCH: invalid SKILL_ACTION response: data.skill.id: required"},
		{"invalid action", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return base.ActionResponse(req, req.Data.Skill, jcp.NewAction(&jcp.SLIM{}), false)
		}, "skill clock: handling LISTEN_LAUNCH: build SKILL_ACTION: config.jcp.id: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := newSkill(t, tt.h, base.Options{}).Handle(context.Background(), launch())
			require.NoError(t, err)
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Equal(t, tt.want, resp.Error.Message)
			assert.Equal(t, name, resp.Error.Skill.Name())
			assert.Equal(t, "tid-1", resp.TransID)
			require.NoError(t, resp.Validate())
		})
	}
}

// When the caller's context ends, Handle reports an error rather than
// blaming the skill, so the caller can say the skill did not answer in
// time.
func TestHandleReportsAnEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := newSkill(t, func(ctx context.Context, _ *protocol.Request) (*protocol.Response, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}, base.Options{})
	resp, err := s.Handle(ctx, launch())
	assert.Nil(t, resp)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "skill clock: handling LISTEN_LAUNCH: context canceled")
}

func TestObserverSeesEveryRequest(t *testing.T) {
	var got []base.Observation
	fail := false
	s := newSkill(t, func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
		if fail {
			return nil, errors.New("broken")
		}
		return sayNoon(ctx, req)
	}, base.Options{Observe: func(o base.Observation) { got = append(got, o) }})
	_, err := s.Handle(context.Background(), launch())
	require.NoError(t, err)
	fail = true
	_, err = s.Handle(context.Background(), launch())
	require.NoError(t, err)

	require.Len(t, got, 2)
	assert.Equal(t, base.Observation{Skill: name, Type: protocol.TypeListenLaunch, Response: protocol.TypeSkillAction,
		Duration: got[0].Duration}, got[0])
	assert.GreaterOrEqual(t, got[0].Duration.Nanoseconds(), int64(0))
	assert.Equal(t, protocol.TypeError, got[1].Response)
	assert.EqualError(t, got[1].Err, "skill clock: handling LISTEN_LAUNCH: broken")
}

// §2.4: Skill Entry with the values GraphSkill sends; last_skill "n/a" until
// the robot names the skill launched before (issue 22 item 17).
func TestSkillEntry(t *testing.T) {
	tests := []struct {
		typ    string
		launch bool
	}{
		{protocol.TypeListenLaunch, true},
		{protocol.TypeProactiveLaunch, false},
		{protocol.TypeListenUpdate, false},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			req := launch()
			req.Type = tt.typ
			assert.Equal(t, protocol.SkillEntryProperties{InitialIntent: "n/a", Domain: "", WasHeyJiboLaunch: tt.launch,
				UserInitiated: tt.launch, LastSkill: "n/a"}, base.SkillEntry(req))
		})
	}
}

func TestTrack(t *testing.T) {
	var a protocol.Analytics
	require.NoError(t, base.Track(&a, name, protocol.EventSkillEntry, base.SkillEntry(launch())))
	require.NoError(t, base.Track(&a, name, protocol.EventSkillOffer,
		protocol.SkillOfferProperties{UserResponse: "accepted", Modality: protocol.ModalitySpeech}))
	require.NoError(t, base.Track(&a, name, "Custom", nil))
	require.NoError(t, base.Track(&a, name, "Custom", map[string]int{"n": 1}))

	b, err := protocol.EncodeJSON(a)
	require.NoError(t, err)
	assert.JSONEq(t, `{"clock":[
		{"event":"Skill Entry","properties":{"initial_intent":"n/a","domain":"","was_hey_jibo_launch":true,"user_initiated":true,"last_skill":"n/a"}},
		{"event":"Skill Offer","properties":{"user_response":"accepted","modality":"speech"}},
		{"event":"Custom"},
		{"event":"Custom","properties":{"n":1}}]}`, string(b))

	tests := []struct {
		name, skill, event string
		props              any
		want               string
	}{
		{"no skill", "", "E", nil, "skill and event names are required"},
		{"no event", name, "", nil, "skill and event names are required"},
		{"not an object", name, "E", []int{1}, "properties must encode as a JSON object"},
		{"not encodable", name, "E", func() {}, "encoding properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a protocol.Analytics
			assert.ErrorContains(t, base.Track(&a, tt.skill, tt.event, tt.props), tt.want)
			assert.Nil(t, a, "nothing recorded")
		})
	}
}

func TestResponseBuilders(t *testing.T) {
	req := launch()
	skill := req.Data.Skill

	_, err := base.ActionResponse(req, skill, nil, false)
	assert.EqualError(t, err, "build SKILL_ACTION: no action")

	resp, err := base.RedirectResponse(req, skill, base.Redirect{SkillID: "chitchat", Memo: json.RawMessage(`{"mim":"X"}`)})
	require.NoError(t, err)
	require.NoError(t, resp.Validate())
	assert.Equal(t, "chitchat", resp.Redirect.SkillID)
	assert.Equal(t, "what time is it", resp.Redirect.ASR.Text, "the request's ASR is carried over")
	assert.Equal(t, "tid-1", resp.TransID)

	nlu := protocol.NLUFromSlots("other", nil, nil)
	resp, err = base.RedirectResponse(req, skill, base.Redirect{SkillID: "chitchat", NLU: &nlu, ASR: &protocol.ASRResult{Text: "hi"}})
	require.NoError(t, err)
	assert.Equal(t, "other", resp.Redirect.NLU.IntentName())
	assert.Equal(t, "hi", resp.Redirect.ASR.Text)

	_, err = base.RedirectResponse(req, skill, base.Redirect{})
	assert.EqualError(t, err, "build SKILL_REDIRECT: no target skill id")
	_, err = base.RedirectResponse(req, skill, base.Redirect{SkillID: "x", Memo: json.RawMessage(`[1`)})
	assert.EqualError(t, err, "build SKILL_REDIRECT to x: memo is not valid JSON")
	resp, err = base.RedirectResponse(req, skill, base.Redirect{SkillID: "x", Memo: json.RawMessage(`"Proactive"`)})
	require.NoError(t, err, "a memo may be any JSON value")
	assert.Equal(t, `"Proactive"`, string(resp.Redirect.Memo))

	e := base.ErrorResponse(req, name, errors.New(strings.Repeat("é", protocol.MaxStringLen)))
	require.NoError(t, e.Validate(), "an overlong message is cut to the limit")
	assert.True(t, strings.HasSuffix(e.Error.Message, "…"))
}
