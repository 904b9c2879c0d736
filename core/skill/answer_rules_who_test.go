package skill

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// presence records the SET_PRESENT_PERSON the body performs.
type presence struct {
	mu      sync.Mutex
	persons []string
}

func (p *presence) SetPresentPerson(_ context.Context, sp jcp.SetPresentPerson) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.persons = append(p.persons, sp.LooperID)
	return nil
}

func (p *presence) ImpactEmotion(context.Context, jcp.ImpactEmotion) error { return nil }

// personSkill is a fakeSkill that may also set the present person.
type personSkill struct{ fakeSkill }

func (p *personSkill) Manifest() *Manifest {
	m := p.fakeSkill.Manifest()
	m.Permissions = append(m.Permissions, registry.PermPerson)
	return m
}

// whoSkill is a graph skill asking "Who am I talking to?" with the
// opt-in's rule, then greeting the looper SetLooperIDNode settled on by
// first name, or saying it does not know them.
func whoSkill(t *testing.T) *personSkill {
	t.Helper()
	say := func(name string, text func(d *graph.Data) string) *graph.JCPNode {
		return graph.JCP(name, func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
			return jcp.NewAction(jcp.Say(text(d))), nil
		}, nil, graph.TransitionDone).Final()
	}
	ask := graph.JCP("ask", func(context.Context, *graph.Data) (*jcp.Action, error) {
		return jcp.NewAction(jcp.Question("Who am I talking to?", "optin/who")), nil
	}, nil, graph.TransitionDone)
	hello := say("hello", func(d *graph.Data) string {
		for _, u := range d.Runtime.Loop.Users {
			if s := d.Runtime.Perception.Speaker; s != nil && *s == u.ID {
				return "Hello, " + u.FirstName + "."
			}
		}
		return "Hello, whoever you are."
	})
	stranger := say("stranger", func(*graph.Data) string { return "I don't know you yet." })
	okay := say("okay", func(*graph.Data) string { return "Okay." })
	looper := graph.SetLooperID("who")

	g := graph.New("who", "Done")
	require.NoError(t, g.AddNode(ask, graph.To(graph.TransitionDone, looper)))
	require.NoError(t, g.AddNode(looper, graph.To(graph.TransitionSuccess, hello),
		graph.To(graph.TransitionNotInLoop, stranger), graph.To(graph.TransitionCancel, okay)))
	for _, n := range []*graph.JCPNode{hello, stranger, okay} {
		require.NoError(t, g.AddNode(n, graph.ToExit(graph.TransitionDone, "Done")))
	}
	gs, err := graph.NewSkill("test.who", g, graph.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return &personSkill{fakeSkill{id: "test.who", handle: gs.Handle}}
}

// TestWhoAnswerNamesALooper follows the opt-in's "who am I talking to?"
// (jibo.md §5.3 OptInFactory, wrongID branch; §4 SetLooperIDNode) through
// the host: the answer is read with the "optin/who" rule, and a bare name,
// which no template can be (GRM-07), is matched against the loop's names.
func TestWhoAnswerNamesALooper(t *testing.T) {
	annAndCleo := []protocol.LooperInfo{{ID: "u-ann", FirstName: "Ann"}, {ID: "u-cleo", FirstName: "Cleo", LastName: "Park"}}
	twoAnns := []protocol.LooperInfo{{ID: "u-ann", FirstName: "Ann"}, {ID: "u-ann2", FirstName: "ann"}}
	const notInLoop = "I don't know you yet."
	tests := []struct {
		name, answer string
		loop         []protocol.LooperInfo
		wantSaid     string
		wantPerson   string // "" means no SET_PRESENT_PERSON
	}{
		{"bare name", "Ann", annAndCleo, "Hello, Ann.", "u-ann"},
		{"bare name with punctuation", "ann.", annAndCleo, "Hello, Ann.", "u-ann"},
		{"it's", "it's Ann", annAndCleo, "Hello, Ann.", "u-ann"},
		{"here", "Ann here", annAndCleo, "Hello, Ann.", "u-ann"},
		{"this is", "this is ann", annAndCleo, "Hello, Ann.", "u-ann"},
		{"it's me", "It's me, Ann!", annAndCleo, "Hello, Ann.", "u-ann"},
		{"filler", "um, Ann", annAndCleo, "Hello, Ann.", "u-ann"},
		{"full name", "Cleo Park", annAndCleo, "Hello, Cleo.", "u-cleo"},
		{"not a member", "Bob", annAndCleo, notInLoop, ""},
		{"not a member, framed", "it's Bob", annAndCleo, notInLoop, ""},
		{"silence", "", annAndCleo, notInLoop, ""},
		{"another question", "what time is it", annAndCleo, notInLoop, ""},
		{"two members share the name", "Ann", twoAnns, notInLoop, ""},
		{"two members share the name, framed", "this is ann", twoAnns, notInLoop, ""},
		{"cancel", "never mind", annAndCleo, "Okay.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New(bus.Options{})
			t.Cleanup(func() { _ = b.Close(context.Background()) })
			v, st := &voice{}, &presence{}
			ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: v, State: st})
			require.NoError(t, err)
			h, err := NewHost(HostConfig{Bus: b, Body: ex, Logger: slog.New(slog.DiscardHandler), Robot: Robot{AccountID: "acct-1", RobotID: "Maple-Otter-Lantern-Quiet", Release: "1.9.2"},
				Runtime: func() protocol.RuntimeContext {
					return protocol.RuntimeContext{Loop: protocol.Loop{Users: tt.loop}}
				}})
			require.NoError(t, err)
			require.NoError(t, h.Add(whoSkill(t)))
			sess := defaultSession(t)

			_, err = h.Invoke(context.Background(), withSession(dispatch("test.who", "who"), sess, "who"))
			require.NoError(t, err)
			_, err = h.Invoke(context.Background(), withSession(dispatch("test.who", IntentResponse), sess, tt.answer))
			require.NoError(t, err)

			assert.Equal(t, []string{"Who am I talking to?", tt.wantSaid}, v.said)
			if tt.wantPerson == "" {
				assert.Empty(t, st.persons, "nobody is made the present person")
			} else {
				assert.Equal(t, []string{tt.wantPerson}, st.persons, "the looper is the person talked to")
			}
		})
	}
}

// The who rule's templates understand the natural ways of giving a name;
// a bare name is left to SetLooperIDNode (GRM-07 refuses {name} alone).
func TestOptInWhoRule(t *testing.T) {
	b, err := newRuleBook(slog.Default(), nil)
	require.NoError(t, err)
	for _, tt := range []struct{ utterance, intent, referent string }{
		{"it's Ann", "loopmember", "ann"},
		{"it is ann", "loopmember", "ann"},
		{"it's me ann", "loopmember", "ann"},
		{"i'm ann", "loopmember", "ann"},
		{"ann here", "loopmember", "ann"},
		{"this is ann speaking", "loopmember", "ann"},
		{"my name is ann", "loopmember", "ann"},
		{"nobody", "cancel", ""},
		{"ann", "", ""},
	} {
		nlu := b.understand(tt.utterance, "en-US", []string{"optin/who"})
		assert.Equal(t, tt.intent, nlu.IntentName(), tt.utterance)
		if tt.referent != "" {
			assert.Equal(t, tt.referent, nlu.Entities["loopMemberReferent"], tt.utterance)
		}
	}
}
