package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// timerGraph asks for a duration, confirms it and ends:
// ask (0) -Answered-> confirm (1) -Done-> Success; ask -Cancel-> Cancelled.
func timerGraph(t testing.TB) *graph.Graph {
	t.Helper()
	ask := graph.JCP("AskDuration", func(context.Context, *graph.Data) (*jcp.Action, error) {
		return jcp.NewAction(jcp.Question("For how long?", "timer/duration")), nil
	}, func(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
		nlu := d.NLU()
		if nlu.IntentName() == "cancel" {
			return graph.ExitResult{Transition: "Cancel"}, nil
		}
		minutes, _ := nlu.Entities["minutes"].(string)
		return graph.ExitResult{Transition: "Answered", Result: minutes}, nil
	}, "Answered", "Cancel")
	confirm := graph.JCP("Confirm", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		return jcp.NewAction(jcp.Say("Timer set for " + d.Result.(string) + " minutes.")), nil
	}, nil, "Done")
	g := graph.New("timer", "Success", "Cancelled")
	require.NoError(t, g.AddNode(ask, graph.To("Answered", confirm), graph.ToExit("Cancel", "Cancelled")))
	require.NoError(t, g.AddNode(confirm, graph.ToExit("Done", "Success")))
	return g
}

func newSkill(t testing.TB, g *graph.Graph) *graph.Skill {
	t.Helper()
	s, err := graph.NewSkill(skillName, g, graph.Options{})
	require.NoError(t, err)
	return s
}

// wire sends r through the JSON codec as a peer would and decodes it.
func wireRequest(t testing.TB, r *protocol.Request) *protocol.Request {
	t.Helper()
	b, err := protocol.EncodeJSON(r)
	require.NoError(t, err)
	out, err := protocol.DecodeRequest(b)
	require.NoError(t, err)
	return out
}

func wireResponse(t testing.TB, r *protocol.Response) *protocol.Response {
	t.Helper()
	b, err := protocol.EncodeJSON(r)
	require.NoError(t, err)
	out, err := protocol.DecodeResponse(b)
	require.NoError(t, err)
	return out
}

// §2.3 + §4: a launch answers with the first node's action, final false and
// fireAndForget false, Skill Entry analytics, and the session; the session
// goes over the wire and back, and the update continues it.
func TestSkillConversationOverTheWire(t *testing.T) {
	s := newSkill(t, timerGraph(t))
	ctx := context.Background()

	req := wireRequest(t, launch(skillName, "set_timer", "set a timer"))
	req.TransID = "tid-7"
	resp, err := s.Handle(ctx, req)
	require.NoError(t, err)
	resp = wireResponse(t, resp)
	require.Equal(t, protocol.TypeSkillAction, resp.Type, "%+v", resp.Error)
	assert.Equal(t, "tid-7", resp.TransID, "the response echoes the turn")
	a := resp.Action
	assert.Equal(t, []string{"For how long?"}, esmlOf(t, a.Action))
	assert.False(t, *a.Final)
	assert.False(t, *a.FireAndForget)
	assert.Equal(t, skillName, a.Skill.Name())

	// Skill Entry, as GraphSkill reports it (§2.4).
	require.Len(t, a.Analytics[skillName], 1)
	entry, err := a.Analytics[skillName][0].SkillEntry()
	require.NoError(t, err)
	assert.Equal(t, "n/a", entry.InitialIntent)
	assert.Equal(t, "", entry.Domain)
	assert.True(t, entry.WasHeyJiboLaunch)
	assert.True(t, entry.UserInitiated)
	assert.Equal(t, "n/a", entry.LastSkill, "none before, as Pegasus says it")

	// The session on the wire is exactly {id, nodeID, data, trace}.
	sess := a.Skill.Session
	require.NotNil(t, sess)
	b, err := protocol.EncodeJSON(a.Skill)
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"timer","session":{"id":"`+sess.ID+`","nodeID":0,"data":{},"trace":[{"nodeID":0,"transition":null}]}}`, string(b))

	up := wireRequest(t, update(skillName, sess, "set_duration", map[string]string{"minutes": "five"}, "five minutes"))
	resp, err = s.Handle(ctx, up)
	require.NoError(t, err)
	resp = wireResponse(t, resp)
	require.Equal(t, protocol.TypeSkillAction, resp.Type, "%+v", resp.Error)
	assert.Equal(t, []string{"Timer set for five minutes."}, esmlOf(t, resp.Action.Action))
	assert.Nil(t, resp.Action.Analytics, "Skill Entry is reported at launch only")
	assert.Equal(t, []string{"[0,Answered]", "[1,null]"}, trace(resp.Action.Skill.Session))
	assert.Equal(t, sess.ID, resp.Action.Skill.Session.ID)

	// The robot acknowledges the announcement with an update; the graph ends.
	resp, err = s.Handle(ctx, wireRequest(t, update(skillName, resp.Action.Skill.Session, "", nil, "")))
	require.NoError(t, err)
	resp = wireResponse(t, resp)
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	assert.Equal(t, "null", string(resp.Action.Action), "graph done: action null")
	assert.True(t, *resp.Action.Final)
	assert.True(t, *resp.Action.FireAndForget)
}

func TestSkillProactiveLaunchIsNotUserInitiated(t *testing.T) {
	s := newSkill(t, timerGraph(t))
	req := protocol.NewProactiveLaunch(robotContext(skillName), json.RawMessage(`{"entry":"alarm"}`))
	resp, err := s.Handle(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	entry, err := resp.Action.Analytics[skillName][0].SkillEntry()
	require.NoError(t, err)
	assert.False(t, entry.WasHeyJiboLaunch)
	assert.False(t, entry.UserInitiated)
}

func TestSkillFinalNodeAndRedirect(t *testing.T) {
	ctx := context.Background()
	t.Run("final action", func(t *testing.T) {
		g := graph.New("g", "Success")
		bye := graph.JCP("bye", func(context.Context, *graph.Data) (*jcp.Action, error) {
			return jcp.NewAction(jcp.Say("Bye.")), nil
		}, nil, "Done").Final()
		require.NoError(t, g.AddNode(bye, graph.ToExit("Done", "Success")))
		resp, err := newSkill(t, g).Handle(ctx, launch(skillName, "x", "x"))
		require.NoError(t, err)
		require.Equal(t, protocol.TypeSkillAction, resp.Type)
		assert.True(t, *resp.Action.Final, "final comes from the node")
		assert.False(t, *resp.Action.FireAndForget)
	})
	t.Run("redirect on enter", func(t *testing.T) {
		g := graph.New("g", "Success")
		hand := graph.Default("handoff", func(context.Context, *graph.Data) (graph.EnterResult, error) {
			return graph.EnterResult{Redirect: &graph.Redirect{SkillID: "chitchat",
				Memo: json.RawMessage(`{"mim":"OI_JBO_Likes","type":"ScriptedResponse"}`)}}, nil
		})
		require.NoError(t, g.AddNode(hand, graph.ToExit("Done", "Success")))
		resp, err := newSkill(t, g).Handle(ctx, launch(skillName, "chat", "do you like cats"))
		require.NoError(t, err)
		resp = wireResponse(t, resp)
		require.Equal(t, protocol.TypeSkillRedirect, resp.Type)
		r := resp.Redirect
		assert.Equal(t, "chitchat", r.SkillID)
		assert.JSONEq(t, `{"mim":"OI_JBO_Likes","type":"ScriptedResponse"}`, string(r.Memo))
		assert.Equal(t, "do you like cats", r.ASR.Text, "the utterance is carried over")
		assert.Equal(t, []string{"[0,null]"}, trace(r.Skill.Session))
	})
	t.Run("redirect on exit", func(t *testing.T) {
		g := graph.New("g", "Success")
		n := graph.Func("n", []string{"Done"}, nil, func(context.Context, *graph.Data) (graph.ExitResult, error) {
			return graph.ExitResult{Redirect: &graph.Redirect{SkillID: "weather"}}, nil
		})
		require.NoError(t, g.AddNode(n, graph.ToExit("Done", "Success")))
		resp, err := newSkill(t, g).Handle(ctx, launch(skillName, "x", "x"))
		require.NoError(t, err)
		require.Equal(t, protocol.TypeSkillRedirect, resp.Type)
		assert.Equal(t, "weather", resp.Redirect.SkillID)
	})
}

// §2.3: GraphSkill refuses requests lacking accountID or robotID, or for
// another skill; an update needs a session it knows. Each is an ERROR
// naming the problem.
func TestSkillErrorResponses(t *testing.T) {
	s := newSkill(t, timerGraph(t))
	session := func() *protocol.Session {
		resp, err := s.Handle(context.Background(), launch(skillName, "x", "x"))
		require.NoError(t, err)
		return resp.Action.Skill.Session
	}
	tests := []struct {
		name string
		req  func() *protocol.Request
		want string
	}{
		{"no accountID", func() *protocol.Request {
			r := launch(skillName, "x", "x")
			r.Data.General.AccountID = ""
			return r
		}, "skill timer: refused LISTEN_LAUNCH: data.general.accountID: required"},
		{"no robotID", func() *protocol.Request {
			r := launch(skillName, "x", "x")
			r.Data.General.RobotID = ""
			return r
		}, "skill timer: refused LISTEN_LAUNCH: data.general.robotID: required"},
		{"another skill", func() *protocol.Request { return launch("clock", "x", "x") },
			`skill timer: refused LISTEN_LAUNCH: data.skill.id is "clock", not this skill`},
		{"launch with a session", func() *protocol.Request {
			r := launch(skillName, "x", "x")
			r.Data.Skill.Session = session()
			return r
		}, "session already exists"},
		{"update without session", func() *protocol.Request { return update(skillName, nil, "x", nil, "x") },
			`skill timer: handling LISTEN_UPDATE: graph "timer": no session to continue`},
		{"update at an unknown node", func() *protocol.Request {
			sess := session()
			sess.NodeID = 9
			return update(skillName, sess, "x", nil, "x")
		}, `graph "timer": node 9: session nodeID is not a node of this graph`},
		{"session data not an object", func() *protocol.Request {
			sess := session()
			sess.Data = json.RawMessage(`"text"`)
			return update(skillName, sess, "x", nil, "x")
		}, "bad session data: data is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := s.Handle(context.Background(), tt.req())
			require.NoError(t, err)
			resp = wireResponse(t, resp)
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Contains(t, resp.Error.Message, tt.want)
		})
	}
}

func TestSkillNodeFailuresAreErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		enter graph.EnterFunc
		want  string
	}{
		{"error", func(context.Context, *graph.Data) (graph.EnterResult, error) {
			return graph.EnterResult{}, errors.New("the kitchen is on fire")
		}, `skill timer: handling LISTEN_LAUNCH: graph "g": node 0 "n": enter: the kitchen is on fire`},
		{"panic", func(context.Context, *graph.Data) (graph.EnterResult, error) {
			panic("boom")
		}, "skill timer: handling LISTEN_LAUNCH: panic: boom"},
		{"invalid action", func(context.Context, *graph.Data) (graph.EnterResult, error) {
			return graph.EnterResult{Action: jcp.NewAction(jcp.Sequence())}, nil
		}, "skill timer: handling LISTEN_LAUNCH: node 0: build SKILL_ACTION: config.jcp.children: must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New("g", "Success")
			require.NoError(t, g.AddNode(graph.Default("n", tt.enter), graph.ToExit("Done", "Success")))
			resp, err := newSkill(t, g).Handle(ctx, launch(skillName, "x", "x"))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Equal(t, tt.want, resp.Error.Message)
			assert.NotContains(t, resp.Error.Message, "goroutine", "no stack in a response")
		})
	}
}

// §4 supplemental injection: SEQUENCE[...seq, main], then
// PARALLEL[...par, previous] with succeedOnFirst false.
func TestSupplementalBehaviourOrder(t *testing.T) {
	person := func(id string) jcp.Behavior {
		return &jcp.SetPresentPerson{Base: jcp.Base{ID: "spp-" + id}, LooperID: id, Source: jcp.SourceVoice, Confidence: 50}
	}
	emotion := &jcp.ImpactEmotion{Base: jcp.Base{ID: "emo"}, Valence: jcp.ImpactLowPos}
	tests := []struct {
		name string
		seq  []jcp.Behavior
		par  []jcp.Behavior
		want string // the shape of the root: type(children...)
	}{
		{"none", nil, nil, "SLIM"},
		{"sequence only", []jcp.Behavior{person("a"), person("b")}, nil, "SEQUENCE(spp-a,spp-b,SLIM)"},
		{"parallel only", nil, []jcp.Behavior{emotion}, "PARALLEL(emo,SLIM)"},
		{"both", []jcp.Behavior{person("a")}, []jcp.Behavior{emotion, person("c")},
			"PARALLEL(emo,spp-c,SEQUENCE(spp-a,SLIM))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := graph.JCP("n", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
				for _, b := range tt.seq {
					d.AddSequenceBehavior(b)
				}
				for _, b := range tt.par {
					d.AddParallelBehavior(b)
				}
				return jcp.NewAction(jcp.Say("Hello.")), nil
			}, nil, "Done")
			g := graph.New("g", "Success")
			require.NoError(t, g.AddNode(n, graph.ToExit("Done", "Success")))
			resp, err := newSkill(t, g).Handle(context.Background(), launch(skillName, "x", "x"))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type, "%+v", resp.Error)
			a, err := jcp.ParseAction(resp.Action.Action)
			require.NoError(t, err)
			assert.Equal(t, tt.want, shape(a.Behavior))
			if p, ok := a.Behavior.(*jcp.ParallelBehavior); ok {
				assert.False(t, p.SucceedOnFirst)
			}
		})
	}
}

// shape renders a behaviour tree by type, naming leaves other than SLIMs
// by id.
func shape(b jcp.Behavior) string {
	kids := func(cs []jcp.Behavior) string {
		s := ""
		for i, c := range cs {
			if i > 0 {
				s += ","
			}
			s += shape(c)
		}
		return s
	}
	switch x := b.(type) {
	case *jcp.SequenceBehavior:
		return "SEQUENCE(" + kids(x.Children) + ")"
	case *jcp.ParallelBehavior:
		return "PARALLEL(" + kids(x.Children) + ")"
	case *jcp.SLIM:
		return "SLIM"
	}
	return b.BehaviorID()
}

func TestSupplementLeavesTheActionAlone(t *testing.T) {
	slim := jcp.Say("Hi.")
	a := jcp.NewAction(slim)
	out := graph.Supplement(a, graph.Behaviors{Sequence: []jcp.Behavior{&jcp.ImpactEmotion{Base: jcp.Base{ID: "e"}, Valence: jcp.ImpactNone}}})
	assert.Same(t, slim, a.Behavior, "the node's action is not changed")
	assert.NotSame(t, a, out)
	assert.Same(t, a, graph.Supplement(a, graph.Behaviors{}))
	assert.Nil(t, graph.Supplement(nil, graph.Behaviors{}))
}

func TestNewSkillChecksTheGraph(t *testing.T) {
	_, err := graph.NewSkill(skillName, graph.New("g", "Success"), graph.Options{})
	assert.ErrorIs(t, err, graph.ErrNoInitial)
	_, err = graph.NewSkill(skillName, nil, graph.Options{})
	assert.Error(t, err)
	_, err = graph.NewSkill("", timerGraph(t), graph.Options{})
	assert.Error(t, err)

	s := newSkill(t, timerGraph(t))
	assert.True(t, s.Graph().Finalized(), "NewSkill finalizes the graph")
	id, ok := s.Manager().ID(s.Graph(), s.Graph().Initial())
	assert.True(t, ok)
	assert.Equal(t, 0, id)
	assert.Equal(t, skillName, s.Name())
}

func TestSkillObserverSeesEveryTurn(t *testing.T) {
	var got []base.Observation
	s, err := graph.NewSkill(skillName, timerGraph(t), graph.Options{Observe: func(o base.Observation) { got = append(got, o) }})
	require.NoError(t, err)
	_, err = s.Handle(context.Background(), launch(skillName, "x", "x"))
	require.NoError(t, err)
	_, err = s.Handle(context.Background(), update(skillName, nil, "x", nil, "x"))
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, protocol.TypeListenLaunch, got[0].Type)
	assert.Equal(t, protocol.TypeSkillAction, got[0].Response)
	assert.NoError(t, got[0].Err)
	assert.Equal(t, protocol.TypeError, got[1].Response)
	assert.ErrorContains(t, got[1].Err, "no session")
}
