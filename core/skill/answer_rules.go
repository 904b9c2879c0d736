package skill

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Answer rules: what a question's LISTEN contexts name. A SLIM that asks a
// question lists NLU rules in listen.contexts, as Jibo's skills did
// ("circuit-saver/play_again"); the robot understands the answer with
// those rules only, so "five minutes" means something while the timer
// asks "for how long?" and nothing otherwise.
//
// A rule is "<owner>/<rule>": owner is a skill's bus id, or one of the
// runtime's own owners: "globals" for the rules every skill may use
// (yes_no) and "optin" for the opt-in factory's (yes_no with wrongID,
// who). Bus ids always hold a '.', so the two never collide. A skill ships its rules as an
// fs.FS with one folder per rule, each a locale tree
// (<rule>/<lang>/<intent>.intent, .voc, .entity), the same resource format
// as its launch intents; the intents inside are the answers the rule
// understands. Rules are never registered with the intent service, so an
// answer never launches anything by itself.

// RuleSkill is a skill that asks questions with rules of its own.
type RuleSkill interface {
	// Rules returns the skill's answer rules, one folder per rule.
	Rules() fs.FS
}

// Questioner is a skill that knows, when it loads, the answer rules its
// questions will listen with (its MIMs' rule_name): the host refuses to
// add it when one names no rule the robot has, rather than let every
// answer to that question be a no-match.
type Questioner interface {
	ListenRules() []string
}

// GlobalsOwner is the owner of the rules every skill may use.
const GlobalsOwner = "globals"

// WildcardRule takes any answer at all: intent "wildcard" with the whole
// answer as entity "content" (Jibo's shared/wildcard), when no other rule
// the question lists understands it.
const WildcardRule = GlobalsOwner + "/wildcard"

// jiboRules maps the shared rules of Jibo's own parser, which its skills'
// MIMs name in rule_name, to the robot's: a ported MIM asks as it was
// written. A question's NLU result still names the rule as asked.
var jiboRules = map[string]string{
	"shared/yes_no":    GlobalsOwner + "/yes_no",
	"shared/no_id":     GlobalsOwner + "/yes_no", // an opt-in proposal to no one in particular: yes or no
	"shared/verify_id": "optin/yes_no",           // to someone: yes, no, or that is not me (wrongID)
	"shared/wrong_id":  "optin/who",              // who is it then: a name, or cancel
	"shared/wildcard":  WildcardRule,
}

// ruleName is the robot's rule a listen context names: the context as
// written, or the rule a Jibo shared rule maps to.
func ruleName(context string) string {
	c := path.Clean(context)
	if r, ok := jiboRules[c]; ok {
		return r
	}
	return c
}

// reservedOwner reports whether id names one of the runtime's rule owners.
func reservedOwner(id string) bool { return !strings.Contains(id, ".") }

// Limits on answer rules.
const (
	// MaxRulesPerSkill bounds the rule folders one skill ships.
	MaxRulesPerSkill = 64
	// MaxListenContexts bounds the contexts one question may list.
	MaxListenContexts = 16
)

//go:embed rules
var builtinRules embed.FS

// ruleBook holds the compiled answer rules of every owner.
type ruleBook struct {
	log *slog.Logger
	mu  sync.RWMutex
	// rules by "<owner>/<rule>", each an engine holding that rule's intents
	// (skill id = owner) in every language the rule has.
	rules map[string]*intent.TemplateEngine
	// lex are the skip words every rule's engine matches with: read once,
	// not once per rule.
	lex map[string]*intent.Lexicon
}

// newRuleBook reads the runtime's answer rules; lex nil means
// intent.BuiltinLexicons.
func newRuleBook(log *slog.Logger, lex map[string]*intent.Lexicon) (*ruleBook, error) {
	if lex == nil {
		var err error
		if lex, err = intent.BuiltinLexicons(); err != nil {
			return nil, fmt.Errorf("loading the runtime's answer rules: %w", err)
		}
	}
	b := &ruleBook{log: log, rules: map[string]*intent.TemplateEngine{}, lex: lex}
	owners, err := fs.ReadDir(builtinRules, "rules")
	if err != nil {
		return nil, fmt.Errorf("loading the runtime's answer rules: %w", err)
	}
	for _, o := range owners {
		sub, err := fs.Sub(builtinRules, "rules/"+o.Name())
		if err != nil {
			return nil, fmt.Errorf("loading the runtime's answer rules: %w", err)
		}
		if err := b.add(o.Name(), sub); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// add compiles owner's rule folders; on error nothing of owner is added.
func (b *ruleBook) add(owner string, fsys fs.FS) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fmt.Errorf("answer rules of %s: %w", owner, err)
	}
	compiled := map[string]*intent.TemplateEngine{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if len(compiled) == MaxRulesPerSkill {
			return fmt.Errorf("answer rules of %s: more than %d rules", owner, MaxRulesPerSkill)
		}
		name := e.Name()
		loc, err := intent.LoadLocale(fsys, name)
		if err != nil {
			return fmt.Errorf("answer rule %s/%s: %w", owner, name, err)
		}
		eng := intent.NewTemplateEngine(intent.EngineOptions{Logger: b.log, Lexicons: b.lex})
		n := 0
		for _, tag := range loc.Languages() {
			lang := loc.Langs[tag]
			for _, in := range lang.Names(intent.RoleIntent) {
				def, _ := lang.TemplateIntent("", owner, in)
				if _, err := eng.Register(def); err != nil {
					return fmt.Errorf("answer rule %s/%s: intent %s (%s): %w", owner, name, in, tag, err)
				}
				n++
			}
		}
		if n == 0 {
			return fmt.Errorf("answer rule %s/%s: no .intent files", owner, name)
		}
		compiled[owner+"/"+name] = eng
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, v := range compiled {
		b.rules[k] = v
	}
	return nil
}

// remove forgets owner's rules.
func (b *ruleBook) remove(owner string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.rules {
		if strings.HasPrefix(k, owner+"/") {
			delete(b.rules, k)
		}
	}
}

// names lists the rules compiled from files, sorted.
func (b *ruleBook) names() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]string, 0, len(b.rules))
	for k := range b.rules {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// known reports whether a listen context names a rule the book has (or
// a Jibo shared rule mapped to one, or the wildcard).
func (b *ruleBook) known(context string) bool {
	name := ruleName(context)
	if name == WildcardRule {
		return true
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	_, ok := b.rules[name]
	return ok
}

// ErrUnknownRule marks a question naming an answer rule the robot does not
// have: every answer to it would be a no-match.
var ErrUnknownRule = errors.New("names no answer rule")

// check refuses the contexts that name no rule the book has.
func (b *ruleBook) check(contexts []string) error {
	var bad []string
	for _, c := range contexts {
		if !b.known(c) {
			bad = append(bad, fmt.Sprintf("%q", c))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	shared := make([]string, 0, len(jiboRules))
	for k := range jiboRules {
		shared = append(shared, k)
	}
	sort.Strings(shared)
	return fmt.Errorf("%s %w (the robot's rules: %s, %s, and Jibo's %s; a skill's own are \"<bus id>/<rule>\" from its rules/ folder)",
		strings.Join(bad, ", "), ErrUnknownRule, strings.Join(b.names(), ", "), WildcardRule, strings.Join(shared, ", "))
}

// understand turns an answer into the NLU result a LISTEN_UPDATE carries:
// the best match over the listed rules (intent and entities from its
// slots), or intent null when none matches. Contexts naming no known rule
// are kept in nlu.rules but match nothing.
func (b *ruleBook) understand(utterance, lang string, contexts []string) protocol.NLUResult {
	rules := append([]string(nil), contexts...)
	if len(rules) > MaxListenContexts {
		rules = rules[:MaxListenContexts]
	}
	nlu := protocol.NLUFromSlots("", nil, rules)
	nlu.Intent, nlu.Entities = nil, nil
	if strings.TrimSpace(utterance) == "" {
		return nlu
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	var best *intent.Result
	wildcard := false
	for _, c := range rules {
		name := ruleName(c)
		if name == WildcardRule {
			wildcard = true
			continue
		}
		eng, ok := b.rules[name]
		if !ok {
			// Local skills' questions are checked when the skill loads; a
			// skill hosted elsewhere may name rules its host understands.
			b.log.Debug("listen context names no answer rule", "context", c)
			continue
		}
		if r := eng.Match(utterance, lang, ""); r != nil && (best == nil || r.Confidence > best.Confidence) {
			best = r
		}
	}
	if best == nil && wildcard {
		return protocol.NLUFromSlots("wildcard", map[string]string{"content": strings.TrimSpace(utterance)}, rules)
	}
	if best == nil {
		return nlu
	}
	entities := make(map[string]string, len(best.Slots))
	for k, v := range best.Slots {
		entities[entityName(k)] = v
	}
	name := best.IntentName
	if jn, ok := jiboIntentNames[name]; ok {
		name = jn
	}
	return protocol.NLUFromSlots(name, entities, rules)
}

// jiboIntentNames maps rule intents whose Jibo wire name no resource file
// may carry (RES-01: [a-z0-9_]+) to that name.
var jiboIntentNames = map[string]string{"wrong_id": "wrongID"}

// entityName turns a template slot name, snake_case as the grammar wants
// (GRM-04), into the lowerCamelCase entity name Jibo's NLU used:
// {loop_member_referent} fills entity loopMemberReferent.
func entityName(slot string) string {
	parts := strings.Split(slot, "_")
	var b strings.Builder
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return slot
	}
	return b.String()
}

// AnswerRules lists the answer rules' intents of every owner the host
// knows (the runtime's own and its skills'), sorted by rule, skill,
// intent and language: the sentences a spoken answer to a question can
// be. The speech recogniser builds its answer grammar from them, used
// only while a question waits, so the answers never compete with the
// wake phrase. Each definition is a copy.
func (h *Host) AnswerRules() []intent.TemplateIntent { return h.rules.intents() }

// intents lists every rule's intent definitions, in the order of names.
func (b *ruleBook) intents() []intent.TemplateIntent {
	var out []intent.TemplateIntent
	for _, name := range b.names() {
		b.mu.RLock()
		eng := b.rules[name]
		b.mu.RUnlock()
		if eng == nil {
			continue // removed meanwhile
		}
		for _, r := range eng.Registrations("") {
			out = append(out, r.Definition)
		}
	}
	return out
}

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
	b, err := newRuleBook(log, nil)
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
