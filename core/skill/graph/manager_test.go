package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// portGraph is built so that a conversation reproduces the trace of §4's
// [PORT] example, [0,Success] [8,a] [1,Success] [9,a] [2,NoMatch] [3,null]:
// questions q0..q3 take ids 0-3, side nodes 4-7, silent links 8 and 9.
func portGraph(t *testing.T) *graph.Graph {
	t.Helper()
	q0, q1, q2, q3 := question("q0", "First?"), question("q1", "Second?"), question("q2", "Third?"), question("q3", "Fourth?")
	side := []*graph.NoOpNode{graph.NoOp("s4", "a"), graph.NoOp("s5", "a"), graph.NoOp("s6", "a"), graph.NoOp("s7", "a")}
	l8, l9 := graph.NoOp("l8", "a"), graph.NoOp("l9", "a")
	g := graph.New("g", "Success")
	require.NoError(t, g.AddNode(q0, graph.To("Success", l8), graph.To("NoMatch", side[0])))
	require.NoError(t, g.AddNode(q1, graph.To("Success", l9), graph.To("NoMatch", side[1])))
	require.NoError(t, g.AddNode(q2, graph.To("Success", side[2]), graph.To("NoMatch", q3)))
	require.NoError(t, g.AddNode(q3, graph.To("Success", side[3]), graph.ToExit("NoMatch", "Success")))
	for _, s := range side {
		require.NoError(t, g.AddNode(s, graph.ToExit("a", "Success")))
	}
	require.NoError(t, g.AddNode(l8, graph.To("a", q1)))
	require.NoError(t, g.AddNode(l9, graph.To("a", q2)))
	require.NoError(t, g.Finalize())
	return g
}

// §4 trace: each node entered is recorded with the transition that left
// it, and the node the skill waits in with null; across turns the trace
// grows from the session the robot sends back.
func TestTraceAcrossTurnsReproducesThePortExample(t *testing.T) {
	g := portGraph(t)
	m := graph.NewManager()
	require.NoError(t, m.Register(g))
	ctx := context.Background()

	d := newData(t, launch(skillName, "start", "start"))
	out, err := m.Start(ctx, g, d)
	require.NoError(t, err)
	require.NotNil(t, out.Action)
	assert.Equal(t, []string{"[0,null]"}, trace(d.Session()))

	turns := []struct {
		intent string
		want   []string
	}{
		{"yes", []string{"[0,Success]", "[8,a]", "[1,null]"}},
		{"yes", []string{"[0,Success]", "[8,a]", "[1,Success]", "[9,a]", "[2,null]"}},
		{"", []string{"[0,Success]", "[8,a]", "[1,Success]", "[9,a]", "[2,NoMatch]", "[3,null]"}},
	}
	for _, turn := range turns {
		d = newData(t, update(skillName, d.Session(), turn.intent, nil, "something"))
		out, err = m.Resume(ctx, g, d)
		require.NoError(t, err)
		require.NotNil(t, out.Action, "each question waits for an answer")
		assert.Equal(t, turn.want, trace(d.Session()))
	}
	assert.Equal(t, 3, d.Session().NodeID, "the session waits in q3")
}

func buildWithSub(t *testing.T) *graph.Graph {
	t.Helper()
	sub := graph.New("ask", "Yes", "No")
	q := question("q", "Really?")
	require.NoError(t, sub.AddNode(q, graph.ToExit("Success", "Yes"), graph.ToExit("NoMatch", "No")))
	require.NoError(t, sub.Finalize())

	g := graph.New("main", "Done", "Gave up")
	first := graph.NoOp("first", "Next")
	yes := say("yes", "Great.")
	require.NoError(t, g.AddNode(first, graph.To("Next", q)))
	require.NoError(t, g.AddSubGraph(sub, graph.To("Yes", yes), graph.ToExit("No", "Gave up")))
	require.NoError(t, g.AddNode(yes, graph.ToExit("Done", "Done")))
	require.NoError(t, g.Finalize())
	return g
}

// §4 GraphManager: ids count from 0 in construction order, the same in
// every process (here: every fresh manager), and continue across graphs.
func TestNodeIDsAreDeterministic(t *testing.T) {
	ids := func() map[string]int {
		g := buildWithSub(t)
		m := graph.NewManager()
		require.NoError(t, m.Register(g))
		out := map[string]int{}
		for _, n := range g.Nodes() {
			id, ok := m.ID(g, n)
			require.True(t, ok)
			out[n.Name()] = id
			back, ok := m.Node(id)
			require.True(t, ok)
			assert.Same(t, n, back)
		}
		return out
	}
	first := ids()
	assert.Equal(t, map[string]int{"first": 0, "q": 1, "yes": 2}, first)
	assert.Equal(t, first, ids())

	m := graph.NewManager()
	g1, g2 := buildWithSub(t), portGraph(t)
	require.NoError(t, m.Register(g1))
	require.NoError(t, m.Register(g2))
	id, ok := m.ID(g2, g2.Initial())
	require.True(t, ok)
	assert.Equal(t, 3, id, "a second graph continues the numbering")
	_, ok = m.ID(g1, g2.Initial())
	assert.False(t, ok, "a node is looked up in its own graph")
	_, ok = m.Node(99)
	assert.False(t, ok)
}

func TestRegisterErrors(t *testing.T) {
	m := graph.NewManager()
	unfinished := graph.New("g", "Success")
	assert.ErrorIs(t, m.Register(unfinished), graph.ErrNotFinalized)

	sub := finalizedSub(t, "sub")
	parent := graph.New("parent", "Success")
	require.NoError(t, parent.AddSubGraph(sub, graph.ToExit("Success", "Success")))
	require.NoError(t, parent.Finalize())
	err := m.Register(sub)
	require.ErrorIs(t, err, graph.ErrEmbedded)
	assert.Contains(t, err.Error(), `register graph "parent"`)

	require.NoError(t, m.Register(parent))
	assert.ErrorIs(t, m.Register(parent), graph.ErrAlreadyRegistered)

	other := finalizedSub(t, "other")
	d := newData(t, launch(skillName, "x", "x"))
	_, err = m.Start(context.Background(), other, d)
	assert.ErrorIs(t, err, graph.ErrNotRegistered)
}

// §4 transitions: into a subgraph, out of it by a rebound exit, and to the
// graph's exits; a terminal exit ends the graph.
func TestTransitionsThroughSubgraphAndExits(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		answer   string
		wantExit string
		wantSay  bool
	}{
		{"yes", "", true},
		{"", "Gave up", false},
	}
	for _, tt := range tests {
		t.Run(tt.wantExit, func(t *testing.T) {
			g := buildWithSub(t)
			m := graph.NewManager()
			require.NoError(t, m.Register(g))
			d := newData(t, launch(skillName, "x", "x"))
			out, err := m.Start(ctx, g, d)
			require.NoError(t, err)
			assert.Equal(t, []string{"[0,Next]", "[1,null]"}, trace(d.Session()), "first leads into the subgraph's q")

			d = newData(t, update(skillName, d.Session(), tt.answer, nil, "hm"))
			out, err = m.Resume(ctx, g, d)
			require.NoError(t, err)
			if tt.wantSay {
				require.NotNil(t, out.Action)
				assert.Equal(t, []string{"[0,Next]", "[1,Success]", "[2,null]"}, trace(d.Session()))
				return
			}
			assert.True(t, out.Done)
			assert.Equal(t, tt.wantExit, out.Exit)
			assert.Nil(t, out.Action)
			assert.Equal(t, []string{"[0,Next]", "[1,NoMatch]"}, trace(d.Session()))
		})
	}
}

// §4 executeTransition: data.result is the exit's result, or null; a
// node's Data.Result starts as the request's result.
func TestResultPassing(t *testing.T) {
	var seen []any
	record := func(name string, result any, transition string) *graph.FuncNode {
		return graph.Func(name, []string{transition}, func(_ context.Context, d *graph.Data) (graph.EnterResult, error) {
			seen = append(seen, d.Result)
			return graph.EnterResult{}, nil
		}, func(context.Context, *graph.Data) (graph.ExitResult, error) {
			return graph.ExitResult{Transition: transition, Result: result}, nil
		})
	}
	a := record("a", 42, "Next")
	b := record("b", nil, "Next")
	c := record("c", "unused", "Done")
	g := graph.New("g", "Success")
	require.NoError(t, g.AddNode(a, graph.To("Next", b)))
	require.NoError(t, g.AddNode(b, graph.To("Next", c)))
	require.NoError(t, g.AddNode(c, graph.ToExit("Done", "Success")))
	m := graph.NewManager()
	require.NoError(t, g.Finalize())
	require.NoError(t, m.Register(g))

	req := launch(skillName, "go", "go now")
	d := newData(t, req)
	out, err := m.Start(context.Background(), g, d)
	require.NoError(t, err)
	assert.True(t, out.Done)
	require.Len(t, seen, 3)
	first, ok := seen[0].(protocol.Result)
	require.True(t, ok, "the first node sees the request's result")
	assert.Equal(t, "go now", first.ASR.Text)
	assert.Equal(t, 42, seen[1])
	assert.Nil(t, seen[2], "a nil result arrives as nil")
	assert.Equal(t, "unused", d.Result)
}

// Session data: nodes store state; it is the session's data on the wire,
// read again next turn.
func TestSessionDataSurvivesTurns(t *testing.T) {
	ask := graph.JCP("ask", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		if err := d.Set("asked", map[string]int{"times": 1}); err != nil {
			return nil, err
		}
		return jcp.NewAction(jcp.Question("How long?", "timer/duration")), nil
	}, nil, "Answered")
	check := graph.Func("check", []string{"Done"}, nil, func(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
		var v struct{ Times int }
		ok, err := d.Get("asked", &v)
		if err != nil || !ok {
			return graph.ExitResult{}, errors.New("no state")
		}
		return graph.ExitResult{Transition: "Done", Result: v.Times}, nil
	})
	g := graph.New("g", "Success")
	require.NoError(t, g.AddNode(ask, graph.To("Answered", check)))
	require.NoError(t, g.AddNode(check, graph.ToExit("Done", "Success")))
	require.NoError(t, g.Finalize())
	m := graph.NewManager()
	require.NoError(t, m.Register(g))

	d := newData(t, launch(skillName, "x", "x"))
	_, err := m.Start(context.Background(), g, d)
	require.NoError(t, err)
	s := d.Session()
	assert.JSONEq(t, `{"asked":{"times":1}}`, string(s.Data))
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, s.ID)

	d = newData(t, update(skillName, s, "duration", nil, "five minutes"))
	out, err := m.Resume(context.Background(), g, d)
	require.NoError(t, err)
	assert.True(t, out.Done)
	assert.Equal(t, 1, d.Result)
	assert.Equal(t, s.ID, d.SessionID(), "the session keeps its id")
}

func TestSessionDataLimits(t *testing.T) {
	big := strings.Repeat("x", graph.MaxSessionDataBytes)
	tests := []struct {
		name string
		data string
	}{
		{"not an object", `[1,2]`},
		{"too large", `{"k":"` + big + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &protocol.Session{ID: "s", NodeID: 0, Data: json.RawMessage(tt.data)}
			_, err := graph.NewData(update(skillName, s, "x", nil, "x"), skillName, nil)
			assert.ErrorIs(t, err, graph.ErrSessionData)
		})
	}

	// A node storing too much fails the turn instead of sending it.
	hog := graph.JCP("hog", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		for i := range 3 {
			if err := d.Set(strings.Repeat("k", i+1), big[:graph.MaxSessionDataBytes/2]); err != nil {
				return nil, err
			}
		}
		return jcp.NewAction(jcp.Say("hi")), nil
	}, nil, "Done")
	g := graph.New("g", "Success")
	require.NoError(t, g.AddNode(hog, graph.ToExit("Done", "Success")))
	require.NoError(t, g.Finalize())
	m := graph.NewManager()
	require.NoError(t, m.Register(g))
	_, err := m.Start(context.Background(), g, newData(t, launch(skillName, "x", "x")))
	assert.ErrorIs(t, err, graph.ErrSessionData)
}

// Run-time errors name the graph, node and what went wrong.
func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	single := func(n graph.Node, binds ...graph.Bind) (*graph.Graph, *graph.Manager) {
		g := graph.New("g", "Success")
		require.NoError(t, g.AddNode(n, binds...))
		require.NoError(t, g.Finalize())
		m := graph.NewManager()
		require.NoError(t, m.Register(g))
		return g, m
	}
	tests := []struct {
		name string
		node graph.Node
		want error
		msg  string
	}{
		{"undeclared transition", graph.Func("n", []string{"Done"}, nil, func(context.Context, *graph.Data) (graph.ExitResult, error) {
			return graph.ExitResult{Transition: "Elsewhere"}, nil
		}), graph.ErrUnregisteredTransition, `graph "g": node 0 "n": transition "Elsewhere": node left by an undeclared transition`},
		{"no transition", graph.Func("n", []string{"Done"}, nil, func(context.Context, *graph.Data) (graph.ExitResult, error) {
			return graph.ExitResult{}, nil
		}), graph.ErrNoTransition, `graph "g": node 0 "n": node left by no transition`},
		{"redirect and action", graph.Func("n", []string{"Done"}, func(context.Context, *graph.Data) (graph.EnterResult, error) {
			return graph.EnterResult{Action: jcp.NewAction(jcp.Say("x")), Redirect: &graph.Redirect{SkillID: "other"}}, nil
		}, nil), graph.ErrBadResult, `node 0 "n"`},
		{"redirect and transition", graph.Func("n", []string{"Done"}, nil, func(context.Context, *graph.Data) (graph.ExitResult, error) {
			return graph.ExitResult{Transition: "Done", Redirect: &graph.Redirect{SkillID: "other"}}, nil
		}), graph.ErrBadResult, `node 0 "n"`},
		{"enter fails", graph.Func("n", []string{"Done"}, func(context.Context, *graph.Data) (graph.EnterResult, error) {
			return graph.EnterResult{}, errors.New("no clock")
		}, nil), nil, `graph "g": node 0 "n": enter: no clock`},
		{"JCP node builds nothing", graph.JCP("n", func(context.Context, *graph.Data) (*jcp.Action, error) { return nil, nil }, nil, "Done"),
			nil, `graph "g": node 0 "n": enter: built no action`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, m := single(tt.node, graph.ToExit("Done", "Success"))
			_, err := m.Start(ctx, g, newData(t, launch(skillName, "x", "x")))
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			}
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestStartAndResumeSessionRules(t *testing.T) {
	ctx := context.Background()
	g := buildWithSub(t)
	m := graph.NewManager()
	require.NoError(t, m.Register(g))

	d := newData(t, launch(skillName, "x", "x"))
	_, err := m.Start(ctx, g, d)
	require.NoError(t, err)
	_, err = m.Start(ctx, g, d)
	assert.ErrorIs(t, err, graph.ErrSessionExists, "Start throws if a session exists")

	_, err = m.Resume(ctx, g, newData(t, launch(skillName, "x", "x")))
	assert.ErrorIs(t, err, graph.ErrNoSession)

	stale := d.Session()
	stale.NodeID = 17
	_, err = m.Resume(ctx, g, newData(t, update(skillName, stale, "yes", nil, "yes")))
	require.ErrorIs(t, err, graph.ErrUnknownNode)
	assert.Contains(t, err.Error(), `node 17`)
	assert.Contains(t, err.Error(), "graph has changed")

	// An id of another graph registered with the same manager is no node of g.
	other := portGraph(t)
	require.NoError(t, m.Register(other))
	stale.NodeID = 5
	_, err = m.Resume(ctx, g, newData(t, update(skillName, stale, "yes", nil, "yes")))
	assert.ErrorIs(t, err, graph.ErrUnknownNode)
}

// A cycle of nodes that never produce an action fails after
// MaxVisitsPerTurn visits instead of hanging.
func TestVisitLimit(t *testing.T) {
	visits := 0
	a := graph.Func("a", []string{"Loop", "Out"}, func(context.Context, *graph.Data) (graph.EnterResult, error) {
		visits++
		return graph.EnterResult{}, nil
	}, nil)
	b := graph.NoOp("b", "Back")
	g := graph.New("g", "Success")
	require.NoError(t, g.AddNode(a, graph.To("Loop", b), graph.ToExit("Out", "Success")))
	require.NoError(t, g.AddNode(b, graph.To("Back", a)))
	require.NoError(t, g.Finalize())
	m := graph.NewManager()
	require.NoError(t, m.Register(g))
	_, err := m.Start(context.Background(), g, newData(t, launch(skillName, "x", "x")))
	require.ErrorIs(t, err, graph.ErrVisitLimit)
	assert.Equal(t, graph.MaxVisitsPerTurn/2, visits)
	assert.Contains(t, err.Error(), "cycle")
}

func TestCancelledContextStopsTheWalk(t *testing.T) {
	g := buildWithSub(t)
	m := graph.NewManager()
	require.NoError(t, m.Register(g))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Start(ctx, g, newData(t, launch(skillName, "x", "x")))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestTraceIsBounded(t *testing.T) {
	g := buildWithSub(t)
	m := graph.NewManager()
	require.NoError(t, m.Register(g))
	s := &protocol.Session{ID: "s", NodeID: 1, Data: json.RawMessage(`{}`)}
	for range graph.MaxTraceLen - 1 {
		s.Trace = append(s.Trace, protocol.TraceEntry{NodeID: 0})
	}
	s.Trace = append(s.Trace, protocol.TraceEntry{NodeID: 1})
	d := newData(t, update(skillName, s, "yes", nil, "yes"))
	_, err := m.Resume(context.Background(), g, d)
	require.NoError(t, err)
	got := trace(d.Session())
	require.Len(t, got, graph.MaxTraceLen, "the oldest entries are dropped")
	assert.Equal(t, []string{"[1,Success]", "[2,null]"}, got[len(got)-2:])
}
