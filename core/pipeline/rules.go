package pipeline

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/ascii"
)

// Registration topics (INTENT-4) the orchestrator reads for its own checks:
// CONTEXT-1 gating (requires_context / excludes_context), context-supplied
// slots (CTX-13) and the required_slots backstop (PIPE-15). Doing this in
// the orchestrator applies them to every engine, whatever it implements.
const (
	topicRegisterTemplate = "ovos.intent.register.template"
	topicRegisterKeyword  = "ovos.intent.register.keyword"
	topicDeregister       = "ovos.intent.deregister"
	topicSkillDeregister  = "ovos.skill.deregister"
)

// MaxRules bounds the registrations the orchestrator indexes.
const MaxRules = 65536

// reservedIntents are never registrable (PIPE-21).
var reservedIntents = map[string]bool{"converse": true, "response": true, "stop": true, "fallback": true, "common_query": true}

// intentRule is what one registration says about matching.
type intentRule struct {
	lang, method       string
	requires, excludes []session.ContextRef
	bad                error    // malformed context rules: never passes
	slots              []string // slot or vocabulary names (CTX-13)
	required           []string // required_slots (PIPE-15)
}

type ruleKey struct{ session, skill, intent string }

// rules indexes registrations by (session scope, skill, intent).
type rules struct {
	log *slog.Logger
	mu  sync.RWMutex
	m   map[ruleKey][]intentRule
	n   int
}

func newRules(log *slog.Logger) *rules { return &rules{log: log, m: map[ruleKey][]intentRule{}} }

func (r *rules) topics() []string {
	return []string{topicRegisterTemplate, topicRegisterKeyword, topicDeregister, topicSkillDeregister}
}

var (
	slotFirst = ascii.NewSet("a-z_")
	slotRest  = ascii.NewSet("a-z0-9_")
)

// templateSlots lists, in order, the names of the slots {name}, {{name}}
// and {type:name} in a template (GRM-01): what
// `\{\{?(?:[a-z_][a-z0-9_]*:)?([a-z_][a-z0-9_]*)\}?\}` finds.
func templateSlots(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		name, end := slotAt(s, i)
		if end < 0 {
			i++
			continue
		}
		out = append(out, name)
		i = end
	}
	return out
}

// slotAt matches one slot at s[i:]: its name and the index after it, or
// end -1 when there is none.
func slotAt(s string, i int) (name string, end int) {
	if s[i] != '{' {
		return "", -1
	}
	i++
	if i < len(s) && s[i] == '{' {
		i++
	}
	ident := func(j int) int {
		if j < len(s) && slotFirst.Has(s[j]) {
			for j++; j < len(s) && slotRest.Has(s[j]); j++ {
			}
		}
		return j
	}
	start, end := i, ident(i)
	if end < len(s) && s[end] == ':' && end > start {
		start = end + 1
		end = ident(start)
	}
	if end == start || end >= len(s) || s[end] != '}' {
		return "", -1
	}
	name, end = s[start:end], end+1
	if end < len(s) && s[end] == '}' {
		end++
	}
	return name, end
}

func sessionIDOf(m bus.Message) string {
	s, _, err := session.FromMessage(m)
	if err != nil {
		return ""
	}
	return s.ID()
}

// receive applies one registration message; a malformed one is logged and
// changes nothing (REG-08 is the engines' to report in full).
func (r *rules) receive(m bus.Message) {
	sid := sessionIDOf(m)
	if sid == "" {
		return // malformed carrier: dropped (SES-08)
	}
	skill, _ := m.Data["skill_id"].(string)
	if skill == "" || strings.Contains(skill, ":") {
		r.log.Debug("registration without a usable skill_id ignored", "topic", m.Type)
		return
	}
	switch m.Type {
	case topicSkillDeregister:
		r.mu.Lock()
		for k, v := range r.m {
			if k.session == sid && k.skill == skill {
				r.n -= len(v)
				delete(r.m, k)
			}
		}
		r.mu.Unlock()
		return
	}
	intent, _ := m.Data["intent_name"].(string)
	if intent == "" || strings.Contains(intent, ":") || reservedIntents[intent] {
		return
	}
	lang, _ := m.Data["lang"].(string)
	key := ruleKey{sid, skill, intent}
	if m.Type == topicDeregister {
		r.mu.Lock()
		defer r.mu.Unlock()
		var keep []intentRule
		for _, e := range r.m[key] {
			if lang != "" && !strings.EqualFold(e.lang, lang) {
				keep = append(keep, e)
			}
		}
		r.n -= len(r.m[key]) - len(keep)
		if len(keep) == 0 {
			delete(r.m, key)
		} else {
			r.m[key] = keep
		}
		return
	}
	rule := intentRule{lang: lang, method: "template"}
	if m.Type == topicRegisterKeyword {
		rule.method = "keyword"
	}
	var err error
	if rule.requires, err = session.ParseContextRefs(m.Data["requires_context"]); err != nil {
		rule.bad = fmt.Errorf("requires_context %w", err)
	} else if rule.excludes, err = session.ParseContextRefs(m.Data["excludes_context"]); err != nil {
		rule.bad = fmt.Errorf("excludes_context %w", err)
	} else {
		for _, a := range rule.requires {
			for _, b := range rule.excludes {
				if a == b {
					rule.bad = fmt.Errorf("key %q is both required and excluded (CTX-12)", a.Key)
				}
			}
		}
	}
	if rule.bad != nil {
		r.log.Warn("registration's context rules are malformed; the intent will never be dispatched",
			"skill_id", skill, "intent_name", intent, "lang", lang, "err", rule.bad)
	}
	rule.slots = slotNames(m)
	if req, ok := m.Data["required_slots"].([]any); ok {
		for _, v := range req {
			if s, ok := v.(string); ok && s != "" {
				rule.required = append(rule.required, s)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.m[key]
	for i, e := range list {
		if strings.EqualFold(e.lang, lang) && e.method == rule.method {
			list[i] = rule // REG-04: re-registering replaces that entry
			return
		}
	}
	if r.n >= MaxRules {
		r.log.Warn("registration not indexed for context rules: index full", "limit", MaxRules, "skill_id", skill, "intent_name", intent)
		return
	}
	r.m[key] = append(list, rule)
	r.n++
}

// slotNames lists the slot names a template registration declares, or the
// vocabulary names of a keyword one.
func slotNames(m bus.Message) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if m.Type == topicRegisterTemplate {
		samples, _ := m.Data["samples"].([]any)
		for _, s := range samples {
			str, _ := s.(string)
			for _, n := range templateSlots(str) {
				add(n)
			}
		}
		return out
	}
	for _, role := range []string{"required", "optional"} {
		list, _ := m.Data[role].([]any)
		for _, d := range list {
			if dm, ok := d.(map[string]any); ok {
				n, _ := dm["name"].(string)
				add(n)
			}
		}
	}
	groups, _ := m.Data["one_of"].([]any)
	for _, g := range groups {
		list, _ := g.([]any)
		for _, d := range list {
			if dm, ok := d.(map[string]any); ok {
				n, _ := dm["name"].(string)
				add(n)
			}
		}
	}
	return out
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
func (r *rules) check(s session.Session, m *Match, now float64) verdict {
	r.mu.RLock()
	var all []intentRule
	for _, scope := range scopes(s.ID()) {
		all = append(all, r.m[ruleKey{scope, m.SkillID, m.IntentName}]...)
	}
	r.mu.RUnlock()
	if len(all) == 0 {
		return verdict{allowed: true}
	}
	var cands []intentRule
	for _, e := range all {
		if strings.EqualFold(e.lang, m.Lang) {
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
		if e.bad != nil || !s.ContextAllows(m.SkillID, e.requires, e.excludes, now) {
			continue
		}
		passing++
		for _, sl := range e.slots {
			if !seen[sl] {
				seen[sl] = true
				v.slots = append(v.slots, sl)
			}
		}
		if req == nil {
			req = map[string]int{}
		}
		for _, q := range e.required {
			req[q]++
		}
	}
	v.allowed = passing > 0
	for _, e := range cands {
		for _, q := range e.required {
			if req[q] == passing && passing > 0 {
				v.required = append(v.required, q)
				req[q] = -1 // once
			}
		}
	}
	return v
}

func scopes(sid string) []string {
	if sid == session.DefaultID {
		return []string{session.DefaultID}
	}
	return []string{session.DefaultID, sid}
}
