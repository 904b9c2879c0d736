package pipeline

import (
	"strings"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// IntentRule is what one registration says about dispatching its intent
// beyond matching it: the context it requires or excludes (CTX-11,
// CTX-12), the slots context may supply (CTX-13) and the slots that must
// be bound (PIPE-15). The orchestrator applies them to every plugin's
// match, whatever engine produced it.
type IntentRule struct {
	Lang     string // the registration's language tag
	Method   string // "template" or "keyword"
	Requires []session.ContextRef
	Excludes []session.ContextRef
	// Bad holds why the registration's context rules are malformed; such
	// an intent is never dispatched.
	Bad error
	// Slots are the slot names a template registration declares, or the
	// vocabulary names of a keyword one (CTX-13).
	Slots []string
	// Required are its required_slots (PIPE-15).
	Required []string
}

// IntentRules answers the orchestrator's questions about registered
// intents. The intent stack's registration service implements it: it is
// the one reader of the registration topics.
type IntentRules interface {
	// IntentRules returns the rules of every registration of the intent
	// in the session's pool: the "default" scope and the session's own
	// (REG-14).
	IntentRules(sessionID, skillID, intentName string) []IntentRule
}

// verdict is what the index says about one Match.
type verdict struct {
	known    bool     // some registration describes this intent
	allowed  bool     // CTX-11/12 pass for at least one registration
	slots    []string // slot names to offer from context (union)
	required []string // required slots every passing registration agrees on
}

// check looks the match's intent up in the session's pool ("default" plus
// its own scope, REG-14), preferring registrations of the match language.
// Without rules, or for an intent nothing registered, every match passes.
func check(rules IntentRules, s session.Session, m *Match, now float64) verdict {
	if rules == nil {
		return verdict{allowed: true}
	}
	all := rules.IntentRules(s.ID(), m.SkillID, m.IntentName)
	if len(all) == 0 {
		return verdict{allowed: true}
	}
	var cands []IntentRule
	for _, e := range all {
		if strings.EqualFold(e.Lang, m.Lang) {
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		cands = all
	}
	v := verdict{known: true}
	seen := map[string]bool{}
	var req map[string]int
	passing := 0
	for _, e := range cands {
		if e.Bad != nil || !s.ContextAllows(m.SkillID, e.Requires, e.Excludes, now) {
			continue
		}
		passing++
		for _, sl := range e.Slots {
			if !seen[sl] {
				seen[sl] = true
				v.slots = append(v.slots, sl)
			}
		}
		if req == nil {
			req = map[string]int{}
		}
		for _, q := range e.Required {
			req[q]++
		}
	}
	v.allowed = passing > 0
	for _, e := range cands {
		for _, q := range e.Required {
			if req[q] == passing && passing > 0 {
				v.required = append(v.required, q)
				req[q] = -1 // once
			}
		}
	}
	return v
}

// sessionIDOf is the session id a message carries, "" for a malformed
// carrier (SES-08).
func sessionIDOf(m bus.Message) string {
	s, _, err := session.FromMessage(m)
	if err != nil {
		return ""
	}
	return s.ID()
}

// scopes are the registration scopes a session sees: "default" and its own
// (REG-14).
func scopes(sid string) []string {
	if sid == session.DefaultID {
		return []string{session.DefaultID}
	}
	return []string{session.DefaultID, sid}
}

// ContextAdmits reports whether the registered intents' context rules let
// match m's intent be dispatched in session s at unix time now (CTX-11,
// CTX-12): the orchestrator's own check, for plugins that offer only what
// will survive it.
func ContextAdmits(rules IntentRules, s session.Session, m *Match, now float64) bool {
	return check(rules, s, m, now).allowed
}
