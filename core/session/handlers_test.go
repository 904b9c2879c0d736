package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func entries(pairs ...any) []HandlerEntry {
	var out []HandlerEntry
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, HandlerEntry{SkillID: pairs[i].(string), ActivatedAt: pairs[i+1].(float64)})
	}
	return out
}

func TestHandlersRead(t *testing.T) {
	s, _, err := Parse(map[string]any{"active_handlers": []any{
		map[string]any{"skill_id": "a", "activated_at": 10.5},
		"not an object",
		map[string]any{"skill_id": "", "activated_at": 1.0},
		map[string]any{"skill_id": "b"},
		map[string]any{"skill_id": "c", "activated_at": int64(7)},
		map[string]any{"skill_id": "a", "activated_at": 99.0},
	}})
	require.NoError(t, err)
	assert.Equal(t, entries("a", 10.5, "c", 7.0), s.Handlers(FieldActiveHandlers),
		"malformed elements are skipped, a repeated skill keeps its head-most entry (CONV-01)")
	assert.Nil(t, Empty().Handlers(FieldConverseHandlers), "absent = [] (SES-05)")
}

func TestPushHandler_PIPE19_CONV02_CONV03(t *testing.T) {
	tests := []struct {
		name   string
		list   []HandlerEntry
		skill  string
		max    int
		keep   string
		expect []HandlerEntry
	}{
		{"push onto empty", nil, "a", 4, "", entries("a", 100.0)},
		{"older entry of the same skill dropped (PIPE-19)", entries("b", 2.0, "a", 1.0), "a", 4, "", entries("a", 100.0, "b", 2.0)},
		{"over the cap the tail goes (CONV-02)", entries("b", 3.0, "c", 2.0, "d", 1.0), "a", 3, "", entries("a", 100.0, "b", 3.0, "c", 2.0)},
		{"the response-mode holder is never evicted (CONV-03)", entries("b", 3.0, "c", 2.0, "d", 1.0), "a", 3, "d", entries("a", 100.0, "b", 3.0, "d", 1.0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.expect, PushHandler(tt.list, tt.skill, 100, tt.max, tt.keep))
		})
	}
}

func TestRecency_PIPE20(t *testing.T) {
	list := entries("a", 5.0, "b", 9.0, "c", 9.0, "d", 1.0)
	assert.Equal(t, 1, MostRecent(list, nil), "highest activated_at; a tie goes to the entry nearest the head")
	assert.Equal(t, 0, MostRecent(list, func(e HandlerEntry) bool { return e.SkillID == "a" || e.SkillID == "d" }))
	assert.Equal(t, -1, MostRecent(list, func(HandlerEntry) bool { return false }))
	assert.Equal(t, entries("b", 9.0, "c", 9.0, "a", 5.0, "d", 1.0), ByRecency(list, nil))
	assert.Equal(t, entries("a", 5.0, "d", 1.0), RemoveHandler(entries("a", 5.0, "x", 1.0, "d", 1.0), "x"))
}

func TestResponseMode_CONV05(t *testing.T) {
	_, ok := Empty().ResponseMode()
	assert.False(t, ok, "absent = no holder")
	bad, _, _ := Parse(map[string]any{"response_mode": map[string]any{"skill_id": "x"}})
	_, ok = bad.ResponseMode()
	assert.False(t, ok, "expires_at is required")
	s, err := Empty().WithResponseMode(ResponseMode{SkillID: "timer", ExpiresAt: 50})
	require.NoError(t, err)
	rm, ok := s.ResponseMode()
	assert.True(t, ok)
	assert.Equal(t, ResponseMode{SkillID: "timer", ExpiresAt: 50}, rm)
	_, err = Empty().WithResponseMode(ResponseMode{})
	assert.Error(t, err)
}

func TestWithPushed_PIPE19(t *testing.T) {
	s, _, err := Parse(map[string]any{"active_handlers": handlersAny("b", 3.0, "a", 1.0, "c", 2.0)})
	require.NoError(t, err)
	got := s.WithPushed(FieldActiveHandlers, "a", 100, 2, "")
	assert.Equal(t, entries("a", 100.0, "b", 3.0), got.Handlers(FieldActiveHandlers))
	assert.Equal(t, handlersAny("a", 100.0, "b", 3.0), got.Map()["active_handlers"], "the wire form matches")
	assert.Equal(t, entries("b", 3.0, "a", 1.0, "c", 2.0), s.Handlers(FieldActiveHandlers), "the original is unchanged")
}

func handlersAny(pairs ...any) []any {
	var out []any
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, map[string]any{"skill_id": pairs[i], "activated_at": pairs[i+1]})
	}
	return out
}
