package session

import (
	"fmt"
	"math"
)

// Handler-list and response-mode fields (SES-09): active_handlers is owned by
// PIPELINE-1, converse_handlers and response_mode by CONVERSE-1.
const (
	FieldConverseHandlers = "converse_handlers"
	FieldResponseMode     = "response_mode"
	FieldFallbackHandlers = "fallback_handlers"
	FieldIntentContext    = "intent_context"
)

// DefaultMaxHandlers bounds active_handlers and converse_handlers when the
// deployment sets no cap (CONV-03). The lists are recency stacks: a stop
// targets the most recent stoppable skill and converse polls the most recent
// first, so only their heads matter, while every entry rides on every
// lifecycle message.
const DefaultMaxHandlers = 8

// HandlerEntry is one {skill_id, activated_at} element of active_handlers or
// converse_handlers; ActivatedAt is unix seconds on the orchestrator's clock.
type HandlerEntry struct {
	SkillID     string
	ActivatedAt float64
}

// Handlers reads a {skill_id, activated_at} list in wire order (head first).
// Malformed elements (not an object, empty skill_id, a non-finite or missing
// activated_at) are skipped: the list is state the orchestrator owns, and a
// bad element must not cost the good ones. A repeated skill_id keeps its
// first (head-most) element.
func (s Session) Handlers(field string) []HandlerEntry {
	list, ok := s.raw[field].([]any)
	if !ok {
		return nil
	}
	out := make([]HandlerEntry, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		id, _ := m["skill_id"].(string)
		at, ok := number(m["activated_at"])
		if id == "" || !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, HandlerEntry{SkillID: id, ActivatedAt: at})
	}
	return out
}

// number reads a finite JSON number.
func number(v any) (float64, bool) {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case int64:
		f = float64(t)
	case int:
		f = float64(t)
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// WithHandlers returns a copy with field set to list (head first).
func (s Session) WithHandlers(field string, list []HandlerEntry) Session {
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = map[string]any{"skill_id": e.SkillID, "activated_at": e.ActivatedAt}
	}
	c := s.shallow()
	c[field] = out
	return Session{raw: c}
}

// shallow copies the top level only; values are never mutated in place, so
// sharing nested values between immutable Sessions is safe.
func (s Session) shallow() map[string]any {
	c := make(map[string]any, len(s.raw)+1)
	for k, v := range s.raw {
		c[k] = v
	}
	return c
}

// PushHandler removes skillID from list and puts {skillID, now} at the head
// (PIPE-19, CONV-02). Over maxLen (<= 0: DefaultMaxHandlers) it drops from
// the tail, skipping the entry of keep (the response-mode holder, CONV-03),
// which is never evicted.
func PushHandler(list []HandlerEntry, skillID string, now float64, maxLen int, keep string) []HandlerEntry {
	if maxLen <= 0 {
		maxLen = DefaultMaxHandlers
	}
	out := make([]HandlerEntry, 0, len(list)+1)
	out = append(out, HandlerEntry{SkillID: skillID, ActivatedAt: now})
	for _, e := range list {
		if e.SkillID != skillID {
			out = append(out, e)
		}
	}
	for len(out) > maxLen {
		i := len(out) - 1
		for i > 0 && out[i].SkillID == keep {
			i--
		}
		if i == 0 { // only the pushed head and the holder are left
			break
		}
		out = append(out[:i], out[i+1:]...)
	}
	return out
}

// WithPushed is PushHandler applied to field, keeping the wire form of the
// entries that stay (they are shared, not rebuilt): the push the
// orchestrator makes on every dispatch (PIPE-19, CONV-02).
func (s Session) WithPushed(field, skillID string, now float64, maxLen int, keep string) Session {
	list := s.Handlers(field)
	pushed := PushHandler(list, skillID, now, maxLen, keep)
	raw := map[string]any{}
	if old, ok := s.raw[field].([]any); ok {
		for _, e := range old {
			if m, ok := e.(map[string]any); ok {
				if id, _ := m["skill_id"].(string); id != "" {
					if _, seen := raw[id]; !seen {
						raw[id] = m
					}
				}
			}
		}
	}
	out := make([]any, len(pushed))
	out[0] = map[string]any{"skill_id": skillID, "activated_at": now}
	for i, e := range pushed[1:] {
		out[i+1] = raw[e.SkillID]
	}
	c := s.shallow()
	c[field] = out
	return Session{raw: c}
}

// RemoveHandler returns list without skillID.
func RemoveHandler(list []HandlerEntry, skillID string) []HandlerEntry {
	out := make([]HandlerEntry, 0, len(list))
	for _, e := range list {
		if e.SkillID != skillID {
			out = append(out, e)
		}
	}
	return out
}

// MostRecent returns the index of the most recent entry among those pick
// accepts (nil: all): the highest activated_at, ties to the entry nearest
// the head (PIPE-20). It returns -1 when none qualifies.
func MostRecent(list []HandlerEntry, pick func(HandlerEntry) bool) int {
	best := -1
	for i, e := range list {
		if pick != nil && !pick(e) {
			continue
		}
		if best < 0 || e.ActivatedAt > list[best].ActivatedAt {
			best = i
		}
	}
	return best
}

// ByRecency returns the entries pick accepts, most recent first (PIPE-20).
func ByRecency(list []HandlerEntry, pick func(HandlerEntry) bool) []HandlerEntry {
	rest := append([]HandlerEntry(nil), list...)
	var out []HandlerEntry
	for {
		i := MostRecent(rest, pick)
		if i < 0 {
			return out
		}
		out = append(out, rest[i])
		rest = append(rest[:i], rest[i+1:]...)
	}
}

// ResponseMode is the single-shot capture of the next utterance (CONV-05).
type ResponseMode struct {
	SkillID   string
	ExpiresAt float64
}

// ResponseMode reads response_mode; ok is false when it is absent or
// malformed (an object needs a non-empty skill_id and a finite expires_at).
func (s Session) ResponseMode() (ResponseMode, bool) {
	m, ok := s.raw[FieldResponseMode].(map[string]any)
	if !ok {
		return ResponseMode{}, false
	}
	id, _ := m["skill_id"].(string)
	at, ok := number(m["expires_at"])
	if id == "" || !ok {
		return ResponseMode{}, false
	}
	return ResponseMode{SkillID: id, ExpiresAt: at}, true
}

// WithResponseMode returns a copy holding rm as response_mode.
func (s Session) WithResponseMode(rm ResponseMode) (Session, error) {
	if rm.SkillID == "" {
		return Session{}, fmt.Errorf("setting session.response_mode: skill_id is empty")
	}
	c := s.shallow()
	c[FieldResponseMode] = map[string]any{"skill_id": rm.SkillID, "expires_at": rm.ExpiresAt}
	return Session{raw: c}, nil
}
