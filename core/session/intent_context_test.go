package session

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func withContext(t *testing.T, ctx map[string]any) Session {
	t.Helper()
	s, _, err := Parse(map[string]any{"session_id": "s", "intent_context": ctx})
	require.NoError(t, err)
	return s
}

func entry(value any, fields ...any) map[string]any {
	e := map[string]any{"value": value}
	for i := 0; i < len(fields); i += 2 {
		e[fields[i].(string)] = fields[i+1]
	}
	return e
}

func TestLive_CTX04(t *testing.T) {
	s := withContext(t, map[string]any{
		"forever":     entry("x"),
		"flag":        entry(nil),
		"two_turns":   entry("x", "turns_remaining", int64(2)),
		"no_turns":    entry("x", "turns_remaining", int64(0)),
		"null_turns":  entry("x", "turns_remaining", nil),
		"future":      entry("x", "expires_at", 200.0),
		"past":        entry("x", "expires_at", 100.0),
		"novalue":     map[string]any{"turns_remaining": int64(1)},
		"wrong_value": entry(int64(3)),
	})
	tests := []struct {
		key  string
		live bool
	}{
		{"forever", true}, {"flag", true}, {"two_turns", true}, {"no_turns", false}, {"null_turns", true},
		{"future", true}, {"past", false}, {"novalue", false}, {"wrong_value", false}, {"missing", false},
	}
	for _, tt := range tests {
		_, ok := s.ContextLookup(tt.key, 100)
		assert.Equal(t, tt.live, ok, tt.key)
	}
}

func TestPruneAndDecay_CTX06(t *testing.T) {
	s := withContext(t, map[string]any{
		"one":   entry("a", "turns_remaining", int64(1)),
		"three": entry("b", "turns_remaining", int64(3)),
		"dead":  entry("c", "turns_remaining", int64(0)),
		"bad":   "not an object",
		"keep":  entry("d"),
	})
	pruned, notes := s.PruneContext(100, 0)
	assert.Equal(t, []string{"keep", "one", "three"}, keysOf(pruned.contextMap()), "dead and malformed entries go before the round")
	assert.Len(t, notes, 1, "a malformed entry is reported")

	// The round writes "new" and rewrites "three"; both are exempt.
	after, err := pruned.With(FieldIntentContext, map[string]any{
		"one": entry("a", "turns_remaining", int64(1)), "keep": entry("d"),
		"three": entry("B", "turns_remaining", int64(3)), "new": entry("n", "turns_remaining", int64(1)),
	})
	require.NoError(t, err)
	decayed := after.DecrementContext(pruned)
	got := decayed.contextMap()
	assert.Equal(t, entry("a", "turns_remaining", int64(0)), got["one"],
		"turns_remaining 1 lived for this round; at 0 it stays in the session the round sends out")
	_, live := decayed.ContextLookup("one", 100)
	assert.False(t, live, "at 0 it is dead (CTX-04): no engine or handler sees it")
	next, _ := decayed.PruneContext(100, 0)
	assert.NotContains(t, next.contextMap(), "one", "and it is removed before the next round")
	assert.Equal(t, entry("B", "turns_remaining", int64(3)), got["three"], "written this round: exempt")
	assert.Equal(t, entry("n", "turns_remaining", int64(1)), got["new"], "written this round: exempt")
	assert.Equal(t, entry("d"), got["keep"], "no turns_remaining: not decremented")

	unchanged := pruned.DecrementContext(pruned).contextMap()
	assert.Equal(t, int64(2), unchanged["three"].(map[string]any)["turns_remaining"])
}

func TestCap_CTX05(t *testing.T) {
	ctx := map[string]any{}
	for i := 0; i < 5; i++ {
		ctx[fmt.Sprint("k", i)] = entry("v", "turns_remaining", int64(10-i))
	}
	ctx["soon"] = entry("v", "expires_at", 150.0)
	ctx["late"] = entry("v", "expires_at", 900.0)
	s := withContext(t, ctx)
	pruned, notes := s.PruneContext(100, 4)
	assert.Equal(t, []string{"k0", "k1", "late", "soon"}, keysOf(pruned.contextMap()),
		"evict smallest turns_remaining first, then earliest expires_at")
	assert.Len(t, notes, 3)
}

func TestContextRules_CTX11_CTX12_CTX13(t *testing.T) {
	refs, err := ParseContextRefs([]any{"ordering", map[string]any{"key": "topping", "scope": "shared"}, map[string]any{"key": "x"}})
	require.NoError(t, err)
	assert.Equal(t, []ContextRef{{Key: "ordering"}, {Key: "topping", Shared: true}, {Key: "x"}}, refs, "a string is private scope")
	for _, bad := range []any{"ordering", []any{map[string]any{"key": "a", "scope": "global"}}, []any{""}, []any{"a:b"}, []any{int64(1)}} {
		_, err := ParseContextRefs(bad)
		assert.Error(t, err, "%v", bad)
	}

	s := withContext(t, map[string]any{
		"pizza:ordering": entry(nil),
		"topping":        entry("cheese"),
		"pizza:topping":  entry("mushrooms"),
		"pizza:size":     entry(nil),
		"other:crust":    entry("thin"),
	})
	req := []ContextRef{{Key: "ordering"}}
	assert.True(t, s.ContextAllows("pizza", req, nil, 0), "private key of the owner")
	assert.False(t, s.ContextAllows("pasta", req, nil, 0), "another owner's private key does not count")
	assert.False(t, s.ContextAllows("pizza", []ContextRef{{Key: "ordering", Shared: true}}, nil, 0), "shared looks up the bare key only")
	assert.False(t, s.ContextAllows("pizza", req, []ContextRef{{Key: "topping", Shared: true}}, 0), "any excluded key live = no report")

	v, ok := s.ContextSlot("pizza", "topping", 0)
	assert.True(t, ok)
	assert.Equal(t, "mushrooms", v, "private beats shared")
	v, _ = s.ContextSlot("pasta", "topping", 0)
	assert.Equal(t, "cheese", v, "shared for everyone")
	_, ok = s.ContextSlot("pizza", "size", 0)
	assert.False(t, ok, "flags are never slot candidates")
	_, ok = s.ContextSlot("pizza", "crust", 0)
	assert.False(t, ok)
}

func TestStoreMergePerEntry_CTX09_SES02(t *testing.T) {
	st := NewStore()
	a, _, _ := Parse(map[string]any{"lang": "en-US", "intent_context": map[string]any{"a": entry("1"), "b": entry("2")}})
	st.Merge(a)
	b, _, _ := Parse(map[string]any{"lang": nil, "intent_context": map[string]any{"a": nil, "c": entry("3")}})
	got := st.Merge(b).Map()
	assert.Equal(t, "en-US", got["lang"], "SES-02: null reads as omitted and keeps the stored value")
	assert.Equal(t, map[string]any{"b": entry("2"), "c": entry("3")}, got["intent_context"], "CTX-09: null deletes, object sets, absent keeps")
}

func TestStoreCommitKeepsConcurrentChanges_SES2_02(t *testing.T) {
	st := NewStore()
	start, _, _ := Parse(map[string]any{"lang": "en-US", "x": "old", "gone": true, "intent_context": map[string]any{"k1": entry("1")}})
	st.Replace(start)
	base := st.Get()

	// Another lifecycle commits first.
	other, _ := base.With("y", "theirs")
	other, _ = other.With(FieldIntentContext, map[string]any{"k1": entry("1"), "k2": entry("2")})
	st.Commit(base, other)

	mine, _ := base.With("x", "mine")
	mine = mine.Without("gone")
	mine, _ = mine.With(FieldIntentContext, map[string]any{"k3": entry("3")})
	got := st.Commit(base, mine).Map()
	assert.Equal(t, "mine", got["x"], "a field I changed is set")
	assert.NotContains(t, got, "gone", "a field I removed is deleted")
	assert.Equal(t, "theirs", got["y"], "a field only the other lifecycle changed stays")
	assert.Equal(t, map[string]any{"k2": entry("2"), "k3": entry("3")}, got["intent_context"],
		"context entries merge per entry: mine removed k1 and wrote k3, theirs wrote k2")

	fresh := NewStore()
	fresh.Replace(start)
	assert.Equal(t, mine.Map(), fresh.Commit(start, mine).Map(), "without concurrency a commit equals Replace")
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
