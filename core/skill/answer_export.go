package skill

import (
	"io/fs"
	"log/slog"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// AnswerRules understands answers to questions with answer rules, exactly
// as the Host does for its local skills (see RuleSkill), for a process
// that runs skills without a Host: a hub that answers LISTEN turns whose
// rules name a running cloud skill's question contexts. It starts with the
// runtime's own owners ("globals", "optin") and takes more with Add. It is
// safe for concurrent use.
type AnswerRules struct{ book *ruleBook }

// NewAnswerRules returns the runtime's built-in answer rules. log nil
// means slog.Default().
func NewAnswerRules(log *slog.Logger) (*AnswerRules, error) {
	if log == nil {
		log = slog.Default()
	}
	b, err := newRuleBook(log)
	if err != nil {
		return nil, err
	}
	return &AnswerRules{book: b}, nil
}

// Add compiles owner's rules (one folder per rule, each a locale tree) so
// contexts "<owner>/<rule>" name them. owner may be any skill id, such as
// a hub's "namespace/name". On error nothing of owner is added.
func (a *AnswerRules) Add(owner string, rules fs.FS) error { return a.book.add(owner, rules) }

// Names lists the known rules ("<owner>/<rule>"), sorted.
func (a *AnswerRules) Names() []string { return a.book.names() }

// Check refuses listen contexts naming no known rule (Jibo's shared rules
// map to the robot's, see WildcardRule), with an error wrapping
// ErrUnknownRule that lists the rules there are.
func (a *AnswerRules) Check(contexts ...string) error { return a.book.check(contexts) }

// Understand returns the NLU result of utterance heard in lang for a
// question listening with contexts: the best match over the named rules,
// or intent null when none matches (see Host's LISTEN_UPDATE).
func (a *AnswerRules) Understand(utterance, lang string, contexts []string) protocol.NLUResult {
	return a.book.understand(utterance, lang, contexts)
}
