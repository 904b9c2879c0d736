package session

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// DefaultMaxContextEntries is the intent_context cap recommended by CTX-05.
const DefaultMaxContextEntries = 1024

// ContextEntry is one intent_context entry (CTX-03). A nil Value is a
// presence-only flag; nil ExpiresAt and TurnsRemaining mean "unset".
type ContextEntry struct {
	Value          *string
	ExpiresAt      *float64
	TurnsRemaining *int64
}

// Live reports CTX-04: turns_remaining unset or > 0, and expires_at unset or
// later than now (unix seconds).
func (e ContextEntry) Live(now float64) bool {
	if e.TurnsRemaining != nil && *e.TurnsRemaining <= 0 {
		return false
	}
	if e.ExpiresAt != nil && *e.ExpiresAt <= now {
		return false
	}
	return true
}

// parseEntry reads one entry; a malformed one (not an object, value missing
// or not string|null, a wrong-typed decay field) is an error.
func parseEntry(v any) (ContextEntry, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return ContextEntry{}, fmt.Errorf("entry is %s, want object", typeName(v))
	}
	var e ContextEntry
	val, present := m["value"]
	switch t := val.(type) {
	case nil:
		if !present {
			return ContextEntry{}, fmt.Errorf("entry has no value (CTX-03)")
		}
	case string:
		e.Value = &t
	default:
		return ContextEntry{}, fmt.Errorf("value is %s, want string or null", typeName(val))
	}
	if x, ok := m["expires_at"]; ok && x != nil {
		f, ok := number(x)
		if !ok {
			return ContextEntry{}, fmt.Errorf("expires_at is %s, want number", typeName(x))
		}
		e.ExpiresAt = &f
	}
	if x, ok := m["turns_remaining"]; ok && x != nil {
		var n int64
		switch t := x.(type) {
		case int64:
			n = t
		case float64:
			if t != float64(int64(t)) {
				return ContextEntry{}, fmt.Errorf("turns_remaining %v is not an integer", t)
			}
			n = int64(t)
		default:
			return ContextEntry{}, fmt.Errorf("turns_remaining is %s, want integer", typeName(x))
		}
		e.TurnsRemaining = &n
	}
	return e, nil
}

// contextMap returns the raw intent_context object, nil when absent or not
// an object.
func (s Session) contextMap() map[string]any {
	m, _ := s.raw[FieldIntentContext].(map[string]any)
	return m
}

// ContextLookup returns the entry under key if it is well formed and live at
// now (CTX-04: dead entries are never considered).
func (s Session) ContextLookup(key string, now float64) (ContextEntry, bool) {
	v, ok := s.contextMap()[key]
	if !ok {
		return ContextEntry{}, false
	}
	e, err := parseEntry(v)
	if err != nil || !e.Live(now) {
		return ContextEntry{}, false
	}
	return e, true
}

// ContextOfRound returns the entry under key as the handler of a matched
// round reads it in its dispatch's session: well formed and not expired at
// now. Its turns may have run out with this round's own decrement (CTX-06
// runs it before dispatch), yet it was live when the round matched: dead
// entries are pruned before every round.
func (s Session) ContextOfRound(key string, now float64) (ContextEntry, bool) {
	v, ok := s.contextMap()[key]
	if !ok {
		return ContextEntry{}, false
	}
	e, err := parseEntry(v)
	if err != nil || e.ExpiresAt != nil && *e.ExpiresAt <= now {
		return ContextEntry{}, false
	}
	return e, true
}

// PruneContext removes dead and malformed entries (CTX-04, CTX-06 "before
// the match round") and, over maxEntries (<= 0: DefaultMaxContextEntries),
// evicts the live entries closest to expiry (CTX-05). It returns the pruned
// session and a description of each entry removed for a reason other than
// decay, for the log.
func (s Session) PruneContext(now float64, maxEntries int) (Session, []string) {
	cm := s.contextMap()
	if cm == nil {
		if _, present := s.raw[FieldIntentContext]; present {
			return s.Without(FieldIntentContext), []string{fmt.Sprintf("session.intent_context is %s, want object; dropped", typeName(s.raw[FieldIntentContext]))}
		}
		return s, nil
	}
	if maxEntries <= 0 {
		maxEntries = DefaultMaxContextEntries
	}
	var notes []string
	out := make(map[string]any, len(cm))
	live := map[string]ContextEntry{}
	for k, v := range cm {
		e, err := parseEntry(v)
		if err != nil {
			notes = append(notes, fmt.Sprintf("intent_context[%q]: %v; dropped", k, err))
			continue
		}
		if !e.Live(now) {
			continue
		}
		out[k] = v
		live[k] = e
	}
	if len(out) > maxEntries {
		keys := make([]string, 0, len(live))
		for k := range live {
			keys = append(keys, k)
		}
		// CTX-05: smallest turns_remaining, then earliest expires_at, then any
		// (by key, so the choice is reproducible).
		sort.Slice(keys, func(i, j int) bool {
			a, b := live[keys[i]], live[keys[j]]
			if ta, tb := turnsKey(a), turnsKey(b); ta != tb {
				return ta < tb
			}
			if ea, eb := expiryKey(a), expiryKey(b); ea != eb {
				return ea < eb
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys[:len(out)-maxEntries] {
			delete(out, k)
			notes = append(notes, fmt.Sprintf("intent_context[%q] evicted: more than %d entries (CTX-05)", k, maxEntries))
		}
	}
	if len(out) == len(cm) {
		return s, notes
	}
	c := s.shallow()
	c[FieldIntentContext] = out
	return Session{raw: c}, notes
}

func turnsKey(e ContextEntry) float64 {
	if e.TurnsRemaining == nil {
		return 1e300
	}
	return float64(*e.TurnsRemaining)
}

func expiryKey(e ContextEntry) float64 {
	if e.ExpiresAt == nil {
		return 1e300
	}
	return *e.ExpiresAt
}

// DecrementContext is CTX-06's post-match step: every entry that is in
// before unchanged (not written during this round) and has a non-null
// turns_remaining loses one turn. Entries written this round are exempt.
// An entry that reaches zero stays, dead (CTX-04), in the session this
// round sends out; PruneContext removes it before the next round.
func (s Session) DecrementContext(before Session) Session {
	cm := s.contextMap()
	if len(cm) == 0 {
		return s
	}
	prev := before.contextMap()
	out := make(map[string]any, len(cm))
	changed := false
	for k, v := range cm {
		old, had := prev[k]
		if !had || !reflect.DeepEqual(old, v) {
			out[k] = v // written this round
			continue
		}
		e, err := parseEntry(v)
		if err != nil || e.TurnsRemaining == nil {
			out[k] = v
			continue
		}
		if *e.TurnsRemaining <= 0 {
			out[k] = v // already dead: nothing left to count down
			continue
		}
		changed = true
		m := v.(map[string]any)
		nm := make(map[string]any, len(m))
		for mk, mv := range m {
			nm[mk] = mv
		}
		nm["turns_remaining"] = *e.TurnsRemaining - 1
		out[k] = nm
	}
	if !changed {
		return s
	}
	c := s.shallow()
	c[FieldIntentContext] = out
	return Session{raw: c}
}

// ContextRef is one requires_context / excludes_context element (CTX-11).
type ContextRef struct {
	Key    string
	Shared bool
}

// ParseContextRefs reads a requires_context or excludes_context list: a
// string k means {key: k, scope: "private"}; an object needs a non-empty
// key and a scope of "private" or "shared". Keys may not contain ':' (the
// scope says whose key it is).
func ParseContextRefs(v any) ([]ContextRef, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("is %s, want array", typeName(v))
	}
	if len(list) > MaxListLen {
		return nil, fmt.Errorf("more than %d entries", MaxListLen)
	}
	out := make([]ContextRef, 0, len(list))
	for i, e := range list {
		var r ContextRef
		switch t := e.(type) {
		case string:
			r.Key = t
		case map[string]any:
			k, _ := t["key"].(string)
			r.Key = k
			switch sc := t["scope"].(type) {
			case nil:
			case string:
				switch sc {
				case "private":
				case "shared":
					r.Shared = true
				default:
					return nil, fmt.Errorf("[%d]: scope %q, want private or shared", i, sc)
				}
			default:
				return nil, fmt.Errorf("[%d]: scope is %s, want string", i, typeName(sc))
			}
		default:
			return nil, fmt.Errorf("[%d] is %s, want string or object", i, typeName(e))
		}
		if r.Key == "" || strings.Contains(r.Key, ":") {
			return nil, fmt.Errorf("[%d]: key %q must be non-empty and without ':'", i, r.Key)
		}
		out = append(out, r)
	}
	return out, nil
}

// ContextKey is the intent_context key a ref resolves to for owner (CTX-11):
// "<owner>:<key>" for private scope, the bare key for shared.
func (r ContextRef) ContextKey(owner string) string {
	if r.Shared {
		return r.Key
	}
	return owner + ":" + r.Key
}

// ContextAllows applies CTX-11 and CTX-12 for an intent owned by owner: every
// required ref must resolve to a live entry and no excluded one may.
func (s Session) ContextAllows(owner string, requires, excludes []ContextRef, now float64) bool {
	for _, r := range requires {
		if _, ok := s.ContextLookup(r.ContextKey(owner), now); !ok {
			return false
		}
	}
	for _, r := range excludes {
		if _, ok := s.ContextLookup(r.ContextKey(owner), now); ok {
			return false
		}
	}
	return true
}

// ContextSlot returns the context-supplied value for slot name k of an
// intent owned by owner (CTX-13): the live non-null private "<owner>:k"
// entry, else the shared "k" one. Flags are never candidates.
func (s Session) ContextSlot(owner, k string, now float64) (string, bool) {
	for _, key := range []string{owner + ":" + k, k} {
		if e, ok := s.ContextLookup(key, now); ok && e.Value != nil {
			return *e.Value, true
		}
	}
	return "", false
}
