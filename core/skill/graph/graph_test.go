package graph_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
)

// valueNode is a node that is not a pointer, which a graph refuses.
type valueNode struct{}

func (valueNode) Name() string          { return "value" }
func (valueNode) Transitions() []string { return []string{"Done"} }
func (valueNode) Enter(context.Context, *graph.Data) (graph.EnterResult, error) {
	return graph.EnterResult{}, nil
}
func (valueNode) Exit(context.Context, *graph.Data) (graph.ExitResult, error) {
	return graph.ExitResult{}, nil
}

// requireGraphErr checks that err matches want and that an *Error in it
// names graph, node and transition as a user would read them.
func requireGraphErr(t *testing.T, err, want error, node, transition string) {
	t.Helper()
	require.ErrorIs(t, err, want)
	var ge *graph.Error
	require.True(t, errors.As(err, &ge), "no *graph.Error in %v", err)
	// errors.As finds the first *Error; find the one wrapping want.
	for _, e := range flatten(err) {
		if errors.As(e, &ge) && errors.Is(ge.Err, want) {
			break
		}
	}
	assert.Equal(t, node, ge.Node, "node in %v", err)
	assert.Equal(t, transition, ge.Transition, "transition in %v", err)
	assert.Contains(t, err.Error(), `graph "g"`)
	if node != "" {
		assert.Contains(t, err.Error(), `node "`+node+`"`)
	}
	if transition != "" {
		assert.Contains(t, err.Error(), `transition "`+transition+`"`)
	}
}

// flatten lists the errors joined in err.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// §4 Graph(name, exits): at least one exit, exits unique, names valid.
func TestNewGraphChecksNameAndExits(t *testing.T) {
	tests := []struct {
		name  string
		graph string
		exits []string
		want  error
		exit  string
	}{
		{"no exits", "g", nil, graph.ErrNoExits, ""},
		{"duplicate exit", "g", []string{"Success", "Success"}, graph.ErrDuplicateExit, "Success"},
		{"empty exit name", "g", []string{""}, graph.ErrInvalidName, ""},
		{"empty graph name", "", []string{"Success"}, graph.ErrInvalidName, ""},
		{"overlong exit name", "g", []string{strings.Repeat("x", graph.MaxNameLen+1)}, graph.ErrInvalidName, strings.Repeat("x", graph.MaxNameLen+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(tt.graph, tt.exits...)
			n := graph.NoOp("n", "Done")
			// The node is fine; the graph's own problem must surface.
			_ = g.AddNode(n, graph.ToExit("Done", "Success"))
			err := g.Finalize()
			require.ErrorIs(t, err, tt.want)
			var ge *graph.Error
			require.ErrorAs(t, err, &ge)
			assert.Equal(t, tt.exit, ge.Exit)
			assert.False(t, g.Finalized())
		})
	}
}

// §4 addNode: the mapping covers exactly the node's transitions, with no
// duplicates; transition names are unique; a failed add changes nothing.
func TestAddNodeErrors(t *testing.T) {
	var nilNode *graph.NoOpNode
	tests := []struct {
		name       string
		node       graph.Node
		binds      []graph.Bind
		want       error
		wantNode   string
		transition string
	}{
		{"nil node", nil, nil, graph.ErrNilNode, "", ""},
		{"typed nil node", nilNode, nil, graph.ErrNilNode, "", ""},
		{"not a pointer", valueNode{}, []graph.Bind{graph.ToExit("Done", "Success")}, graph.ErrNotPointer, "value", ""},
		{"empty node name", graph.NoOp("", "Done"), []graph.Bind{graph.ToExit("Done", "Success")}, graph.ErrInvalidName, "", ""},
		{"no transitions", graph.Func("quiet", nil, nil, nil), nil, graph.ErrNoTransitions, "quiet", ""},
		{"transition declared twice", graph.Func("twice", []string{"A", "A"}, nil, nil),
			[]graph.Bind{graph.ToExit("A", "Success")}, graph.ErrDuplicateTransition, "twice", "A"},
		{"empty transition name", graph.Func("blank", []string{""}, nil, nil), nil, graph.ErrInvalidName, "blank", ""},
		{"binding without target", graph.NoOp("n", "Done"), []graph.Bind{{}}, graph.ErrBadBinding, "n", ""},
		{"binding to nil node", graph.NoOp("n", "Done"), []graph.Bind{graph.To("Done", nil)}, graph.ErrBadBinding, "n", "Done"},
		{"unknown transition", graph.NoOp("n", "Done"),
			[]graph.Bind{graph.ToExit("Done", "Success"), graph.ToExit("Other", "Success")}, graph.ErrUnknownTransition, "n", "Other"},
		{"duplicate binding", graph.NoOp("n", "Done"),
			[]graph.Bind{graph.ToExit("Done", "Success"), graph.ToExit("Done", "Success")}, graph.ErrDuplicateBinding, "n", "Done"},
		{"missing binding", graph.TrueFalse("tf", nil),
			[]graph.Bind{graph.ToExit("True", "Success")}, graph.ErrMissingBinding, "tf", "False"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New("g", "Success")
			err := g.AddNode(tt.node, tt.binds...)
			requireGraphErr(t, err, tt.want, tt.wantNode, tt.transition)
			assert.Empty(t, g.Nodes(), "a failed add adds nothing")
			assert.Nil(t, g.Initial())
			// The error is reported again by Finalize.
			require.ErrorIs(t, g.Finalize(), tt.want)
		})
	}
}

func TestAddNodeTwiceIsRefused(t *testing.T) {
	g := graph.New("g", "Success")
	n := graph.NoOp("n", "Done")
	require.NoError(t, g.AddNode(n, graph.ToExit("Done", "Success")))
	err := g.AddNode(n, graph.ToExit("Done", "Success"))
	requireGraphErr(t, err, graph.ErrDuplicateNode, "n", "")
	assert.Len(t, g.Nodes(), 1)
}

// §4 finalize: every transition leads somewhere real, every node is
// reachable from the initial node, every exit is used.
func TestFinalizeErrors(t *testing.T) {
	tests := []struct {
		name       string
		build      func(g *graph.Graph)
		want       error
		node       string
		transition string
	}{
		{"empty graph", func(*graph.Graph) {}, graph.ErrNoInitial, "", ""},
		{"initial not in graph", func(g *graph.Graph) {
			n := graph.NoOp("n", "Done")
			require.NoError(t, g.AddNode(n, graph.ToExit("Done", "Success")))
			require.NoError(t, g.SetInitial(graph.NoOp("stranger", "Done")))
		}, graph.ErrInitialNotInGraph, "stranger", ""},
		{"destination not in graph", func(g *graph.Graph) {
			require.NoError(t, g.AddNode(graph.NoOp("a", "Next"), graph.To("Next", graph.NoOp("b", "Done"))))
		}, graph.ErrUnknownDestination, "a", "Next"},
		{"undeclared exit", func(g *graph.Graph) {
			require.NoError(t, g.AddNode(graph.TrueFalse("tf", nil), graph.ToExit("True", "Success"), graph.ToExit("False", "Failure")))
		}, graph.ErrUnknownExit, "tf", "False"},
		{"unreachable node", func(g *graph.Graph) {
			require.NoError(t, g.AddNode(graph.NoOp("a", "Done"), graph.ToExit("Done", "Success")))
			require.NoError(t, g.AddNode(graph.NoOp("island", "Done"), graph.ToExit("Done", "Success")))
		}, graph.ErrUnreachable, "island", ""},
		{"unused exit", func(g *graph.Graph) {
			require.NoError(t, g.AddNode(graph.NoOp("a", "Done"), graph.ToExit("Done", "Success")))
		}, graph.ErrUnusedExit, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exits := []string{"Success"}
			if tt.want == graph.ErrUnusedExit {
				exits = append(exits, "Cancelled")
			}
			g := graph.New("g", exits...)
			tt.build(g)
			err := g.Finalize()
			requireGraphErr(t, err, tt.want, tt.node, tt.transition)
			assert.False(t, g.Finalized())
		})
	}
}

func TestFinalizeReportsEveryProblem(t *testing.T) {
	g := graph.New("g", "Success", "Unused1", "Unused2")
	require.NoError(t, g.AddNode(graph.NoOp("a", "Done"), graph.ToExit("Done", "Success")))
	err := g.Finalize()
	require.Len(t, flatten(err), 2)
	assert.Contains(t, err.Error(), `exit "Unused1"`)
	assert.Contains(t, err.Error(), `exit "Unused2"`)
}

func TestFinalizedGraphIsLocked(t *testing.T) {
	g := graph.New("g", "Success")
	a := graph.NoOp("a", "Done")
	require.NoError(t, g.AddNode(a, graph.ToExit("Done", "Success")))
	require.NoError(t, g.Finalize())
	require.NoError(t, g.Finalize(), "finalizing twice is harmless")

	requireGraphErr(t, g.AddNode(graph.NoOp("late", "Done"), graph.ToExit("Done", "Success")), graph.ErrLocked, "late", "")
	requireGraphErr(t, g.SetInitial(a), graph.ErrLocked, "a", "")
	sub := finalizedSub(t, "sub")
	requireGraphErr(t, g.AddSubGraph(sub, graph.ToExit("Success", "Success")), graph.ErrLocked, "", "")
	assert.Len(t, g.Nodes(), 1)
}

func TestSetInitial(t *testing.T) {
	g := graph.New("g", "Success")
	a, b := graph.NoOp("a", "Done"), graph.NoOp("b", "Done")
	require.NoError(t, g.AddNode(a, graph.To("Done", b)))
	require.NoError(t, g.AddNode(b, graph.ToExit("Done", "Success")))
	assert.Same(t, a, g.Initial(), "the first node added is initial")
	require.NoError(t, g.SetInitial(b))
	// a is now unreachable from b.
	requireGraphErr(t, g.Finalize(), graph.ErrUnreachable, "a", "")
}

// finalizedSub is a finalized graph "name" of one question node with exits
// Success and NoMatch... bound to Success only via a join node.
func finalizedSub(t *testing.T, name string) *graph.Graph {
	t.Helper()
	sub := graph.New(name, "Success")
	require.NoError(t, sub.AddNode(graph.NoOp(name+"-node", "Done"), graph.ToExit("Done", "Success")))
	require.NoError(t, sub.Finalize())
	return sub
}

// §4 addSubGraph: the subgraph is finalized, its exits bound exactly once,
// and an exit already bound cannot be bound again.
func TestAddSubGraphErrors(t *testing.T) {
	twoExits := func(t *testing.T) *graph.Graph {
		sub := graph.New("sub", "Yes", "No")
		require.NoError(t, sub.AddNode(graph.TrueFalse("ask", nil), graph.ToExit("True", "Yes"), graph.ToExit("False", "No")))
		require.NoError(t, sub.Finalize())
		return sub
	}
	target := graph.NoOp("after", "Done")
	tests := []struct {
		name  string
		sub   func(t *testing.T) *graph.Graph
		binds []graph.Bind
		want  error
		node  string
		trans string
	}{
		{"nil subgraph", func(*testing.T) *graph.Graph { return nil }, nil, graph.ErrNilNode, "", ""},
		{"not finalized", func(*testing.T) *graph.Graph { return graph.New("sub", "Yes") }, nil, graph.ErrNotFinalized, "subgraph sub", ""},
		{"exit not bound", twoExits, []graph.Bind{graph.To("Yes", target)}, graph.ErrMissingBinding, "subgraph sub", "No"},
		{"unknown exit", twoExits, []graph.Bind{graph.To("Yes", target), graph.To("No", target), graph.To("Maybe", target)},
			graph.ErrUnknownTransition, "subgraph sub", "Maybe"},
		{"exit bound twice", twoExits, []graph.Bind{graph.To("Yes", target), graph.To("No", target), graph.To("No", target)},
			graph.ErrDuplicateBinding, "subgraph sub", "No"},
		{"exit already bound elsewhere", func(t *testing.T) *graph.Graph {
			sub := twoExits(t)
			other := graph.New("other", "Done")
			require.NoError(t, other.AddSubGraph(sub, graph.ToExit("Yes", "Done"), graph.ToExit("No", "Done")))
			return sub
		}, []graph.Bind{graph.To("Yes", target), graph.To("No", target)}, graph.ErrExitRebound, "subgraph sub", ""},
		{"registered with a manager", func(t *testing.T) *graph.Graph {
			sub := twoExits(t)
			require.NoError(t, graph.NewManager().Register(sub))
			return sub
		}, []graph.Bind{graph.To("Yes", target), graph.To("No", target)}, graph.ErrInUse, "subgraph sub", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New("g", "Success")
			err := g.AddSubGraph(tt.sub(t), tt.binds...)
			requireGraphErr(t, err, tt.want, tt.node, tt.trans)
			assert.Empty(t, g.Nodes(), "a failed add adds nothing")
		})
	}
}

func TestAddSubGraphTwiceIsRefused(t *testing.T) {
	g := graph.New("g", "Success")
	sub := finalizedSub(t, "sub")
	require.NoError(t, g.AddSubGraph(sub, graph.ToExit("Success", "Success")))
	requireGraphErr(t, g.AddSubGraph(sub, graph.ToExit("Success", "Success")), graph.ErrExitRebound, "subgraph sub", "")
	assert.Len(t, g.Nodes(), 1)
}

func TestAddSubGraphWithANodeAlreadyInTheGraph(t *testing.T) {
	shared := graph.NoOp("shared", "Done")
	sub := graph.New("sub", "Success")
	require.NoError(t, sub.AddNode(shared, graph.ToExit("Done", "Success")))
	require.NoError(t, sub.Finalize())
	g := graph.New("g", "Success")
	require.NoError(t, g.AddNode(shared, graph.ToExit("Done", "Success")))
	requireGraphErr(t, g.AddSubGraph(sub, graph.ToExit("Success", "Success")), graph.ErrDuplicateNode, "shared", "")
}

func TestSubGraphNodesJoinTheParent(t *testing.T) {
	sub := finalizedSub(t, "sub")
	g := graph.New("g", "Success")
	require.NoError(t, g.AddSubGraph(sub, graph.ToExit("Success", "Success")))
	require.NoError(t, g.Finalize())
	require.Len(t, g.Nodes(), 1)
	assert.Equal(t, "sub-node", g.Nodes()[0].Name())
	assert.Same(t, g.Nodes()[0], g.Initial(), "a first subgraph's initial node is the graph's")
}

func TestErrorMessageNamesEverything(t *testing.T) {
	g := graph.New("timer", "Success")
	err := g.AddNode(graph.TrueFalse("HasDuration", nil), graph.ToExit("True", "Success"))
	assert.EqualError(t, err, `graph "timer": node "HasDuration": transition "False": transition not bound`)
}
