package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

func TestSimpleBuiltinNodes(t *testing.T) {
	ctx := context.Background()
	d := newData(t, launch(skillName, "x", "x"))
	d.Result = "carried"
	isTrue := func(v bool, err error) graph.Predicate {
		return func(context.Context, *graph.Data) (bool, error) { return v, err }
	}
	tests := []struct {
		name        string
		node        graph.Node
		transitions []string
		enterAction bool
		exit        string
		exitErr     string
	}{
		{"NoOp", graph.NoOp("join", "Next"), []string{"Next"}, false, "Next", ""},
		{"Default without enter", graph.Default("d", nil), []string{"Done"}, false, "Done", ""},
		{"Default with an action", graph.Default("d", func(context.Context, *graph.Data) (graph.EnterResult, error) {
			return graph.EnterResult{Action: jcp.NewAction(jcp.Say("Hi."))}, nil
		}), []string{"Done"}, true, "Done", ""},
		{"TrueFalse true", graph.TrueFalse("tf", isTrue(true, nil)), []string{"True", "False"}, false, "True", ""},
		{"TrueFalse false", graph.TrueFalse("tf", isTrue(false, nil)), []string{"True", "False"}, false, "False", ""},
		{"TrueFalse failing", graph.TrueFalse("tf", isTrue(false, errors.New("no data"))), []string{"True", "False"}, false, "", "no data"},
		{"TrueFalse without predicate", graph.TrueFalse("tf", nil), []string{"True", "False"}, false, "", "no predicate"},
		{"JCP default exit", say("s", "Hi."), []string{"Done"}, true, "Done", ""},
		{"Func default exit", graph.Func("f", []string{"A", "B"}, nil, nil), []string{"A", "B"}, false, "A", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.transitions, tt.node.Transitions())
			er, err := tt.node.Enter(ctx, d)
			require.NoError(t, err)
			assert.Equal(t, tt.enterAction, er.Action != nil)
			xr, err := tt.node.Exit(ctx, d)
			if tt.exitErr != "" {
				assert.EqualError(t, err, tt.exitErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.exit, xr.Transition)
			assert.Equal(t, "carried", xr.Result, "built-in nodes pass the result on")
		})
	}
}

// §4 SetLooperIDNode: cancel ⇒ Cancel; loopmember naming a looper ⇒
// speaker overridden, SET_PRESENT_PERSON(USER_OVERRIDE, 100) added,
// Success; otherwise the speaker is cleared ⇒ NotInLoop.
func TestSetLooperIDNode(t *testing.T) {
	users := []protocol.LooperInfo{
		{ID: "lp-1", FirstName: "Ada", LastName: "Lovelace"},
		{ID: "lp-2", FirstName: "Sam"},
		{ID: "lp-3", FirstName: "sam"},
	}
	tests := []struct {
		name     string
		intent   string
		referent string
		want     string
		speaker  string // "" means null
	}{
		{"cancel", "cancel", "", graph.TransitionCancel, "lp-9"},
		{"looper by id", "loopmember", "lp-2", graph.TransitionSuccess, "lp-2"},
		{"looper by first name", "loopmember", "ADA", graph.TransitionSuccess, "lp-1"},
		{"looper by full name", "loopmember", "ada lovelace", graph.TransitionSuccess, "lp-1"},
		{"referent with framing left in", "loopmember", "ada here", graph.TransitionSuccess, "lp-1"},
		{"first name shared by two", "loopmember", "Sam", graph.TransitionNotInLoop, ""},
		{"stranger", "loopmember", "Zed", graph.TransitionNotInLoop, ""},
		{"no referent", "loopmember", "", graph.TransitionNotInLoop, ""},
		{"other intent", "yes", "lp-1", graph.TransitionNotInLoop, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slots := map[string]string{}
			if tt.referent != "" {
				slots[graph.EntityLoopMemberReferent] = tt.referent
			}
			req := update(skillName, nil, tt.intent, slots, "it's me")
			req.Data.Runtime.Loop.Users = users
			before := "lp-9"
			req.Data.Runtime.Perception.Speaker = &before
			d := newData(t, req)

			n := graph.SetLooperID("who")
			assert.Equal(t, []string{"Cancel", "Success", "NotInLoop"}, n.Transitions())
			xr, err := n.Exit(context.Background(), d)
			require.NoError(t, err)
			assert.Equal(t, tt.want, xr.Transition)
			if tt.speaker == "" {
				assert.Nil(t, d.Runtime.Perception.Speaker)
			} else {
				require.NotNil(t, d.Runtime.Perception.Speaker)
				assert.Equal(t, tt.speaker, *d.Runtime.Perception.Speaker)
			}
			assert.Equal(t, "lp-9", *req.Data.Runtime.Perception.Speaker, "the request itself is not changed")
			if tt.want != graph.TransitionSuccess {
				assert.Empty(t, d.Behaviors.Sequence)
				return
			}
			require.Len(t, d.Behaviors.Sequence, 1)
			spp, ok := d.Behaviors.Sequence[0].(*jcp.SetPresentPerson)
			require.True(t, ok)
			assert.Equal(t, tt.speaker, spp.LooperID)
			assert.Equal(t, jcp.SourceUserOverride, spp.Source)
			assert.Equal(t, float64(100), spp.Confidence)
		})
	}
}

// §4 SetLooperIDNode, answering OptInFactory's "who am I talking to?"
// (§5.3): a bare name cannot be an answer template (GRM-07), so with no
// intent the recognised text is read as a name. Exactly one member must
// have it; otherwise nobody is the speaker, as before.
func TestSetLooperIDNodeReadsABareName(t *testing.T) {
	annAndBo := []protocol.LooperInfo{{ID: "lp-ann", FirstName: "Ann", LastName: "Lee"}, {ID: "lp-bo", FirstName: "Bo"}}
	twoAnns := []protocol.LooperInfo{{ID: "lp-ann", FirstName: "Ann"}, {ID: "lp-ann2", FirstName: "ANN"}}
	tests := []struct {
		name, intent, text string
		users              []protocol.LooperInfo
		want, speaker      string // speaker "" means null
	}{
		{"bare name", "", "Ann", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"lowercase with a full stop", "", "ann.", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"it's", "", "it's Ann", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"curly apostrophe", "", "It’s Ann!", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"here", "", "Ann here", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"this is", "", "this is ann", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"fillers", "", "Um, uh, it's me, Ann", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"name then it's me", "", "Ann, it's me.", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"full name", "", "Ann Lee", annAndBo, graph.TransitionSuccess, "lp-ann"},
		{"another member", "", "bo", annAndBo, graph.TransitionSuccess, "lp-bo"},
		{"stranger", "", "Bob", annAndBo, graph.TransitionNotInLoop, ""},
		{"silence", "", "", annAndBo, graph.TransitionNotInLoop, ""},
		{"only framing", "", "it's me", annAndBo, graph.TransitionNotInLoop, ""},
		{"only fillers", "", "um uh", annAndBo, graph.TransitionNotInLoop, ""},
		{"a question", "", "what time is it", annAndBo, graph.TransitionNotInLoop, ""},
		{"name inside a sentence", "", "ann is not here", annAndBo, graph.TransitionNotInLoop, ""},
		{"two members share the name", "", "Ann", twoAnns, graph.TransitionNotInLoop, ""},
		{"empty loop", "", "Ann", nil, graph.TransitionNotInLoop, ""},
		{"another intent is not read as a name", "yes", "Ann", annAndBo, graph.TransitionNotInLoop, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := update(skillName, nil, tt.intent, nil, tt.text)
			req.Data.Runtime.Loop.Users = tt.users
			d := newData(t, req)

			xr, err := graph.SetLooperID("who").Exit(context.Background(), d)
			require.NoError(t, err)
			assert.Equal(t, tt.want, xr.Transition)
			if tt.speaker == "" {
				assert.Nil(t, d.Runtime.Perception.Speaker)
				assert.Empty(t, d.Behaviors.Sequence)
				return
			}
			require.NotNil(t, d.Runtime.Perception.Speaker)
			assert.Equal(t, tt.speaker, *d.Runtime.Perception.Speaker)
			require.Len(t, d.Behaviors.Sequence, 1)
			spp, ok := d.Behaviors.Sequence[0].(*jcp.SetPresentPerson)
			require.True(t, ok)
			assert.Equal(t, tt.speaker, spp.LooperID)
			assert.Equal(t, jcp.SourceUserOverride, spp.Source)
		})
	}
}

// The NLU SetLooperIDNode reads is the previous node's protocol.Result
// when there is one, as after a question.
func TestDataNLUPrefersTheResult(t *testing.T) {
	d := newData(t, launch(skillName, "launch_intent", "x"))
	assert.Equal(t, "launch_intent", d.NLU().IntentName())
	answer := protocol.NLUFromSlots("answer", nil, nil)
	d.Result = protocol.Result{NLU: &answer, ASR: &protocol.ASRResult{Text: "the answer"}}
	assert.Equal(t, "answer", d.NLU().IntentName())
	assert.Equal(t, "the answer", d.ASR().Text)
	d.Result = &protocol.Result{}
	assert.Nil(t, d.NLU())
	d.Result = 7
	assert.Equal(t, "launch_intent", d.NLU().IntentName())
	assert.Equal(t, "x", d.ASR().Text)
}

func TestDataHelpers(t *testing.T) {
	d := newData(t, launch(skillName, "x", "x"))
	d.OverrideSpeaker("lp-1")
	require.NotNil(t, d.Runtime.Perception.Speaker)
	assert.Equal(t, "lp-1", *d.Runtime.Perception.Speaker)
	d.OverrideSpeaker("")
	assert.Nil(t, d.Runtime.Perception.Speaker)

	require.NoError(t, d.Track(protocol.EventSkillOffer, protocol.SkillOfferProperties{UserResponse: "yes", Modality: protocol.ModalitySpeech}))
	offer, err := d.Analytics[skillName][0].SkillOffer()
	require.NoError(t, err)
	assert.Equal(t, "yes", offer.UserResponse)
	assert.Error(t, d.Track("", nil))

	require.NoError(t, d.Set("k", []int{1, 2}))
	var v []int
	ok, err := d.Get("k", &v)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []int{1, 2}, v)
	var s string
	_, err = d.Get("k", &s)
	assert.ErrorContains(t, err, `session data "k"`)
	d.Delete("k")
	ok, err = d.Get("k", &v)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.ErrorIs(t, d.Set("", 1), graph.ErrSessionData)
	assert.Error(t, d.Set("f", func() {}))
	assert.Nil(t, d.Session(), "no session before Start")
	assert.Equal(t, "", d.SessionID())

	_, err = graph.NewData(nil, skillName, nil)
	assert.Error(t, err)
}
