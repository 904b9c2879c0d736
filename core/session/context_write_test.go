package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A handler's context write is an entry the engines can read back, with
// its decay (CTX-03, CTX-04, CTX-07).
func TestWithContextCTX07(t *testing.T) {
	s, _, err := Parse(map[string]any{"session_id": DefaultID,
		"intent_context": map[string]any{"other": map[string]any{"value": "x"}, "clock:asked": map[string]any{"value": "old"}}})
	require.NoError(t, err)
	v := "time"
	w, err := s.WithContext("clock:asked", &v, 2, 1000)
	require.NoError(t, err)

	e, ok := w.ContextLookup("clock:asked", 999)
	require.True(t, ok)
	assert.Equal(t, "time", *e.Value)
	assert.Equal(t, int64(2), *e.TurnsRemaining)
	assert.Equal(t, 1000.0, *e.ExpiresAt)
	_, ok = w.ContextLookup("clock:asked", 1000)
	assert.False(t, ok, "dead at its expiry (CTX-04)")
	_, ok = w.ContextLookup("other", 999)
	assert.True(t, ok, "other entries are kept")
	old, _ := s.ContextLookup("clock:asked", 0)
	assert.Equal(t, "old", *old.Value, "the original session is unchanged")
	assert.True(t, w.ContextAllows("clock", []ContextRef{{Key: "asked"}}, nil, 999), "CTX-11 private lookup")

	flag, err := s.WithContext("shared", nil, 0, 0)
	require.NoError(t, err)
	e, ok = flag.ContextLookup("shared", 1e12)
	require.True(t, ok, "no decay: lives until removed")
	assert.Nil(t, e.Value, "a presence flag")
	assert.Nil(t, e.TurnsRemaining)
	assert.Nil(t, e.ExpiresAt)

	for _, bad := range []string{"", "a:b:c", ":k", "owner:", string(make([]byte, MaxContextKeyBytes+1))} {
		_, err := s.WithContext(bad, nil, 1, 0)
		assert.Error(t, err, "%q", bad)
	}
}
