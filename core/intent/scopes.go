package intent

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/openjibo/jibod/internal/sortx"
)

// Both engines keep their definitions in one index per (session, language)
// scope (REG-04). The registration operations that walk those scopes —
// deregister, remove a skill, enable and disable — are the same for both,
// so they live here once, and so does listing them.

// scopeIndexOf is one engine's index of a (session, language) scope.
type scopeIndexOf[I scopedIntent] interface {
	members() map[nameKey]I
	remove(I)
}

// scopedIntent is one indexed definition.
type scopedIntent interface {
	owner() (skillID, intentName string)
	setEnabled(bool)
}

// eachScoped calls fn for every definition in the session's scopes of lang
// ("" = all languages), counts the calls that report true, and drops scopes
// left empty. The caller holds the engine's write lock.
func eachScoped[S scopeIndexOf[I], I scopedIntent](scopes map[scopeKey]S, sessionID, lang string, fn func(S, I) bool) int {
	sessionID = sessionOrDefault(sessionID)
	lang = strings.ToLower(lang)
	n := 0
	for sk, s := range scopes {
		if sk.session != sessionID || (lang != "" && sk.lang != lang) {
			continue
		}
		// Collect first: fn may remove from the index.
		for _, c := range slices.Collect(maps.Values(s.members())) {
			if fn(s, c) {
				n++
			}
		}
		if len(s.members()) == 0 {
			delete(scopes, sk)
		}
	}
	return n
}

// deregisterScoped removes (session, skill, intent, lang), every language
// when lang is "" (REG-09), and returns how many definitions it removed.
func deregisterScoped[S scopeIndexOf[I], I scopedIntent](scopes map[scopeKey]S, sessionID, skillID, intentName, lang string) int {
	return eachScoped(scopes, sessionID, lang, func(s S, c I) bool {
		if sk, in := c.owner(); sk != skillID || in != intentName {
			return false
		}
		s.remove(c)
		return true
	})
}

// removeSkillScoped removes every definition of the skill in the session's
// scope only (REG-09, DEF-09).
func removeSkillScoped[S scopeIndexOf[I], I scopedIntent](scopes map[scopeKey]S, sessionID, skillID string) int {
	return eachScoped(scopes, sessionID, "", func(s S, c I) bool {
		if sk, _ := c.owner(); sk != skillID {
			return false
		}
		s.remove(c)
		return true
	})
}

// setEnabledScoped toggles eligibility of (session, skill, intent, lang),
// every language when lang is "" (REG-10); definitions stay indexed.
func setEnabledScoped[S scopeIndexOf[I], I scopedIntent](scopes map[scopeKey]S, sessionID, skillID, intentName, lang string, enabled bool) int {
	return eachScoped(scopes, sessionID, lang, func(_ S, c I) bool {
		if sk, in := c.owner(); sk != skillID || in != intentName {
			return false
		}
		c.setEnabled(enabled)
		return true
	})
}

// registrationKey is what registrations are sorted by.
type registrationKey struct{ session, skill, intent, lang string }

// registrationsScoped lists the definitions in the session's effective
// pool, "default" ∪ its own, or in every scope when sessionID is ""
// (REG-12, REG-14), each as reg makes it, sorted by session ("default"
// first), skill, intent and language as key gives them. It holds rlock
// (the engine's read lock) while it reads the scopes.
func registrationsScoped[S scopeIndexOf[I], I scopedIntent, R any](rlock sync.Locker, scopes map[scopeKey]S, sessionID string,
	reg func(I) R, key func(R) registrationKey) []R {
	var out []R
	func() {
		rlock.Lock()
		defer rlock.Unlock()
		for sk, s := range scopes {
			if sessionID != "" && sk.session != DefaultSession && sk.session != sessionID {
				continue
			}
			for _, c := range s.members() {
				out = append(out, reg(c))
			}
		}
	}()
	sortx.Func(out, func(a, b R) int {
		ka, kb := key(a), key(b)
		return cmp.Or(
			cmp.Compare(sessionRank(ka.session), sessionRank(kb.session)),
			cmp.Compare(ka.session, kb.session),
			cmp.Compare(ka.skill, kb.skill),
			cmp.Compare(ka.intent, kb.intent),
			cmp.Compare(ka.lang, kb.lang),
		)
	})
	return out
}

func (s *scopeIndex) members() map[nameKey]*compiledIntent { return s.intents }
func (s *kwScope) members() map[nameKey]*kwIntent          { return s.intents }

func (c *compiledIntent) owner() (string, string) { return c.def.SkillID, c.def.IntentName }
func (c *compiledIntent) setEnabled(on bool)      { c.enabled = on }
func (c *kwIntent) owner() (string, string)       { return c.def.SkillID, c.def.IntentName }
func (c *kwIntent) setEnabled(on bool)            { c.enabled = on }
