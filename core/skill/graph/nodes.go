package graph

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// Transition names of the built-in nodes.
const (
	TransitionDone      = "Done"
	TransitionTrue      = "True"
	TransitionFalse     = "False"
	TransitionCancel    = "Cancel"
	TransitionSuccess   = "Success"
	TransitionNotInLoop = "NotInLoop"
)

// EnterFunc is a node's Enter as a function.
type EnterFunc func(ctx context.Context, d *Data) (EnterResult, error)

// ExitFunc is a node's Exit as a function.
type ExitFunc func(ctx context.Context, d *Data) (ExitResult, error)

// FuncNode is a node made of functions, for nodes that need no type of
// their own.
type FuncNode struct {
	name        string
	transitions []string
	enter       EnterFunc
	exit        ExitFunc
}

// Func returns a node named name that may leave by transitions. enter nil
// enters with nothing; exit nil leaves by the first transition, passing
// Data.Result on.
func Func(name string, transitions []string, enter EnterFunc, exit ExitFunc) *FuncNode {
	return &FuncNode{name: name, transitions: slices.Clone(transitions), enter: enter, exit: exit}
}

// Name returns the node's name.
func (n *FuncNode) Name() string { return n.name }

// Transitions returns the node's transitions.
func (n *FuncNode) Transitions() []string { return n.transitions }

// Enter runs the enter function, if any.
func (n *FuncNode) Enter(ctx context.Context, d *Data) (EnterResult, error) {
	if n.enter == nil {
		return EnterResult{}, nil
	}
	return n.enter(ctx, d)
}

// Exit runs the exit function, or leaves by the first transition.
func (n *FuncNode) Exit(ctx context.Context, d *Data) (ExitResult, error) {
	if n.exit != nil {
		return n.exit(ctx, d)
	}
	return passOn(n.transitions, d), nil
}

func passOn(transitions []string, d *Data) ExitResult {
	if len(transitions) == 0 {
		return ExitResult{}
	}
	return ExitResult{Transition: transitions[0], Result: d.Result}
}

// NoOpNode does nothing: it enters with nothing and leaves at once by its
// one transition, passing Data.Result on. It joins branches and stands in
// for nodes not written yet.
type NoOpNode struct {
	name, transition string
}

// NoOp returns a NoOpNode leaving by transition.
func NoOp(name, transition string) *NoOpNode { return &NoOpNode{name: name, transition: transition} }

// Name returns the node's name.
func (n *NoOpNode) Name() string { return n.name }

// Transitions returns the node's one transition.
func (n *NoOpNode) Transitions() []string { return []string{n.transition} }

// Enter does nothing.
func (n *NoOpNode) Enter(context.Context, *Data) (EnterResult, error) { return EnterResult{}, nil }

// Exit leaves by the node's transition.
func (n *NoOpNode) Exit(_ context.Context, d *Data) (ExitResult, error) {
	return ExitResult{Transition: n.transition, Result: d.Result}, nil
}

// DefaultNode has the single transition "Done": it runs its enter function
// (which may produce an action) and then leaves by Done, passing
// Data.Result on (after an action, that is the next turn's result).
type DefaultNode struct {
	name  string
	enter EnterFunc
}

// Default returns a DefaultNode; enter nil enters with nothing.
func Default(name string, enter EnterFunc) *DefaultNode {
	return &DefaultNode{name: name, enter: enter}
}

// Name returns the node's name.
func (n *DefaultNode) Name() string { return n.name }

// Transitions returns ["Done"].
func (n *DefaultNode) Transitions() []string { return []string{TransitionDone} }

// Enter runs the enter function, if any.
func (n *DefaultNode) Enter(ctx context.Context, d *Data) (EnterResult, error) {
	if n.enter == nil {
		return EnterResult{}, nil
	}
	return n.enter(ctx, d)
}

// Exit leaves by Done.
func (n *DefaultNode) Exit(_ context.Context, d *Data) (ExitResult, error) {
	return ExitResult{Transition: TransitionDone, Result: d.Result}, nil
}

// Predicate decides a TrueFalseNode.
type Predicate func(ctx context.Context, d *Data) (bool, error)

// TrueFalseNode branches: it enters with nothing and leaves by "True" or
// "False" as its predicate says, passing Data.Result on.
type TrueFalseNode struct {
	name string
	pred Predicate
}

// TrueFalse returns a TrueFalseNode deciding by pred.
func TrueFalse(name string, pred Predicate) *TrueFalseNode {
	return &TrueFalseNode{name: name, pred: pred}
}

// Name returns the node's name.
func (n *TrueFalseNode) Name() string { return n.name }

// Transitions returns ["True", "False"].
func (n *TrueFalseNode) Transitions() []string { return []string{TransitionTrue, TransitionFalse} }

// Enter does nothing.
func (n *TrueFalseNode) Enter(context.Context, *Data) (EnterResult, error) {
	return EnterResult{}, nil
}

// Exit asks the predicate.
func (n *TrueFalseNode) Exit(ctx context.Context, d *Data) (ExitResult, error) {
	if n.pred == nil {
		return ExitResult{}, errors.New("no predicate")
	}
	ok, err := n.pred(ctx, d)
	if err != nil {
		return ExitResult{}, err
	}
	t := TransitionFalse
	if ok {
		t = TransitionTrue
	}
	return ExitResult{Transition: t, Result: d.Result}, nil
}

// ActionFunc builds a node's action.
type ActionFunc func(ctx context.Context, d *Data) (*jcp.Action, error)

// JCPNode is a node that always produces an action (a question, an
// announcement): Enter builds it; Exit, run when the next turn arrives
// (or at once if the robot needs no answer), chooses the transition.
type JCPNode struct {
	name        string
	transitions []string
	action      ActionFunc
	next        ExitFunc
	final       bool
}

// JCP returns a JCPNode. next nil leaves by the first transition, passing
// Data.Result on (after a question, the answer's protocol.Result).
func JCP(name string, action ActionFunc, next ExitFunc, transitions ...string) *JCPNode {
	return &JCPNode{name: name, transitions: slices.Clone(transitions), action: action, next: next}
}

// Final marks the node's action as the skill's last and returns n.
func (n *JCPNode) Final() *JCPNode {
	n.final = true
	return n
}

// Name returns the node's name.
func (n *JCPNode) Name() string { return n.name }

// Transitions returns the node's transitions.
func (n *JCPNode) Transitions() []string { return n.transitions }

// Enter builds the action; building none is an error.
func (n *JCPNode) Enter(ctx context.Context, d *Data) (EnterResult, error) {
	if n.action == nil {
		return EnterResult{}, errors.New("no action function")
	}
	a, err := n.action(ctx, d)
	if err != nil {
		return EnterResult{}, err
	}
	if a == nil {
		return EnterResult{}, errors.New("built no action")
	}
	return EnterResult{Action: a, Final: n.final}, nil
}

// Exit runs next, or leaves by the first transition.
func (n *JCPNode) Exit(ctx context.Context, d *Data) (ExitResult, error) {
	if n.next != nil {
		return n.next(ctx, d)
	}
	return passOn(n.transitions, d), nil
}

// NLU names SetLooperIDNode reads.
const (
	IntentCancel             = "cancel"
	IntentLoopMember         = "loopmember"
	EntityLoopMemberReferent = "loopMemberReferent"
)

// PresentPersonConfidence is the confidence SetLooperIDNode gives
// SET_PRESENT_PERSON.
const PresentPersonConfidence = 100

// SetLooperIDNode settles who is speaking from the turn's NLU (Data.NLU):
// intent "cancel" leaves by "Cancel"; intent "loopmember" whose entity
// "loopMemberReferent" names a member of runtime.loop.users makes that
// member the speaker, adds SET_PRESENT_PERSON (source USER_OVERRIDE,
// confidence 100) to run before the turn's action, and leaves by
// "Success"; anything else clears the speaker and leaves by "NotInLoop".
// The referent names a member by looper id or, failing that, by a name
// only one member has: the first name, or first and last. With no intent
// at all, the recognised text (Data.ASR) is read as such a name, so a
// bare "Ann", which no answer template can be, still names Ann. Names are
// compared as ASR-normalised words, without fillers ("um") and framing
// ("it's", "here"). Data.Result is passed on.
type SetLooperIDNode struct {
	name string
}

// SetLooperID returns a SetLooperIDNode.
func SetLooperID(name string) *SetLooperIDNode { return &SetLooperIDNode{name: name} }

// Name returns the node's name.
func (n *SetLooperIDNode) Name() string { return n.name }

// Transitions returns ["Cancel", "Success", "NotInLoop"].
func (n *SetLooperIDNode) Transitions() []string {
	return []string{TransitionCancel, TransitionSuccess, TransitionNotInLoop}
}

// Enter does nothing.
func (n *SetLooperIDNode) Enter(context.Context, *Data) (EnterResult, error) {
	return EnterResult{}, nil
}

// Exit reads the NLU, or the recognised text when no intent matched.
func (n *SetLooperIDNode) Exit(_ context.Context, d *Data) (ExitResult, error) {
	nlu := d.NLU()
	users := d.Runtime.Loop.Users
	id := ""
	switch nlu.IntentName() {
	case IntentCancel:
		return ExitResult{Transition: TransitionCancel, Result: d.Result}, nil
	case IntentLoopMember:
		id = looperNamed(users, nlu.Entities[EntityLoopMemberReferent])
	case "":
		// The grammar refuses a slot-only template (GRM-07), so a bare
		// name reaches us as text without an intent.
		if asr := d.ASR(); asr != nil {
			id = looperCalled(users, asr.Text)
		}
	}
	if id == "" {
		d.OverrideSpeaker("")
		return ExitResult{Transition: TransitionNotInLoop, Result: d.Result}, nil
	}
	d.OverrideSpeaker(id)
	d.AddSequenceBehavior(&jcp.SetPresentPerson{Base: jcp.Base{ID: jcp.NewID()},
		LooperID: id, Source: jcp.SourceUserOverride, Confidence: PresentPersonConfidence})
	return ExitResult{Transition: TransitionSuccess, Result: d.Result}, nil
}

// looperNamed finds the loop member referent names, by id or by name; ""
// if none.
func looperNamed(users []protocol.LooperInfo, referent any) string {
	name, ok := referent.(string)
	if !ok || name == "" {
		return ""
	}
	for _, u := range users {
		if u.ID == name {
			return u.ID
		}
	}
	return looperCalled(users, name)
}

// looperCalled finds the one loop member whose name text is, once
// normalised and stripped of fillers and framing; "" when nobody or more
// than one member has that name: ask rather than guess.
func looperCalled(users []protocol.LooperInfo, text string) string {
	said := strings.Join(bareName(nameWords(text)), " ")
	if said == "" {
		return ""
	}
	found := ""
	for _, u := range users {
		first := strings.Join(nameWords(u.FirstName), " ")
		if first == "" {
			continue
		}
		full := strings.Join(nameWords(u.FirstName+" "+u.LastName), " ")
		if said != first && said != full {
			continue
		}
		if found != "" {
			return ""
		}
		found = u.ID
	}
	return found
}

// nameWords splits s into ASR-normalised words (GRM-02, as core/intent's
// Normalize, which graph skills need not link): lowercase, apostrophes
// dropped inside words ("it's" is "its", as a recogniser writes it), any
// other punctuation a separator.
func nameWords(s string) []string {
	s = strings.Map(func(r rune) rune {
		if r == '\'' || r == '\u2019' || r == '\u02bc' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
}

// nameFillers are words said around a name that are never part of it.
var nameFillers = map[string]bool{
	"um": true, "umm": true, "uh": true, "uhm": true, "er": true, "erm": true, "hmm": true, "mm": true,
	"ah": true, "oh": true, "well": true, "so": true, "hi": true, "hey": true, "hello": true, "jibo": true,
}

// Phrases that frame a name, as normalised words: one may lead ("it's
// me, Ann"), one may follow ("Ann here", "Ann, it's me"). Longer phrases
// come before their prefixes, so the longest is taken.
var (
	nameLeads = [][]string{
		{"it", "is", "me"}, {"its", "me"}, {"it", "is"}, {"its"}, {"this", "is"},
		{"i", "am"}, {"im"}, {"me"}, {"my", "name", "is"}, {"call", "me"},
	}
	nameTails = [][]string{{"it", "is", "me"}, {"its", "me"}, {"here"}, {"speaking"}}
)

// bareName is words without fillers and one leading and one trailing
// framing phrase.
func bareName(words []string) []string {
	words = slices.DeleteFunc(slices.Clone(words), func(w string) bool { return nameFillers[w] })
	for _, p := range nameLeads {
		if len(words) > len(p) && slices.Equal(words[:len(p)], p) {
			words = words[len(p):]
			break
		}
	}
	for _, p := range nameTails {
		if len(words) > len(p) && slices.Equal(words[len(words)-len(p):], p) {
			words = words[:len(words)-len(p)]
			break
		}
	}
	return words
}
