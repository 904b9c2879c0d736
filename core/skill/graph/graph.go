package graph

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// Limits on a graph's construction.
const (
	// MaxNameLen bounds graph, node, transition and exit names in bytes.
	MaxNameLen = 256
	// MaxNodes bounds the nodes of one graph, subgraphs included, and the
	// nodes one Manager numbers.
	MaxNodes = 10000
	// MaxTransitions bounds the transitions of one node and the exits of
	// one graph.
	MaxTransitions = 256
)

// Bind binds a node's transition (or a subgraph's exit) to where it leads.
// Build one with To or ToExit.
type Bind struct {
	transition string
	node       Node
	exit       string
}

// To binds transition to node n, which must be in the graph by Finalize.
func To(transition string, n Node) Bind { return Bind{transition: transition, node: n} }

// ToExit binds transition to the graph's exit named exit.
func ToExit(transition, exit string) Bind { return Bind{transition: transition, exit: exit} }

// target is where a transition leads: a node (v once resolved) or an exit.
type target struct {
	node Node
	v    *vertex
	exit string
}

// vertex is a node's place in a graph: its transitions and where they lead.
// A subgraph's vertices move into the parent, which rebinds their exits.
type vertex struct {
	node  Node
	name  string
	names []string // transitions, in declared order
	edges map[string]target
	owner *Graph // the graph whose AddNode added it (a DOT cluster)
}

// Graph is a set of nodes joined by named transitions, with named exits
// (§4). Build it with New, AddNode, AddSubGraph and SetInitial, then
// Finalize it; a finalized graph is read-only and safe for concurrent use.
//
// Every construction error is returned by the call that caused it, which
// then changes nothing, and again by Finalize, so a builder may check only
// Finalize's error.
type Graph struct {
	name    string
	exits   []string
	exitSet map[string]bool

	order   []*vertex // every node, subgraphs' included, in the order added
	byNode  map[Node]*vertex
	initial Node
	subs    []*Graph // subgraphs added directly

	errs       []error // construction errors so far
	finalized  bool
	embeddedIn *Graph
	registered bool // with some Manager, which may be running it
}

// New starts a graph called name that the skill (or parent graph) leaves
// by one of exits. A bad name or exit list is reported by Finalize.
func New(name string, exits ...string) *Graph {
	g := &Graph{name: name, exitSet: map[string]bool{}, byNode: map[Node]*vertex{}}
	if err := checkName(name); err != nil {
		g.errs = append(g.errs, gerr(name, "", "", "", ErrInvalidName, "graph name: %v", err))
	}
	if len(exits) == 0 {
		g.errs = append(g.errs, gerr(name, "", "", "", ErrNoExits, ""))
	}
	if len(exits) > MaxTransitions {
		g.errs = append(g.errs, gerr(name, "", "", "", ErrTooLarge, "%d exits, limit %d", len(exits), MaxTransitions))
	}
	for _, e := range exits {
		switch {
		case checkName(e) != nil:
			g.errs = append(g.errs, gerr(name, "", "", e, ErrInvalidName, "exit name: %v", checkName(e)))
		case g.exitSet[e]:
			g.errs = append(g.errs, gerr(name, "", "", e, ErrDuplicateExit, ""))
		default:
			g.exitSet[e] = true
			g.exits = append(g.exits, e)
		}
	}
	return g
}

// Name returns the graph's name.
func (g *Graph) Name() string { return g.name }

// Exits returns the graph's exit names in declared order.
func (g *Graph) Exits() []string { return slices.Clone(g.exits) }

// Finalized reports whether Finalize succeeded.
func (g *Graph) Finalized() bool { return g.finalized }

// Initial returns the initial node, nil while there is none.
func (g *Graph) Initial() Node { return g.initial }

// Nodes returns every node, subgraphs' included, in the order added: the
// order in which a Manager numbers them.
func (g *Graph) Nodes() []Node {
	out := make([]Node, len(g.order))
	for i, v := range g.order {
		out[i] = v.node
	}
	return out
}

// fail records a construction error and returns it.
func (g *Graph) fail(err error) error {
	g.errs = append(g.errs, err)
	return err
}

// AddNode adds n with bindings that cover exactly n's transitions, each
// once. The first node added (directly or as a subgraph's initial node)
// becomes the initial node unless SetInitial says otherwise.
func (g *Graph) AddNode(n Node, binds ...Bind) error {
	if g.finalized {
		return gerr(g.name, nameOf(n), "", "", ErrLocked, "cannot add a node")
	}
	v, err := g.newVertex(n)
	if err != nil {
		return g.fail(err)
	}
	declared := make(map[string]bool, len(v.names))
	for _, t := range v.names {
		declared[t] = true
	}
	if err := g.bind(v.name, declared, v.names, binds, func(t string, to target) { v.edges[t] = to }); err != nil {
		return g.fail(err)
	}
	if len(g.order) >= MaxNodes {
		return g.fail(gerr(g.name, v.name, "", "", ErrTooLarge, "%d nodes, limit %d", len(g.order)+1, MaxNodes))
	}
	v.owner = g
	g.order = append(g.order, v)
	g.byNode[n] = v
	if g.initial == nil {
		g.initial = n
	}
	return nil
}

// newVertex checks n and its transitions.
func (g *Graph) newVertex(n Node) (*vertex, error) {
	if n == nil {
		return nil, gerr(g.name, "", "", "", ErrNilNode, "")
	}
	rv := reflect.ValueOf(n)
	if rv.Kind() != reflect.Pointer {
		return nil, gerr(g.name, n.Name(), "", "", ErrNotPointer, "%T", n)
	}
	if rv.IsNil() {
		return nil, gerr(g.name, "", "", "", ErrNilNode, "%T", n)
	}
	name := n.Name()
	if err := checkName(name); err != nil {
		return nil, gerr(g.name, name, "", "", ErrInvalidName, "node name: %v", err)
	}
	if _, dup := g.lookup(n); dup {
		return nil, gerr(g.name, name, "", "", ErrDuplicateNode, "")
	}
	names := slices.Clone(n.Transitions())
	switch {
	case len(names) == 0:
		return nil, gerr(g.name, name, "", "", ErrNoTransitions, "")
	case len(names) > MaxTransitions:
		return nil, gerr(g.name, name, "", "", ErrTooLarge, "%d transitions, limit %d", len(names), MaxTransitions)
	}
	seen := make(map[string]bool, len(names))
	for _, t := range names {
		if err := checkName(t); err != nil {
			return nil, gerr(g.name, name, t, "", ErrInvalidName, "transition name: %v", err)
		}
		if seen[t] {
			return nil, gerr(g.name, name, t, "", ErrDuplicateTransition, "")
		}
		seen[t] = true
	}
	return &vertex{node: n, name: name, names: names, edges: make(map[string]target, len(names))}, nil
}

// bind checks that binds cover exactly declared (listed in order), each
// once, and only then calls set for each; on error nothing is set.
func (g *Graph) bind(node string, declared map[string]bool, order []string, binds []Bind, set func(string, target)) error {
	var errs []error
	bound := make(map[string]target, len(binds))
	for _, b := range binds {
		switch {
		case b.transition == "" || (b.node == nil && b.exit == ""):
			errs = append(errs, gerr(g.name, node, b.transition, "", ErrBadBinding, ""))
			continue
		case !declared[b.transition]:
			errs = append(errs, gerr(g.name, node, b.transition, "", ErrUnknownTransition, "declared: %v", order))
			continue
		}
		if _, dup := bound[b.transition]; dup {
			errs = append(errs, gerr(g.name, node, b.transition, "", ErrDuplicateBinding, ""))
			continue
		}
		bound[b.transition] = target{node: b.node, exit: b.exit}
	}
	for _, t := range order {
		if _, ok := bound[t]; !ok {
			errs = append(errs, gerr(g.name, node, t, "", ErrMissingBinding, ""))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, t := range order {
		set(t, bound[t])
	}
	return nil
}

// SetInitial makes n the node the graph starts in. n must be in the graph
// by Finalize.
func (g *Graph) SetInitial(n Node) error {
	if g.finalized {
		return gerr(g.name, nameOf(n), "", "", ErrLocked, "cannot change the initial node")
	}
	if n == nil {
		return g.fail(gerr(g.name, "", "", "", ErrNilNode, "initial node"))
	}
	g.initial = n
	return nil
}

// AddSubGraph adds the nodes of the finalized graph sub, binding each of
// sub's exits, exactly once, to a node of g (To) or an exit of g (ToExit).
// sub becomes part of g: it cannot be added anywhere else, nor registered
// on its own.
func (g *Graph) AddSubGraph(sub *Graph, binds ...Bind) error {
	if g.finalized {
		return gerr(g.name, "", "", "", ErrLocked, "cannot add a subgraph")
	}
	if sub == nil {
		return g.fail(gerr(g.name, "", "", "", ErrNilNode, "nil subgraph"))
	}
	label := "subgraph " + sub.name
	if !sub.finalized {
		return g.fail(gerr(g.name, label, "", "", ErrNotFinalized, "finalize a subgraph before adding it"))
	}
	if sub.embeddedIn != nil {
		return g.fail(gerr(g.name, label, "", "", ErrExitRebound, "already part of graph %q", sub.embeddedIn.name))
	}
	if sub.registered {
		// Rebinding its exits would change a graph a Manager may be running.
		return g.fail(gerr(g.name, label, "", "", ErrInUse, "build a fresh subgraph"))
	}
	for _, v := range sub.order {
		if _, dup := g.byNode[v.node]; dup {
			return g.fail(gerr(g.name, v.name, "", "", ErrDuplicateNode, "also in %s", label))
		}
	}
	if len(g.order)+len(sub.order) > MaxNodes {
		return g.fail(gerr(g.name, label, "", "", ErrTooLarge, "%d nodes, limit %d", len(g.order)+len(sub.order), MaxNodes))
	}
	rebind := map[string]target{}
	if err := g.bind(label, sub.exitSet, sub.exits, binds, func(e string, to target) { rebind[e] = to }); err != nil {
		return g.fail(err)
	}
	for _, v := range sub.order {
		for t, to := range v.edges {
			if to.exit != "" {
				v.edges[t] = rebind[to.exit]
			}
		}
		g.byNode[v.node] = v
	}
	g.order = append(g.order, sub.order...)
	g.subs = append(g.subs, sub)
	sub.embeddedIn = g
	if g.initial == nil {
		g.initial = sub.initial
	}
	return nil
}

// Finalize checks the graph and locks it: every transition leads to a node
// in the graph or a declared exit, every node is reachable from the
// initial node, every exit is used. It reports every problem found,
// together with any construction error so far. Finalizing a finalized
// graph does nothing.
func (g *Graph) Finalize() error {
	if g.finalized {
		return nil
	}
	if len(g.errs) > 0 {
		return errors.Join(g.errs...)
	}
	if len(g.order) == 0 {
		return gerr(g.name, "", "", "", ErrNoInitial, "add a node")
	}
	start, ok := g.lookup(g.initial)
	if !ok {
		return gerr(g.name, nameOf(g.initial), "", "", ErrInitialNotInGraph, "")
	}
	var errs []error
	resolved := map[*vertex]map[string]*vertex{}
	used := map[string]bool{}
	for _, v := range g.order {
		for _, t := range v.names {
			to := v.edges[t]
			switch {
			case to.exit != "":
				if !g.exitSet[to.exit] {
					errs = append(errs, gerr(g.name, v.name, t, to.exit, ErrUnknownExit, "declared: %v", g.exits))
				}
				used[to.exit] = true
			case to.v != nil:
			default:
				dest, ok := g.lookup(to.node)
				if !ok {
					errs = append(errs, gerr(g.name, v.name, t, "", ErrUnknownDestination, "leads to node %q", nameOf(to.node)))
					continue
				}
				if resolved[v] == nil {
					resolved[v] = map[string]*vertex{}
				}
				resolved[v][t] = dest
			}
		}
	}
	if len(errs) > 0 {
		// Reachability needs every edge resolved; report these first.
		return errors.Join(errs...)
	}
	reached := map[*vertex]bool{start: true}
	queue := []*vertex{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, t := range v.names {
			dest := v.edges[t].v
			if r := resolved[v][t]; r != nil {
				dest = r
			}
			if dest != nil && !reached[dest] {
				reached[dest] = true
				queue = append(queue, dest)
			}
		}
	}
	for _, v := range g.order {
		if !reached[v] {
			errs = append(errs, gerr(g.name, v.name, "", "", ErrUnreachable, "initial node %q", start.name))
		}
	}
	for _, e := range g.exits {
		if !used[e] {
			errs = append(errs, gerr(g.name, "", "", e, ErrUnusedExit, ""))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for v, ts := range resolved {
		for t, dest := range ts {
			to := v.edges[t]
			to.v = dest
			v.edges[t] = to
		}
	}
	g.finalized = true
	return nil
}

// lookup finds n's vertex. Only pointers can be nodes, and only they are
// looked up, since a map lookup panics on incomparable values.
func (g *Graph) lookup(n Node) (*vertex, bool) {
	if n == nil || reflect.ValueOf(n).Kind() != reflect.Pointer {
		return nil, false
	}
	v, ok := g.byNode[n]
	return v, ok
}

// contains reports whether v is one of g's vertices.
func (g *Graph) contains(v *vertex) bool { return g.byNode[v.node] == v }

func checkName(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case len(s) > MaxNameLen:
		return fmt.Errorf("%d bytes, limit %d", len(s), MaxNameLen)
	}
	return nil
}

// nameOf names a node for an error, safely for nil.
func nameOf(n Node) string {
	if n == nil {
		return ""
	}
	if rv := reflect.ValueOf(n); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return ""
	}
	return n.Name()
}
