package skill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// Limits of what a skill writes into the intent context in one turn.
const (
	// MaxContextWrites caps the context entries one turn may write.
	MaxContextWrites = 16
	// MaxContextTurns caps how many utterances an entry may live for.
	MaxContextTurns = pipeline.MaxContextTurns
	// MaxContextTTL caps how long an entry may live.
	MaxContextTTL = pipeline.MaxContextTTL
)

// ContextWrite is an intent context entry (CONTEXT-1) a local skill sets
// while it handles a turn, so that follow-ups gated on it ("and the
// date?", "make it five") match the next utterances. The host writes it,
// in place, into the session it commits for the turn (CTX-07), under the
// skill's private key "<skill_id>:<Key>" (CTX-02).
type ContextWrite struct {
	// Key is the skill's own key: [a-z0-9_] words, no ':'.
	Key string
	// Value is the entry's value; nil sets a presence flag (CTX-03).
	Value *string
	// Turns is how many utterances the entry lives for, 1 to
	// MaxContextTurns (CTX-06: written this turn, it is live for exactly
	// the next Turns match rounds).
	Turns int
	// TTL also bounds its life in time; 0 means no expiry.
	TTL time.Duration
}

// ErrNoTurn is returned by SetContext outside a turn that can carry
// context: a proactive launch, or a call not made by the host.
var ErrNoTurn = errors.New("no conversational turn to set context in")

// SetContext records w for the turn the skill is handling. Use it from
// inside Handle; the host applies it when the turn's action succeeds.
// Writing a key again in the same turn replaces the earlier write.
func SetContext(ctx context.Context, w ContextWrite) error {
	switch {
	case w.Key == "" || len(w.Key) > 64 || strings.ContainsFunc(w.Key, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}):
		return fmt.Errorf("setting context: key %q: want 1 to 64 of [a-z0-9_]", w.Key)
	case w.Turns < 1 || w.Turns > MaxContextTurns:
		return fmt.Errorf("setting context %q: %d turns, want 1 to %d", w.Key, w.Turns, MaxContextTurns)
	case w.TTL < 0 || w.TTL > MaxContextTTL:
		return fmt.Errorf("setting context %q: time to live %s, want 0 to %s", w.Key, w.TTL, MaxContextTTL)
	}
	info, _ := ctx.Value(turnKey{}).(turnInfo)
	if info.writes == nil {
		return ErrNoTurn
	}
	return info.writes.add(w)
}

// ContextValue returns the value of the skill's own context entry key
// ("<skill_id>:<key>", as SetContext wrote it in an earlier turn) in the
// session of the turn it is handling: what a follow-up gated on the key
// ("cancel it") refers to. It reports false outside a turn with a
// session, and for an entry that is absent, expired or a flag. The
// session keeps it per bus session, so another session's turn never
// reads it.
func ContextValue(ctx context.Context, key string) (string, bool) {
	info, _ := ctx.Value(turnKey{}).(turnInfo)
	if info.sess.IsZero() || info.now == nil {
		return "", false
	}
	e, ok := info.sess.ContextOfRound(info.skillID+":"+key, float64(info.now().UnixMilli())/1000)
	if !ok || e.Value == nil {
		return "", false
	}
	return *e.Value, true
}

// contextWrites collects one turn's context writes.
type contextWrites struct {
	mu   sync.Mutex
	list []ContextWrite
}

func (c *contextWrites) add(w ContextWrite) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, o := range c.list {
		if o.Key == w.Key {
			c.list[i] = w
			return nil
		}
	}
	if len(c.list) >= MaxContextWrites {
		return fmt.Errorf("setting context %q: more than %d entries in one turn", w.Key, MaxContextWrites)
	}
	c.list = append(c.list, w)
	return nil
}

// take returns the writes and forgets them.
func (c *contextWrites) take() []ContextWrite {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.list
	c.list = nil
	return out
}

// writeContext applies a turn's context writes to the session the turn
// commits: out when the exchange produced one, else the dispatch's
// session. Outside a lifecycle there is no session and the writes are
// dropped.
func (h *Host) writeContext(t turn, out session.Session) session.Session {
	writes := t.writes.take()
	if len(writes) == 0 {
		return out
	}
	base := out
	if base.IsZero() {
		base = t.sess
	}
	if base.IsZero() {
		h.log.Debug("context written outside a conversation turn; dropped", "skill_id", t.skillID)
		return out
	}
	now := h.now()
	for _, w := range writes {
		var expires float64
		if w.TTL > 0 {
			expires = float64(now.Add(w.TTL).UnixMilli()) / 1000
		}
		s, err := base.WithContext(t.skillID+":"+w.Key, w.Value, int64(w.Turns), expires)
		if err != nil {
			h.log.Warn("skill context write refused", "skill_id", t.skillID, "key", w.Key, "err", err)
			continue
		}
		base = s
	}
	return base
}

// ContextGated is a skill some of whose intents match only while context
// keys of its own are live (CTX-11): RequiredContext maps an intent name
// to those keys, which the host registers as the intent's
// requires_context, private to the skill.
type ContextGated interface {
	RequiredContext() map[string][]string
}
