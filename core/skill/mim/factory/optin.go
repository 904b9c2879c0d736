package factory

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// optinMIMs are OptIn's own MIMs.
//
//go:embed optin/*.mim
var optinMIMs embed.FS

// The base MIMs of OptIn, under optin/ of this package.
const (
	ProposalNoIDMIM     = "ProposalNoID"
	ProposalVerifyIDMIM = "ProposalVerifyID"
	WrongIDMIM          = "WrongID"
	DeclineMIM          = "Decline"
)

// OptInType says whether an offer needs to know who is answering. Jibo's
// enum values are unknown; these are ours.
type OptInType string

// The opt-in types.
const (
	// NoID offers to whoever is there.
	NoID OptInType = "NO_ID"
	// VerifyID offers to the person the robot believes is speaking, who
	// may answer that they are someone else.
	VerifyID OptInType = "VERIFY_ID"
)

// Intents the opt-in's answers are read by, besides graph.IntentCancel and
// graph.IntentLoopMember for the wrong-person question.
const (
	IntentYes     = "yes"
	IntentNo      = "no"
	IntentWrongID = "wrongID"
)

// Exits of the opt-in graph.
const (
	Accepted  = "Accepted"
	NotInLoop = "NotInLoop"
	Declined  = "Declined"
)

// OptInStateKey is the session data member where OptIn remembers the offer.
const OptInStateKey = "_optIn"

// OptInState is what OptIn keeps in session.data._optIn.
type OptInState struct {
	// Type is the offer's type.
	Type OptInType `json:"type"`
	// Speaker is the looper id of the person answering: the speaker when
	// the offer was made, or the loop member they said they were; null
	// when unknown.
	Speaker *string `json:"speaker"`
	// Response is the answer to the proposal: the intent (yes, no,
	// wrongID, or another), "noMatch" or "noInput"; "" before it.
	Response string `json:"response"`
}

// OptInStateOf returns the opt-in state of d's session (zero when none).
func OptInStateOf(d *graph.Data) (OptInState, error) {
	var s OptInState
	_, err := d.Get(OptInStateKey, &s)
	return s, err
}

// OptInOptions configure OptIn.
type OptInOptions struct {
	// Options.MIMs is proposalMimProvider: the skill's proposal, one
	// question MIM whose prompts replace the base proposal's (see Unify);
	// the zero MIMSource keeps the base wording. Final is not used: the
	// decline is always the skill's last action. The other options work
	// as for every factory.
	Options
	// Type is optInType; "" means NoID. TypeFunc, when set, decides each
	// turn instead.
	Type     OptInType
	TypeFunc func(ctx context.Context, d *graph.Data) (OptInType, error)
	// Unify merges the base proposal with the skill's; nil is
	// DefaultUnify. Its result is validated.
	Unify func(base, skill *mim.MIM) (*mim.MIM, error)
}

// DefaultUnify gives the base proposal the skill's prompts: the result
// keeps the base's type, rule and everything else (so answers are read as
// yes, no and wrongID), with the skill's prompts when it has any.
func DefaultUnify(base, skill *mim.MIM) (*mim.MIM, error) {
	u := base.Clone()
	if skill != nil && len(skill.Prompts) > 0 {
		u.Prompts = skill.Clone().Prompts
	}
	return u, nil
}

// optIn is what the opt-in's nodes share.
type optIn struct {
	r       *runner
	opts    OptInOptions
	base    map[OptInType]*mim.MIM
	wrongID *mim.MIM
	decline *mim.MIM
}

// proposal returns the turn's proposal MIM for typ.
func (o *optIn) proposal(ctx context.Context, d *graph.Data, typ OptInType) (*mim.MIM, error) {
	base := o.base[typ]
	var skill *mim.MIM
	if !o.opts.MIMs.empty() {
		ms, err := o.r.mims(ctx, d, one, true)
		if err != nil {
			return nil, err
		}
		skill = ms[0]
	}
	unify := o.opts.Unify
	if unify == nil {
		unify = DefaultUnify
	}
	u, err := unify(base, skill)
	if err != nil {
		return nil, fmt.Errorf("unifying proposal %s: %w", base.MimID(), err)
	}
	if u == nil {
		return nil, fmt.Errorf("unifying proposal %s: no MIM", base.MimID())
	}
	if err := u.Validate(); err != nil {
		return nil, fmt.Errorf("unified proposal: %w", err)
	}
	if !u.Type.Listens() {
		return nil, fmt.Errorf("unified proposal %s is a %s, not a question", u.MimID(), u.Type)
	}
	return u, nil
}

// optInRouter (OptIn:Router:x) decides the offer's type, remembers it and
// the speaker, and goes on to the matching proposal.
type optInRouter struct {
	name string
	o    *optIn
}

func (n *optInRouter) Name() string { return n.name }
func (n *optInRouter) Transitions() []string {
	return []string{string(NoID), string(VerifyID)}
}

func (n *optInRouter) Enter(context.Context, *graph.Data) (graph.EnterResult, error) {
	return graph.EnterResult{}, nil
}

func (n *optInRouter) Exit(ctx context.Context, d *graph.Data) (graph.ExitResult, error) {
	typ := n.o.opts.Type
	if n.o.opts.TypeFunc != nil {
		var err error
		if typ, err = n.o.opts.TypeFunc(ctx, d); err != nil {
			return graph.ExitResult{}, fmt.Errorf("opt-in type: %w", err)
		}
	}
	if typ == "" {
		typ = NoID
	}
	if typ != NoID && typ != VerifyID {
		return graph.ExitResult{}, fmt.Errorf("opt-in type %q is not %s or %s", typ, NoID, VerifyID)
	}
	st := OptInState{Type: typ, Speaker: d.Runtime.Perception.Speaker}
	if err := d.Set(OptInStateKey, st); err != nil {
		return graph.ExitResult{}, err
	}
	return graph.ExitResult{Transition: string(typ), Result: d.Result}, nil
}

// Transition of the opt-in's question nodes: the answer, whatever it is,
// goes to the node that reads it.
const TransitionAnswer = "Answer"

// askNode asks one of the opt-in's questions and leaves by Answer.
type askNode struct {
	name string
	r    *runner
	mim  func(ctx context.Context, d *graph.Data) (*mim.MIM, error)
}

func (n *askNode) Name() string          { return n.name }
func (n *askNode) Transitions() []string { return []string{TransitionAnswer} }

func (n *askNode) Enter(ctx context.Context, d *graph.Data) (graph.EnterResult, error) {
	m, err := n.mim(ctx, d)
	if err != nil {
		return graph.EnterResult{}, err
	}
	a, _, err := n.r.slim(ctx, d, m, mim.Entry(m))
	if err != nil {
		return graph.EnterResult{}, err
	}
	return graph.EnterResult{Action: a}, nil
}

func (n *askNode) Exit(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	return graph.ExitResult{Transition: TransitionAnswer, Result: Answer(d).Result}, nil
}

// Transitions of YesNoWrongID.
const (
	TransitionYes     = "Yes"
	TransitionNo      = "No"
	TransitionWrongID = "WrongID"
)

// yesNoWrongIDNode (OptIn:YesNoWrongID:x) reads the answer to the
// proposal and reports it as a Skill Offer: yes, wrongID, or anything else
// (no, another intent, no match, no input) as a no.
type yesNoWrongIDNode struct {
	name string
}

func (n *yesNoWrongIDNode) Name() string { return n.name }
func (n *yesNoWrongIDNode) Transitions() []string {
	return []string{TransitionYes, TransitionNo, TransitionWrongID}
}

func (n *yesNoWrongIDNode) Enter(context.Context, *graph.Data) (graph.EnterResult, error) {
	return graph.EnterResult{}, nil
}

func (n *yesNoWrongIDNode) Exit(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	nlu, asr := d.NLU(), d.ASR()
	heard := asr != nil && asr.Text != ""
	response, modality := nlu.IntentName(), protocol.ModalitySpeech
	switch {
	case response != "" && !heard:
		// An intent with nothing heard came from the screen.
		modality = protocol.ModalityTouch
	case response == "" && heard:
		response = "noMatch"
	case response == "":
		response, modality = "noInput", protocol.ModalityNA
	}
	if err := d.Track(protocol.EventSkillOffer, protocol.SkillOfferProperties{UserResponse: response, Modality: modality}); err != nil {
		return graph.ExitResult{}, err
	}
	st, err := OptInStateOf(d)
	if err != nil {
		return graph.ExitResult{}, err
	}
	st.Response = response
	if err := d.Set(OptInStateKey, st); err != nil {
		return graph.ExitResult{}, err
	}
	t := TransitionNo
	switch response {
	case IntentYes:
		t = TransitionYes
	case IntentWrongID:
		t = TransitionWrongID
	}
	return graph.ExitResult{Transition: t, Result: d.Result}, nil
}

// lookerNode wraps graph's SetLooperIDNode to remember in
// session.data._optIn who the person said they were (nobody, when not in
// the loop).
type lookerNode struct {
	*graph.SetLooperIDNode
}

func (n *lookerNode) Exit(ctx context.Context, d *graph.Data) (graph.ExitResult, error) {
	res, err := n.SetLooperIDNode.Exit(ctx, d)
	if err != nil || res.Transition == graph.TransitionCancel {
		return res, err
	}
	st, err := OptInStateOf(d)
	if err != nil {
		return graph.ExitResult{}, err
	}
	st.Speaker = d.Runtime.Perception.Speaker
	if err := d.Set(OptInStateKey, st); err != nil {
		return graph.ExitResult{}, err
	}
	return res, nil
}

// declineNode (OptIn:AN:Decline:x) says the decline, as the skill's last
// action, and leaves by Done.
type declineNode struct {
	name string
	o    *optIn
}

func (n *declineNode) Name() string          { return n.name }
func (n *declineNode) Transitions() []string { return []string{graph.TransitionDone} }

func (n *declineNode) Enter(ctx context.Context, d *graph.Data) (graph.EnterResult, error) {
	a, _, err := n.o.r.slim(ctx, d, n.o.decline, mim.Config{Category: mim.EntryCore, SubCategory: mim.AN})
	if err != nil {
		return graph.EnterResult{}, err
	}
	return graph.EnterResult{Action: a, Final: true}, nil
}

func (n *declineNode) Exit(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	return graph.ExitResult{Transition: graph.TransitionDone, Result: d.Result}, nil
}

// OptIn is OptInFactory: graph "OptIn: name" that offers something and
// leaves by Accepted, NotInLoop or Declined.
//
// OptIn:Router:name decides the type (opts.Type or TypeFunc) and remembers
// it with the speaker in session.data._optIn (OptInState), then the
// proposal is asked: the base ProposalNoID or ProposalVerifyID unified with
// the skill's proposal (opts.MIMs, opts.Unify). OptIn:YesNoWrongID:name
// reads the answer and tracks it as a Skill Offer: yes is Accepted; no,
// another intent, no match and no input say the Decline MIM (final) and
// leave by Declined; wrongID asks WrongID ("who am I talking to?") and
// hands the answer to a SetLooperIDNode: a loop member named ("this is
// Ann", or a bare "Ann") is Accepted (and becomes the speaker, in _optIn
// too), cancel is Declined after the decline, anything else is NotInLoop
// (and the speaker is cleared).
//
// The proposals listen with the NLU rule "optin/yes_no", read by the
// intents yes, no and wrongID; the wrong-person question listens with
// "optin/who", read by graph.IntentLoopMember (entity
// graph.EntityLoopMemberReferent) and graph.IntentCancel.
func OptIn(name string, opts OptInOptions) (*graph.Graph, error) {
	fail := func(err error) (*graph.Graph, error) { return nil, fmt.Errorf("OptIn factory %s: %w", name, err) }
	if err := errors.Join(checkName(name), opts.MIMs.err); err != nil {
		return fail(err)
	}
	if opts.Type != "" && opts.Type != NoID && opts.Type != VerifyID {
		return fail(fmt.Errorf("opt-in type %q is not %s or %s", opts.Type, NoID, VerifyID))
	}
	set, err := mim.LoadDir(optinMIMs, "optin")
	if err != nil {
		return fail(fmt.Errorf("base MIMs: %w", err))
	}
	get := func(id string) *mim.MIM {
		m, gerr := set.Get(id)
		err = errors.Join(err, gerr)
		return m
	}
	o := &optIn{r: newRunner(name, opts.Options), opts: opts}
	o.base = map[OptInType]*mim.MIM{NoID: get(ProposalNoIDMIM), VerifyID: get(ProposalVerifyIDMIM)}
	o.wrongID, o.decline = get(WrongIDMIM), get(DeclineMIM)
	if err != nil {
		return fail(err)
	}
	if len(opts.MIMs.fixed) > 0 {
		// A fixed proposal is checked now, for both types.
		for _, typ := range []OptInType{NoID, VerifyID} {
			if _, err := o.proposal(context.Background(), nil, typ); err != nil {
				return fail(err)
			}
		}
	}

	g := graph.New("OptIn: "+name, Accepted, NotInLoop, Declined)
	router := &optInRouter{name: "OptIn:Router:" + name, o: o}
	proposalOf := func(typ OptInType) func(context.Context, *graph.Data) (*mim.MIM, error) {
		return func(ctx context.Context, d *graph.Data) (*mim.MIM, error) { return o.proposal(ctx, d, typ) }
	}
	noID := &askNode{name: "OptIn:QN:" + ProposalNoIDMIM + ":" + name, r: o.r, mim: proposalOf(NoID)}
	verify := &askNode{name: "OptIn:QN:" + ProposalVerifyIDMIM + ":" + name, r: o.r, mim: proposalOf(VerifyID)}
	yesNo := &yesNoWrongIDNode{name: "OptIn:YesNoWrongID:" + name}
	wrong := &askNode{name: "OptIn:QN:" + WrongIDMIM + ":" + name, r: o.r,
		mim: func(context.Context, *graph.Data) (*mim.MIM, error) { return o.wrongID, nil }}
	looper := &lookerNode{graph.SetLooperID("OptIn:SetLooperID:" + name)}
	decline := &declineNode{name: "OptIn:AN:" + DeclineMIM + ":" + name, o: o}

	_ = g.AddNode(router, graph.To(string(NoID), noID), graph.To(string(VerifyID), verify))
	_ = g.AddNode(noID, graph.To(TransitionAnswer, yesNo))
	_ = g.AddNode(verify, graph.To(TransitionAnswer, yesNo))
	_ = g.AddNode(yesNo, graph.ToExit(TransitionYes, Accepted), graph.To(TransitionNo, decline), graph.To(TransitionWrongID, wrong))
	_ = g.AddNode(wrong, graph.To(TransitionAnswer, looper))
	_ = g.AddNode(looper, graph.ToExit(graph.TransitionSuccess, Accepted), graph.ToExit(graph.TransitionNotInLoop, NotInLoop),
		graph.To(graph.TransitionCancel, decline))
	_ = g.AddNode(decline, graph.ToExit(graph.TransitionDone, Declined))
	return finalize(g)
}
