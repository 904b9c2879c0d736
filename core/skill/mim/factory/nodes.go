package factory

import (
	"context"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/jcp"
)

// anNode plays one announcement (AN:SL:x) and leaves by Success.
type anNode struct {
	name  string
	r     *runner
	fresh bool // the factory's first node: FromSetBy chooses anew
}

func (n *anNode) Name() string          { return n.name }
func (n *anNode) Transitions() []string { return []string{Success} }

func (n *anNode) Enter(ctx context.Context, d *graph.Data) (graph.EnterResult, error) {
	ms, err := n.r.mims(ctx, d, oneOf(mim.Announcement), n.fresh)
	if err != nil {
		return graph.EnterResult{}, err
	}
	a, _, err := n.r.slim(ctx, d, ms[0], mim.Config{Category: mim.EntryCore, SubCategory: mim.AN})
	if err != nil {
		return graph.EnterResult{}, err
	}
	final, err := n.r.final(ctx, d)
	if err != nil {
		return graph.EnterResult{}, err
	}
	return graph.EnterResult{Action: a, Final: final}, nil
}

func (n *anNode) Exit(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	return graph.ExitResult{Transition: Success, Result: d.Result}, nil
}

// manNode plays several announcements as one SEQUENCE (MAN:SL:x) and
// leaves by Success.
type manNode struct {
	name  string
	r     *runner
	fresh bool // the factory's first node: FromSetBy chooses anew
}

func (n *manNode) Name() string          { return n.name }
func (n *manNode) Transitions() []string { return []string{Success} }

func (n *manNode) Enter(ctx context.Context, d *graph.Data) (graph.EnterResult, error) {
	if err := SetState(d, mim.DialogState{}); err != nil {
		return graph.EnterResult{}, err
	}
	ms, err := n.r.mims(ctx, d, announcements, n.fresh)
	if err != nil {
		return graph.EnterResult{}, err
	}
	pd, err := n.r.promptData(ctx, d)
	if err != nil {
		return graph.EnterResult{}, err
	}
	seq, _, err := n.r.slimmer.Sequence(ms, pd)
	if err != nil {
		return graph.EnterResult{}, err
	}
	final, err := n.r.final(ctx, d)
	if err != nil {
		return graph.EnterResult{}, err
	}
	return graph.EnterResult{Action: jcp.NewAction(seq), Final: final}, nil
}

func (n *manNode) Exit(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	return graph.ExitResult{Transition: Success, Result: d.Result}, nil
}

// listening is what a question MIM may be.
var listening = oneOf(mim.Question, mim.OptionalResponse)

// qnNode asks (QN:SL:x): it resets the dialogue state, plays an
// Entry-Core question prompt and leaves by the answer.
type qnNode struct {
	name  string
	r     *runner
	fresh bool // the factory's first node: FromSetBy chooses anew
}

func (n *qnNode) Name() string          { return n.name }
func (n *qnNode) Transitions() []string { return []string{Success, NoMatch, NoInput} }

func (n *qnNode) Enter(ctx context.Context, d *graph.Data) (graph.EnterResult, error) {
	if err := SetState(d, mim.DialogState{}); err != nil {
		return graph.EnterResult{}, err
	}
	ms, err := n.r.mims(ctx, d, listening, n.fresh)
	if err != nil {
		return graph.EnterResult{}, err
	}
	a, _, err := n.r.slim(ctx, d, ms[0], mim.Entry(ms[0]))
	if err != nil {
		return graph.EnterResult{}, err
	}
	return graph.EnterResult{Action: a}, nil
}

func (n *qnNode) Exit(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	return Answer(d), nil
}

// Exhausted is the result the node after a spent ladder receives
// (Data.Result) in place of the last answer, as in Pegasus: {noMatch: true}
// after the no-match ladder, {noInput: true} after the no-input one.
type Exhausted struct {
	NoMatch bool `json:"noMatch,omitempty"`
	NoInput bool `json:"noInput,omitempty"`
}

// ladderNode is NM:SL:x or NI:SL:x: it counts a no-match (no-input), plays
// the Errors prompt of that index and leaves by the answer, or, when the
// ladder has no prompt left, says nothing and leaves by FinalNoMatch
// (FinalNoInput) with Exhausted as the result.
type ladderNode struct {
	name    string
	r       *runner
	noInput bool
}

func (n *ladderNode) Name() string { return n.name }

func (n *ladderNode) Transitions() []string {
	if n.noInput {
		return []string{Success, NoMatch, NoInput, FinalNoInput}
	}
	return []string{Success, NoMatch, NoInput, FinalNoMatch}
}

func (n *ladderNode) Enter(ctx context.Context, d *graph.Data) (graph.EnterResult, error) {
	st, err := State(d)
	if err != nil {
		return graph.EnterResult{}, err
	}
	var cfg mim.Config
	if n.noInput {
		st.NoInput++
		cfg = mim.NoInputConfig(st)
	} else {
		st.NoMatch++
		cfg = mim.NoMatchConfig(st)
	}
	ms, err := n.r.mims(ctx, d, listening, false)
	if err != nil {
		return graph.EnterResult{}, err
	}
	a, st, err := n.r.slim(ctx, d, ms[0], cfg)
	if err != nil {
		return graph.EnterResult{}, err
	}
	if err := SetState(d, st); err != nil {
		return graph.EnterResult{}, err
	}
	return graph.EnterResult{Action: a}, nil
}

func (n *ladderNode) Exit(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	st, err := State(d)
	if err != nil {
		return graph.ExitResult{}, err
	}
	switch {
	case n.noInput && st.NoInputMax:
		return graph.ExitResult{Transition: FinalNoInput, Result: Exhausted{NoInput: true}}, nil
	case !n.noInput && st.NoMatchMax:
		return graph.ExitResult{Transition: FinalNoMatch, Result: Exhausted{NoMatch: true}}, nil
	}
	return Answer(d), nil
}

// Transitions of the MIM factory's router.
const (
	RouteQuestion     = "Question"
	RouteAnnouncement = "Announcement"
)

// routerNode (Router:x) loads the turn's one MIM and goes on by its type.
type routerNode struct {
	name string
	r    *runner
}

func (n *routerNode) Name() string          { return n.name }
func (n *routerNode) Transitions() []string { return []string{RouteQuestion, RouteAnnouncement} }

func (n *routerNode) Enter(context.Context, *graph.Data) (graph.EnterResult, error) {
	return graph.EnterResult{}, nil
}

func (n *routerNode) Exit(ctx context.Context, d *graph.Data) (graph.ExitResult, error) {
	ms, err := n.r.mims(ctx, d, one, true)
	if err != nil {
		return graph.ExitResult{}, err
	}
	if ms[0].Type.Listens() {
		return graph.ExitResult{Transition: RouteQuestion, Result: d.Result}, nil
	}
	return graph.ExitResult{Transition: RouteAnnouncement, Result: d.Result}, nil
}

// AN is ANFactory: graph "AN MIM: name" whose one node AN:SL:name plays an
// announcement from opts.MIMs (exactly one MIM) and leaves by the exit
// Success, with opts.Final deciding whether the action is the skill's
// last.
func AN(name string, opts Options) (*graph.Graph, error) {
	if err := errors.Join(checkName(name), opts.MIMs.check(oneOf(mim.Announcement))); err != nil {
		return nil, fmt.Errorf("AN factory %s: %w", name, err)
	}
	r := newRunner(name, opts)
	g := graph.New("AN MIM: "+name, Success)
	an := &anNode{name: "AN:SL:" + name, r: r, fresh: true}
	_ = g.AddNode(an, graph.ToExit(Success, Success))
	return finalize(g)
}

// MAN is MANFactory: graph "MAN MIM: name" whose one node MAN:SL:name
// resets the dialogue state and plays every MIM of opts.MIMs (all
// announcements) as one SEQUENCE, then leaves by the exit Success.
func MAN(name string, opts Options) (*graph.Graph, error) {
	if err := errors.Join(checkName(name), opts.MIMs.check(announcements)); err != nil {
		return nil, fmt.Errorf("MAN factory %s: %w", name, err)
	}
	r := newRunner(name, opts)
	g := graph.New("MAN MIM: "+name, Success)
	_ = g.AddNode(&manNode{name: "MAN:SL:" + name, r: r, fresh: true}, graph.ToExit(Success, Success))
	return finalize(g)
}

// QN is QNFactory: graph "QN MIM: name" that asks the question MIM of
// opts.MIMs (QN:SL:name), runs the no-match and no-input ladders (NM:SL:name,
// NI:SL:name) and leaves by Success (an answer with an intent), NoMatch or
// NoInput (a ladder ran out).
func QN(name string, opts Options) (*graph.Graph, error) {
	if err := errors.Join(checkName(name), opts.MIMs.check(listening)); err != nil {
		return nil, fmt.Errorf("QN factory %s: %w", name, err)
	}
	g := graph.New("QN MIM: "+name, Success, NoMatch, NoInput)
	r := newRunner(name, opts)
	addQuestion(g, r, name, &qnNode{name: "QN:SL:" + name, r: r, fresh: true})
	return finalize(g)
}

// addQuestion adds qn and the ladders NM:SL and NI:SL to g, bound to g's
// exits Success, NoMatch and NoInput. Errors surface in Finalize.
func addQuestion(g *graph.Graph, r *runner, name string, qn *qnNode) {
	nm := &ladderNode{name: "NM:SL:" + name, r: r}
	ni := &ladderNode{name: "NI:SL:" + name, r: r, noInput: true}
	_ = g.AddNode(qn, graph.ToExit(Success, Success), graph.To(NoMatch, nm), graph.To(NoInput, ni))
	_ = g.AddNode(nm, graph.ToExit(Success, Success), graph.To(NoMatch, nm), graph.To(NoInput, ni),
		graph.ToExit(FinalNoMatch, NoMatch))
	_ = g.AddNode(ni, graph.ToExit(Success, Success), graph.To(NoMatch, nm), graph.To(NoInput, ni),
		graph.ToExit(FinalNoInput, NoInput))
}

// MIM is MIMFactory: graph "MIM: name" whose router (Router:name) takes
// the turn's one MIM from opts.MIMs and plays it as QN does when it is a
// question or optional-response, as AN does when it is an announcement.
// Exits: Success, NoMatch, NoInput.
func MIM(name string, opts Options) (*graph.Graph, error) {
	if err := errors.Join(checkName(name), opts.MIMs.check(one)); err != nil {
		return nil, fmt.Errorf("MIM factory %s: %w", name, err)
	}
	r := newRunner(name, opts)
	g := graph.New("MIM: "+name, Success, NoMatch, NoInput)
	router := &routerNode{name: "Router:" + name, r: r}
	qn := &qnNode{name: "QN:SL:" + name, r: r}
	an := &anNode{name: "AN:SL:" + name, r: r}
	_ = g.AddNode(router, graph.To(RouteQuestion, qn), graph.To(RouteAnnouncement, an))
	addQuestion(g, r, name, qn)
	_ = g.AddNode(an, graph.ToExit(Success, Success))
	return finalize(g)
}

func finalize(g *graph.Graph) (*graph.Graph, error) {
	if err := g.Finalize(); err != nil {
		return nil, err
	}
	return g, nil
}
