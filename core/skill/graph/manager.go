package graph

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// MaxVisitsPerTurn bounds the nodes one turn may enter. A turn ends when
// a node produces an action or a redirect or the graph reaches an exit; a
// cycle of nodes that never does fails with ErrVisitLimit instead of
// spinning.
const MaxVisitsPerTurn = 1000

// MaxTraceLen bounds a session's trace; beyond it the oldest entries are
// dropped, so a long conversation keeps its recent history.
const MaxTraceLen = protocol.MaxTraceLen

// Manager numbers the nodes of the graphs registered with it and runs
// turns through them (Pegasus's GraphManager, as an ordinary value).
//
// Node ids are the wire format of session.nodeID. Register numbers a
// graph's nodes from the next free id (0 for the first graph) in the
// graph's order: the order of AddNode calls, a subgraph's nodes taking
// their own order at the point AddSubGraph is called. The same
// construction code therefore gives the same ids in every process, and a
// session stored by one run of jibod continues in the next. Changing the
// order in which a graph is built renumbers it and breaks stored sessions;
// Resume then fails with ErrUnknownNode if the stored id no longer names a
// node of the graph. Change a graph by adding nodes at the end.
//
// A Manager is safe for concurrent use; turns of different sessions run
// independently, since all of a session's state travels in Data.
type Manager struct {
	mu     sync.RWMutex
	graphs map[*Graph]bool
	byID   []*vertex
	ids    map[*vertex]int
}

// Outcome is how a turn ended: with an action for the robot, a redirect,
// or the graph done (it reached one of its exits).
type Outcome struct {
	// Action is the action a node produced (without supplemental
	// behaviours, see Supplement); nil otherwise.
	Action *jcp.Action
	// Final is the node's final flag for Action.
	Final bool
	// Redirect is a node's redirect; nil otherwise.
	Redirect *Redirect
	// Done reports that the graph reached Exit.
	Done bool
	// Exit is the exit reached when Done.
	Exit string
}

// NewManager returns a manager with no graphs.
func NewManager() *Manager {
	return &Manager{graphs: map[*Graph]bool{}, ids: map[*vertex]int{}}
}

// Register numbers g's nodes (see Manager). g must be finalized and not a
// subgraph of another graph.
func (m *Manager) Register(g *Graph) error {
	if g == nil {
		return errors.New("register graph: nil graph")
	}
	switch {
	case !g.finalized:
		return gerr(g.name, "", "", "", ErrNotFinalized, "finalize before registering")
	case g.embeddedIn != nil:
		return gerr(g.name, "", "", "", ErrEmbedded, "register graph %q", g.embeddedIn.name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.graphs[g] {
		return gerr(g.name, "", "", "", ErrAlreadyRegistered, "")
	}
	if n := len(m.byID) + len(g.order); n > MaxNodes {
		return gerr(g.name, "", "", "", ErrTooLarge, "manager would number %d nodes, limit %d", n, MaxNodes)
	}
	for _, v := range g.order {
		m.ids[v] = len(m.byID)
		m.byID = append(m.byID, v)
	}
	m.graphs[g] = true
	g.registered = true
	return nil
}

// ID returns the id of node n of the registered graph g.
func (m *Manager) ID(g *Graph, n Node) (int, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if !m.graphs[g] {
		return 0, false
	}
	v, ok := g.lookup(n)
	if !ok {
		return 0, false
	}
	id, ok := m.ids[v]
	return id, ok
}

// Node returns the node with the given id.
func (m *Manager) Node(id int) (Node, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if id < 0 || id >= len(m.byID) {
		return nil, false
	}
	return m.byID[id].node, true
}

// Start begins a session of g (a launch): it creates {id: uuid, nodeID:
// the initial node's id, data: {}, trace: []} and enters the initial
// node. d must not carry a session (ErrSessionExists).
func (m *Manager) Start(ctx context.Context, g *Graph, d *Data) (Outcome, error) {
	if err := m.registered(g); err != nil {
		return Outcome{}, err
	}
	if d.session != nil {
		return Outcome{}, gerr(g.name, "", "", "", ErrSessionExists, "session %s; a launch starts a new one", d.session.ID)
	}
	start := g.byNode[g.initial]
	d.session = &protocol.Session{ID: newUUID(), NodeID: m.id(start), Data: []byte("{}"), Trace: []protocol.TraceEntry{}}
	d.state = map[string]json.RawMessage{}
	return m.run(ctx, g, d, start, true)
}

// Resume continues d's session of g with the turn in d (an update): the
// node the session waits in is exited, with d.Result holding the turn's
// result.
func (m *Manager) Resume(ctx context.Context, g *Graph, d *Data) (Outcome, error) {
	if err := m.registered(g); err != nil {
		return Outcome{}, err
	}
	if d.session == nil {
		return Outcome{}, gerr(g.name, "", "", "", ErrNoSession, "an update continues the session the skill returned last")
	}
	id := d.session.NodeID
	m.mu.RLock()
	var v *vertex
	if id >= 0 && id < len(m.byID) {
		v = m.byID[id]
	}
	m.mu.RUnlock()
	if v == nil || !g.contains(v) {
		return Outcome{}, &Error{Graph: g.name, NodeID: id, Err: ErrUnknownNode,
			Detail: fmt.Sprintf("session %s; ids follow construction order, so the graph has changed since the session was stored", d.session.ID)}
	}
	return m.run(ctx, g, d, v, false)
}

func (m *Manager) registered(g *Graph) error {
	if g == nil {
		return errors.New("run graph: nil graph")
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if !m.graphs[g] {
		return gerr(g.name, "", "", "", ErrNotRegistered, "")
	}
	return nil
}

func (m *Manager) id(v *vertex) int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.ids[v]
}

// run is enterNode/exitNode/executeTransition of §4 as a loop: enter (if
// enter), stop at an action or redirect, else exit and follow the
// transition, until an action, a redirect or an exit of g.
func (m *Manager) run(ctx context.Context, g *Graph, d *Data, v *vertex, enter bool) (Outcome, error) {
	out, err := m.walk(ctx, g, d, v, enter)
	if err != nil {
		return Outcome{}, err
	}
	if err := d.commit(); err != nil {
		return Outcome{}, &Error{Graph: g.name, NodeID: d.session.NodeID, Err: ErrSessionData, Detail: err.Error()}
	}
	return out, nil
}

func (m *Manager) walk(ctx context.Context, g *Graph, d *Data, v *vertex, enter bool) (Outcome, error) {
	s := d.session
	for visits := 0; ; {
		id := m.id(v)
		if enter {
			if visits++; visits > MaxVisitsPerTurn {
				return Outcome{}, &Error{Graph: g.name, Node: v.name, NodeID: id, Err: ErrVisitLimit,
					Detail: fmt.Sprintf("limit %d; do the nodes form a cycle that never produces an action?", MaxVisitsPerTurn)}
			}
			if err := ctx.Err(); err != nil {
				return Outcome{}, fmt.Errorf("graph %q: entering node %d %q: %w", g.name, id, v.name, err)
			}
			s.NodeID = id
			res, err := v.node.Enter(ctx, d)
			if err != nil {
				return Outcome{}, fmt.Errorf("graph %q: node %d %q: enter: %w", g.name, id, v.name, err)
			}
			s.Trace = append(s.Trace, protocol.TraceEntry{NodeID: id})
			if over := len(s.Trace) - MaxTraceLen; over > 0 {
				s.Trace = append(s.Trace[:0], s.Trace[over:]...)
			}
			switch {
			case res.Redirect != nil && res.Action != nil:
				return Outcome{}, &Error{Graph: g.name, Node: v.name, NodeID: id, Err: ErrBadResult, Detail: "enter"}
			case res.Redirect != nil:
				return Outcome{Redirect: res.Redirect}, nil
			case res.Action != nil:
				return Outcome{Action: res.Action, Final: res.Final}, nil
			}
		}
		enter = true
		res, err := v.node.Exit(ctx, d)
		if err != nil {
			return Outcome{}, fmt.Errorf("graph %q: node %d %q: exit: %w", g.name, id, v.name, err)
		}
		switch {
		case res.Redirect != nil && res.Transition != "":
			return Outcome{}, &Error{Graph: g.name, Node: v.name, NodeID: id, Transition: res.Transition, Err: ErrBadResult, Detail: "exit"}
		case res.Redirect != nil:
			return Outcome{Redirect: res.Redirect}, nil
		case res.Transition == "":
			return Outcome{}, &Error{Graph: g.name, Node: v.name, NodeID: id, Err: ErrNoTransition}
		}
		to, ok := v.edges[res.Transition]
		if !ok {
			return Outcome{}, &Error{Graph: g.name, Node: v.name, NodeID: id, Transition: res.Transition,
				Err: ErrUnregisteredTransition, Detail: fmt.Sprintf("declared: %v", v.names)}
		}
		d.Result = res.Result
		t := res.Transition
		if n := len(s.Trace); n > 0 && s.Trace[n-1].NodeID == id && s.Trace[n-1].Transition == nil {
			s.Trace[n-1].Transition = &t
		} else {
			// The entry for this node was trimmed or the trace was edited:
			// record the transition anyway.
			s.Trace = append(s.Trace, protocol.TraceEntry{NodeID: id, Transition: &t})
		}
		if to.exit != "" {
			return Outcome{Done: true, Exit: to.exit}, nil
		}
		v = to.v
	}
}

// newUUID returns a random RFC 4122 version 4 UUID.
func newUUID() string {
	var b [16]byte
	// crypto/rand.Read never fails; it aborts the program if the system's
	// randomness source does.
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
