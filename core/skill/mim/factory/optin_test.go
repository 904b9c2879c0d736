package factory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

var declines = []string{"No problem. Maybe another time.", "Okay, I'll save it for later."}

const jokeOffer = "Want to hear a joke about robots?"

// optIn builds the opt-in inside a parent saying which exit it took.
// Node ids: Router 0, ProposalNoID 1, ProposalVerifyID 2, YesNoWrongID 3,
// WrongID 4, SetLooperID 5, Decline 6; "exit Accepted" 7, "exit
// NotInLoop" 8, "exit Declined" 9.
func optIn(t *testing.T, o factory.OptInOptions) *graph.Graph {
	t.Helper()
	g, err := factory.OptIn("joke", o)
	require.NoError(t, err)
	assert.Equal(t, "OptIn: joke", g.Name())
	assert.Equal(t, []string{factory.Accepted, factory.NotInLoop, factory.Declined}, g.Exits())
	var names []string
	for _, n := range g.Nodes() {
		names = append(names, n.Name())
	}
	assert.Equal(t, []string{"OptIn:Router:joke", "OptIn:QN:ProposalNoID:joke", "OptIn:QN:ProposalVerifyID:joke",
		"OptIn:YesNoWrongID:joke", "OptIn:QN:WrongID:joke", "OptIn:SetLooperID:joke", "OptIn:AN:Decline:joke"}, names)
	return withExits(t, g)
}

// jokeProposal is a skill's proposal: its prompt replaces the base's.
func jokeProposal(t *testing.T) factory.OptInOptions {
	m := parseMIM(t, "JokeOffer", `{"mim_type":"question","rule_name":"joke/offer","prompts":[
		{"prompt_category":"Entry-Core","prompt_sub_category":"Q","prompt":"`+jokeOffer+`","prompt_id":"JokeOffer_QN_01"}]}`)
	return factory.OptInOptions{Options: opts(factory.MIMs(m))}
}

func optInState(t *testing.T, s *protocol.Session) factory.OptInState {
	var st factory.OptInState
	sessionData(t, s, factory.OptInStateKey, &st)
	return st
}

// TestOptInAccepted: yes is Accepted, tracked as a Skill Offer.
func TestOptInAccepted(t *testing.T) {
	c := newConvo(t, optIn(t, jokeProposal(t)), "u-bob")
	s := c.launch(nil)
	assert.Equal(t, []string{jokeOffer}, s.ESML, "the skill's proposal prompts replace the base's")
	assert.Equal(t, []string{"optin/yes_no"}, s.Listen, "the answer is read with the base's rule")
	assert.Equal(t, []string{"[0,NO_ID]", "[1,null]"}, trace(s.Session))

	s = c.answer(factory.IntentYes, "yes please", nil)
	assert.Equal(t, []string{"exit Accepted"}, s.ESML)
	assert.Equal(t, []protocol.SkillOfferProperties{{UserResponse: "yes", Modality: protocol.ModalitySpeech}}, s.Offers)
	bob := "u-bob"
	assert.Equal(t, factory.OptInState{Type: factory.NoID, Speaker: &bob, Response: "yes"}, optInState(t, s.Session))
	assert.Equal(t, []string{"[0,NO_ID]", "[1,Answer]", "[3,Yes]", "[7,null]"}, trace(s.Session))
}

// TestOptInDeclined: no, garbage and silence all decline: the Decline MIM
// is said as the skill's last action, and the graph leaves by Declined.
func TestOptInDeclined(t *testing.T) {
	tests := []struct {
		name, intent, text string
		offer              protocol.SkillOfferProperties
	}{
		{"no", factory.IntentNo, "no thanks", protocol.SkillOfferProperties{UserResponse: "no", Modality: protocol.ModalitySpeech}},
		{"garbage", "", "purple monkey", protocol.SkillOfferProperties{UserResponse: "noMatch", Modality: protocol.ModalitySpeech}},
		{"silence", "", "", protocol.SkillOfferProperties{UserResponse: "noInput", Modality: protocol.ModalityNA}},
		{"touch no", factory.IntentNo, "", protocol.SkillOfferProperties{UserResponse: "no", Modality: protocol.ModalityTouch}},
		{"another intent", "weather", "what's the weather", protocol.SkillOfferProperties{UserResponse: "weather", Modality: protocol.ModalitySpeech}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConvo(t, optIn(t, jokeProposal(t)), "")
			c.launch(nil)
			s := c.answer(tt.intent, tt.text, nil)
			require.Len(t, s.ESML, 1)
			assert.Contains(t, declines, s.ESML[0])
			assert.True(t, s.Final, "the decline is the skill's last action")
			assert.Nil(t, s.Listen)
			assert.Equal(t, []protocol.SkillOfferProperties{tt.offer}, s.Offers)
			assert.Equal(t, []string{"[0,NO_ID]", "[1,Answer]", "[3,No]", "[6,null]"}, trace(s.Session))
			assert.Equal(t, tt.offer.UserResponse, optInState(t, s.Session).Response)

			s = c.answer("", "", nil)
			assert.Equal(t, []string{"exit Declined"}, s.ESML)
		})
	}
}

// TestOptInWrongID: a VERIFY_ID offer names the speaker; "that's not me"
// asks who it is, and a loop member named is Accepted as the new speaker
// (SET_PRESENT_PERSON runs first, and _optIn remembers them).
func TestOptInWrongID(t *testing.T) {
	o := factory.OptInOptions{Options: opts(factory.MIMSource{}), Type: factory.VerifyID}
	c := newConvo(t, optIn(t, o), "u-bob")
	s := c.launch(nil)
	assert.Equal(t, []string{"Bawb, I saved something just for you. Would you like it now?"}, s.ESML)
	assert.Equal(t, []string{"[0,VERIFY_ID]", "[2,null]"}, trace(s.Session))

	s = c.answer(factory.IntentWrongID, "I'm not Bob", nil)
	require.Len(t, s.ESML, 1)
	assert.Contains(t, []string{"Oops, my mistake. Who am I talking to?", "Sorry about that. Which one of Ann and Bawb are you?"}, s.ESML[0])
	assert.Equal(t, []string{"optin/who"}, s.Listen)
	assert.Equal(t, []protocol.SkillOfferProperties{{UserResponse: "wrongID", Modality: protocol.ModalitySpeech}}, s.Offers)

	s = c.answer(graph.IntentLoopMember, "it's Ann", map[string]string{graph.EntityLoopMemberReferent: "Ann"})
	assert.Equal(t, []string{"exit Accepted"}, s.ESML)
	seq, ok := s.Behavior.(*jcp.SequenceBehavior)
	require.True(t, ok, "SET_PRESENT_PERSON is sequenced before the next action")
	pp, ok := seq.Children[0].(*jcp.SetPresentPerson)
	require.True(t, ok)
	assert.Equal(t, "u-ann", pp.LooperID)
	assert.Equal(t, jcp.SourceUserOverride, pp.Source)
	ann := "u-ann"
	assert.Equal(t, factory.OptInState{Type: factory.VerifyID, Speaker: &ann, Response: "wrongID"}, optInState(t, s.Session))
	assert.Equal(t, []string{"[0,VERIFY_ID]", "[2,Answer]", "[3,WrongID]", "[4,Answer]", "[5,Success]", "[7,null]"}, trace(s.Session))
}

func TestOptInWrongIDOutcomes(t *testing.T) {
	o := factory.OptInOptions{Options: opts(factory.MIMSource{}), Type: factory.VerifyID}
	t.Run("not in the loop", func(t *testing.T) {
		c := newConvo(t, optIn(t, o), "u-bob")
		c.launch(nil)
		c.answer(factory.IntentWrongID, "no", nil)
		s := c.answer(graph.IntentLoopMember, "I'm Zed", map[string]string{graph.EntityLoopMemberReferent: "Zed"})
		assert.Equal(t, []string{"exit NotInLoop"}, s.ESML)
		assert.Nil(t, optInState(t, s.Session).Speaker, "nobody identified: the speaker is cleared")
	})
	t.Run("cancel", func(t *testing.T) {
		c := newConvo(t, optIn(t, o), "u-bob")
		c.launch(nil)
		c.answer(factory.IntentWrongID, "no", nil)
		s := c.answer(graph.IntentCancel, "never mind", nil)
		require.Len(t, s.ESML, 1)
		assert.Contains(t, declines, s.ESML[0])
		assert.True(t, s.Final)
		assert.Equal(t, "[5,Cancel]", trace(s.Session)[4])
	})
}

// TestOptInTypeFunc: the type may be decided per turn; with nobody
// identified the VERIFY_ID base says so.
func TestOptInTypeFunc(t *testing.T) {
	o := factory.OptInOptions{Options: opts(factory.MIMSource{}), TypeFunc: func(context.Context, *graph.Data) (factory.OptInType, error) {
		return factory.VerifyID, nil
	}}
	c := newConvo(t, optIn(t, o), "")
	s := c.launch(nil)
	assert.Equal(t, []string{"I saved something for someone in the family. Would you like it now?"}, s.ESML)

	bad := factory.OptInOptions{Options: opts(factory.MIMSource{}), TypeFunc: func(context.Context, *graph.Data) (factory.OptInType, error) {
		return "SOMETIMES", nil
	}}
	g, err := factory.OptIn("x", bad)
	require.NoError(t, err)
	sk, err := graph.NewSkill(skillID, g, graph.Options{})
	require.NoError(t, err)
	resp, err := sk.Handle(context.Background(), protocol.NewListenLaunch(robot(""), protocol.NLUFromSlots("start", nil, nil), protocol.ASRResult{}, nil))
	require.NoError(t, err)
	require.NotNil(t, resp.Error)
	assert.Contains(t, resp.Error.Message, `opt-in type "SOMETIMES" is not NO_ID or VERIFY_ID`)
}

// TestOptInUnify: a custom unify transforms the proposal; one that makes
// it stop listening is refused when the graph is built.
func TestOptInUnify(t *testing.T) {
	o := jokeProposal(t)
	o.Unify = func(base, skill *mim.MIM) (*mim.MIM, error) {
		u := base.Clone()
		u.Prompts = append(skill.Clone().Prompts, u.Prompts...)
		u.Prompts = u.Prompts[:1]
		u.Prompts[0].Text = "Psst! " + u.Prompts[0].Text
		return u, nil
	}
	c := newConvo(t, optIn(t, o), "")
	assert.Equal(t, []string{"Psst! " + jokeOffer}, c.launch(nil).ESML)

	o.Unify = func(base, skill *mim.MIM) (*mim.MIM, error) {
		u := skill.Clone()
		u.Type = mim.Announcement
		return u, nil
	}
	_, err := factory.OptIn("x", o)
	assert.ErrorContains(t, err, "unified proposal JokeOffer is a announcement, not a question")
}
