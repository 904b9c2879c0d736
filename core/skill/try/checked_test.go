package try_test

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/try"
	"github.com/openjibo/jibod/core/skill/wasm"
)

// teaSkill is a local skill answering every launch with h behind
// BaseSkill.
func teaSkill(t *testing.T, h func(context.Context, *protocol.Request) (*protocol.Response, error)) *local.Skill {
	t.Helper()
	k, err := local.Load(fstest.MapFS{
		"manifest.json":             {Data: []byte(`{"id": "acme/tea", "version": "1.0.0", "name": "Tea", "description": "Offers tea.", "permissions": ["speech"], "safety_level": "low"}`)},
		"locale/en-us/offer.intent": {Data: []byte("offer me tea\n")},
	}, local.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	s, err := k.Base(h)
	require.NoError(t, err)
	return s
}

// robotLaunch is the LISTEN_LAUNCH the robot's host sends for "offer me
// tea".
func robotLaunch() *protocol.Request {
	c := protocol.Context{General: protocol.GeneralData{AccountID: "local", RobotID: "Try-Jibo-Local-Robot", Lang: "en-US"},
		Skill: protocol.Skill("acme.tea")}
	return protocol.NewListenLaunch(c, protocol.NLUFromSlots("offer", nil, nil), protocol.ASRResult{Text: "offer me tea", Confidence: 1}, nil)
}

// An invalid answer reads the same to its author in jibod skills try and
// at the robot (whose host calls every skill through the invoker, the way
// skill.Handler gives it): BaseSkill's ERROR naming what is wrong.
func TestInvalidAnswerReadsTheSameInTryAndAtTheRobot(t *testing.T) {
	const want = "skill acme.tea: handling LISTEN_LAUNCH: invalid SKILL_ACTION response: data.skill.id: required"
	s := teaSkill(t, func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		return protocol.NewSkillAction(req, protocol.SkillData{}, nil, true), nil
	})

	p, err := try.New(try.Config{Skill: s})
	require.NoError(t, err)
	turn, err := p.Launch(context.Background(), "offer me tea")
	require.NoError(t, err)
	assert.Equal(t, want, turn.Error)
	assert.Equal(t, "ERROR: "+want, turn.Summary())

	log := invoke.NewLog(0)
	iv, err := invoke.New(invoke.Config{Recorder: log, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	reply, err := iv.CallChecked(context.Background(), s.Manifest(), skill.Handler(s), robotLaunch())
	require.NoError(t, err, "an ERROR answer is the skill's to report, not a failed call")
	require.Equal(t, protocol.TypeError, reply.Response.Type)
	assert.Equal(t, want, reply.Response.Error.Message)
	assert.Equal(t, invoke.OutcomeErrorResponse, reply.Record.Outcome)
	assert.Equal(t, want, reply.Record.Error, "jibod skills runs shows the same")
}

// A skill's answer is validated once on its way: the skills that check
// their answers where they make them (BaseSkill and what is built on it,
// a WebAssembly package's and a local program's decoders) hand the host
// their own HandleChecked, and the invoker takes a checked answer as it
// is; a skill without one is validated by the invoker, once.
func TestAnswersAreValidatedOnce(t *testing.T) {
	// The types that answer checked.
	var (
		_ skill.CheckedSkill = (*local.Skill)(nil)
		_ skill.CheckedSkill = (*local.Process)(nil)
		_ skill.CheckedSkill = (*try.MIMSkill)(nil)
		_ skill.CheckedSkill = (*wasm.Skill)(nil)
	)

	s := teaSkill(t, func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		return local.Say(req, "Tea is ready.")
	})
	log := invoke.NewLog(0)
	iv, err := invoke.New(invoke.Config{Recorder: log, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)

	// What BaseSkill checked is not validated again: spoiled after its
	// check, it still goes through as it was handed over.
	spoiled := func(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
		c, err := skill.Handler(s)(ctx, req)
		require.NoError(t, err)
		c.Response().Action.Skill.ID = nil
		return c, nil
	}
	reply, err := iv.CallChecked(context.Background(), s.Manifest(), spoiled, robotLaunch())
	require.NoError(t, err)
	assert.Equal(t, invoke.OutcomeOK, reply.Record.Outcome)
	assert.Nil(t, reply.Response.Action.Skill.ID, "the checked answer, as it was handed over")
	assert.NotNil(t, reply.Action, "its action parsed and gated all the same")

	// A skill answering unchecked is validated by the invoker.
	var raw skill.Skill = plainSkill{s: s}
	_, ok := raw.(skill.CheckedSkill)
	require.False(t, ok)
	m := s.Manifest()
	_, err = iv.CallChecked(context.Background(), m, skill.Handler(raw), robotLaunch())
	require.ErrorIs(t, err, invoke.ErrInvalidResponse)
	assert.EqualError(t, err, "skill acme/tea: invalid response: data.skill.id: required")
	assert.Equal(t, invoke.OutcomeInvalid, invoke.OutcomeOf(err))
}

// plainSkill answers like the skill it wraps, with its skill id dropped,
// and without HandleChecked.
type plainSkill struct{ s *local.Skill }

func (p plainSkill) Manifest() *registry.Manifest { return p.s.Manifest() }
func (p plainSkill) Locale() fs.FS                { return p.s.Locale() }

func (p plainSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	resp, err := p.s.Handle(ctx, req)
	if resp != nil && resp.Action != nil {
		resp.Action.Skill.ID = nil
	}
	return resp, err
}
