package graph

import (
	"errors"
	"fmt"
	"strings"
)

// Construction errors: AddNode, AddSubGraph, SetInitial and Finalize
// report these, wrapped in an *Error naming the graph, node, transition or
// exit concerned.
var (
	// ErrInvalidName: a graph, node, transition or exit name is empty or
	// longer than MaxNameLen.
	ErrInvalidName = errors.New("invalid name")
	// ErrNoExits: a graph declares no exit.
	ErrNoExits = errors.New("graph declares no exit")
	// ErrDuplicateExit: a graph declares an exit twice.
	ErrDuplicateExit = errors.New("exit declared twice")
	// ErrNilNode: a nil node (or graph) was passed.
	ErrNilNode = errors.New("nil node")
	// ErrNotPointer: a node is not a pointer; nodes are told apart by
	// identity, so each must be a distinct pointer.
	ErrNotPointer = errors.New("node is not a pointer")
	// ErrNoTransitions: a node declares no transition, so it could never
	// be left.
	ErrNoTransitions = errors.New("node declares no transition")
	// ErrDuplicateTransition: a node declares a transition name twice.
	ErrDuplicateTransition = errors.New("transition declared twice")
	// ErrDuplicateNode: the node is already in the graph.
	ErrDuplicateNode = errors.New("node already in the graph")
	// ErrLocked: the graph is finalized and takes no more changes.
	ErrLocked = errors.New("graph is finalized")
	// ErrBadBinding: a binding has no transition name or no target; build
	// bindings with To and ToExit.
	ErrBadBinding = errors.New("binding needs a transition and a target")
	// ErrUnknownTransition: a binding names a transition the node (or an
	// exit the subgraph) does not declare.
	ErrUnknownTransition = errors.New("binding names an undeclared transition")
	// ErrDuplicateBinding: a transition is bound twice in one call.
	ErrDuplicateBinding = errors.New("transition bound twice")
	// ErrMissingBinding: a declared transition (or subgraph exit) is not
	// bound; bindings must cover exactly what is declared.
	ErrMissingBinding = errors.New("transition not bound")
	// ErrNotFinalized: a subgraph, or a graph given to a Manager or to
	// WriteDOT, is not finalized.
	ErrNotFinalized = errors.New("graph is not finalized")
	// ErrExitRebound: the subgraph is already part of a graph, its exits
	// bound there; an exit cannot be bound again.
	ErrExitRebound = errors.New("subgraph exits already bound")
	// ErrInUse: the graph is registered with a Manager, so it cannot
	// become a subgraph.
	ErrInUse = errors.New("graph is registered with a manager")
	// ErrNoInitial: the graph has no node.
	ErrNoInitial = errors.New("graph has no initial node")
	// ErrInitialNotInGraph: SetInitial named a node the graph lacks.
	ErrInitialNotInGraph = errors.New("initial node is not in the graph")
	// ErrUnknownDestination: a transition leads to a node not in the graph.
	ErrUnknownDestination = errors.New("transition leads to a node outside the graph")
	// ErrUnknownExit: a transition leads to an exit the graph does not
	// declare.
	ErrUnknownExit = errors.New("transition leads to an undeclared exit")
	// ErrUnreachable: a node cannot be reached from the initial node.
	ErrUnreachable = errors.New("node unreachable from the initial node")
	// ErrUnusedExit: no transition leads to a declared exit.
	ErrUnusedExit = errors.New("exit used by no transition")
	// ErrTooLarge: a graph or manager is over MaxNodes, or a node over
	// MaxTransitions.
	ErrTooLarge = errors.New("over the limit")
)

// Manager errors: registering graphs and running turns.
var (
	// ErrNotRegistered: the graph was not registered with the Manager.
	ErrNotRegistered = errors.New("graph not registered with this manager")
	// ErrAlreadyRegistered: the graph is already registered.
	ErrAlreadyRegistered = errors.New("graph already registered")
	// ErrEmbedded: the graph is a subgraph of another; register that one.
	ErrEmbedded = errors.New("graph is a subgraph of another graph")
	// ErrSessionExists: a launch came with a session; Start begins a new
	// one only.
	ErrSessionExists = errors.New("session already exists")
	// ErrNoSession: an update came without a session to continue.
	ErrNoSession = errors.New("no session to continue")
	// ErrUnknownNode: a session's nodeID is not a node of the graph. Node
	// ids follow construction order, so a graph built differently than when
	// the session was stored cannot continue it.
	ErrUnknownNode = errors.New("session nodeID is not a node of this graph")
	// ErrUnregisteredTransition: a node's Exit returned a transition the
	// node does not declare.
	ErrUnregisteredTransition = errors.New("node left by an undeclared transition")
	// ErrNoTransition: a node's Exit returned neither a transition nor a
	// redirect.
	ErrNoTransition = errors.New("node left by no transition")
	// ErrBadResult: a node's Enter or Exit returned both a redirect and an
	// action or transition.
	ErrBadResult = errors.New("node returned both a redirect and an action or transition")
	// ErrVisitLimit: one turn entered more than MaxVisitsPerTurn nodes
	// without one producing an action (a cycle of silent nodes).
	ErrVisitLimit = errors.New("too many nodes visited in one turn")
	// ErrSessionData: session data is not a JSON object, or over
	// MaxSessionDataBytes.
	ErrSessionData = errors.New("bad session data")
)

// ErrNoGraphviz: RenderPNG found no Graphviz "dot" program.
var ErrNoGraphviz = errors.New("graphviz (dot) is not installed")

// Error locates a graph error. errors.Is matches its Err (one of the
// sentinels above); errors.As finds the location.
type Error struct {
	// Graph is the graph's name.
	Graph string
	// Node is the node's name, "" when no node is concerned.
	Node string
	// NodeID is the node's id in a Manager, -1 when unknown.
	NodeID int
	// Transition is the transition (or subgraph exit) concerned, "" if none.
	Transition string
	// Exit is the graph exit concerned, "" if none.
	Exit string
	// Err is the sentinel.
	Err error
	// Detail adds what the sentinel cannot say, "" if nothing.
	Detail string
}

// Error names the graph, node, transition and exit, then the problem.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph %q", e.Graph)
	switch {
	case e.NodeID >= 0 && e.Node != "":
		fmt.Fprintf(&b, ": node %d %q", e.NodeID, e.Node)
	case e.NodeID >= 0:
		fmt.Fprintf(&b, ": node %d", e.NodeID)
	case e.Node != "":
		fmt.Fprintf(&b, ": node %q", e.Node)
	}
	if e.Transition != "" {
		fmt.Fprintf(&b, ": transition %q", e.Transition)
	}
	if e.Exit != "" {
		fmt.Fprintf(&b, ": exit %q", e.Exit)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// gerr builds an *Error with no node id.
func gerr(graph, node, transition, exit string, err error, detail string, args ...any) *Error {
	if len(args) > 0 {
		detail = fmt.Sprintf(detail, args...)
	}
	return &Error{Graph: graph, Node: node, NodeID: -1, Transition: transition, Exit: exit, Err: err, Detail: detail}
}
