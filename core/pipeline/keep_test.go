package pipeline

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/core/session"
)

// memKeeper keeps the intent context in memory, as a state file would.
type memKeeper struct {
	mu    sync.Mutex
	ic    map[string]any
	err   error
	saves int
}

func (k *memKeeper) LoadContext() (map[string]any, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ic, k.err
}

func (k *memKeeper) SaveContext(ic map[string]any) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ic, k.saves = ic, k.saves+1
	return nil
}

func (k *memKeeper) kept() (map[string]any, int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ic, k.saves
}

// TestKeeperKeepsTheIntentContext: the default session's intent context
// is saved when a round changes it and restored when an orchestrator is
// built, live entries only (CTX-04); an unreadable one starts empty.
func TestKeeperKeepsTheIntentContext(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	k := &memKeeper{ic: map[string]any{
		"timer:set": map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": float64(now.Unix() + 60)},
		"old:set":   map[string]any{"value": "t-0", "expires_at": float64(now.Unix() - 1)},
		"bad":       "not an entry",
	}}
	seen := make(chan session.Session, 1)
	r := newRig(t, Config{Keeper: k, Now: func() time.Time { return now },
		Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "x", Slots: map[string]string{}}}},
		Invoker: handlerFunc(func(_ context.Context, d Dispatch) (session.Session, error) {
			seen <- d.Session
			return session.Session{}, nil
		}),
	})
	stored := r.o.DefaultSession()
	_, ok := stored.ContextLookup("timer:set", float64(now.Unix()))
	assert.True(t, ok, "the live entry is back")
	_, ok = stored.ContextLookup("old:set", float64(now.Unix()))
	assert.False(t, ok, "the expired one is not")

	r.utter(t, hello(), nil)
	r.rec.waitHandled(t, 1)
	<-seen
	ic, saves := k.kept()
	assert.Equal(t, 1, saves, "the round counted the entry down: saved once")
	assert.Equal(t, map[string]any{"timer:set": map[string]any{"value": "t-1", "turns_remaining": int64(1),
		"expires_at": float64(now.Unix() + 60)}}, ic)

	bad := &memKeeper{err: errors.New("unreadable")}
	r = newRig(t, Config{Keeper: bad})
	v, _ := r.o.DefaultSession().Get(session.FieldIntentContext)
	assert.Empty(t, v)
}

// TestKeptContextIsBounded: a kept entry comes back no longer-lived than
// a skill could set it now; one that would never count down is dropped.
func TestKeptContextIsBounded(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	in := float64(now.Unix() + 60)
	latest := float64(now.Add(MaxContextTTL).Unix())
	tests := []struct {
		name  string
		entry map[string]any
		want  map[string]any // nil: dropped
	}{
		{"within the limits", map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": in},
			map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": in}},
		{"no turns_remaining", map[string]any{"value": "t-1", "expires_at": in}, nil},
		{"turns_remaining null", map[string]any{"value": "t-1", "turns_remaining": nil}, nil},
		{"too many turns", map[string]any{"value": "t-1", "turns_remaining": float64(5000)},
			map[string]any{"value": "t-1", "turns_remaining": float64(MaxContextTurns)}},
		{"too far off", map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": float64(now.Unix() + 10*86400)},
			map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": latest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &memKeeper{ic: map[string]any{"timer:set": tt.entry}}
			r := newRig(t, Config{Keeper: k, Now: func() time.Time { return now }})
			v, _ := r.o.DefaultSession().Get(session.FieldIntentContext)
			if tt.want == nil {
				assert.Empty(t, v)
				return
			}
			assert.Equal(t, map[string]any{"timer:set": tt.want}, v)
		})
	}
}
