package session

import (
	"fmt"
	"strings"
)

// MaxContextKeyBytes bounds an intent_context key written through
// WithContext.
const MaxContextKeyBytes = 256

// WithContext returns a copy with the intent_context entry key set,
// replacing any entry under that key wholesale (CTX-07). A nil value is a
// presence-only flag (CTX-03); turns <= 0 leaves turns_remaining unset and
// expiresAt <= 0 leaves expires_at unset (CTX-04). The key is either bare
// (shared) or "<owner>:<key>" with exactly one ':' (CTX-02). Only a
// handler, a transformer or a plugin's updated session may write context
// (CTX-07); this is how they do.
func (s Session) WithContext(key string, value *string, turns int64, expiresAt float64) (Session, error) {
	switch {
	case key == "" || len(key) > MaxContextKeyBytes:
		return Session{}, fmt.Errorf("intent_context key %q: want 1 to %d bytes", key, MaxContextKeyBytes)
	case strings.Count(key, ":") > 1:
		return Session{}, fmt.Errorf("intent_context key %q: at most one ':' (CTX-02)", key)
	case strings.HasPrefix(key, ":") || strings.HasSuffix(key, ":"):
		return Session{}, fmt.Errorf("intent_context key %q: owner and key must both be non-empty (CTX-02)", key)
	}
	entry := map[string]any{"value": nil}
	if value != nil {
		entry["value"] = *value
	}
	if turns > 0 {
		entry["turns_remaining"] = turns
	}
	if expiresAt > 0 {
		entry["expires_at"] = expiresAt
	}
	out := s.shallow()
	cm := make(map[string]any, len(s.contextMap())+1)
	for k, v := range s.contextMap() {
		cm[k] = v
	}
	cm[key] = entry
	out[FieldIntentContext] = cm
	return Session{raw: out}, nil
}
