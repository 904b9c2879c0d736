package bus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateTopic(t *testing.T) {
	tests := []struct {
		topic string
		ok    bool
		why   string
	}{
		{"ovos.utterance.handle", true, "dotted topic"},
		{"jibo-clock:what_time", true, "dispatch topic, MSG-05"},
		{"A.b-c_d.9", true, "full charset, MSG-04"},
		{"", false, "empty, MSG-03"},
		{"has space", false, "whitespace, MSG-04"},
		{".lead", false, "leading dot, MSG-04"},
		{"trail.", false, "trailing dot, MSG-04"},
		{":lead", false, "leading colon, MSG-04"},
		{"trail:", false, "trailing colon, MSG-04"},
		{"a..b", false, "double dot, MSG-04"},
		{"a::b", false, "double colon, MSG-04"},
		{"a.:b", false, "dot colon, MSG-04"},
		{"a:.b", false, "colon dot, MSG-04"},
		{"a:b:c", false, "two colons, MSG-05"},
		{"ünïcode", false, "non-ASCII, MSG-04"},
		{"a/b", false, "slash, MSG-04"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			err := ValidateTopic(tt.topic)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

func TestDispatchTopic(t *testing.T) {
	topic, err := DispatchTopic("jibo-clock", "what_time")
	require.NoError(t, err)
	assert.Equal(t, "jibo-clock:what_time", topic)
	_, err = DispatchTopic("a:b", "c")
	assert.Error(t, err, "MSG-06: separator inside a component")
	_, err = DispatchTopic("", "c")
	assert.Error(t, err)
	s, i, ok := SplitDispatch("jibo-clock:what_time")
	assert.True(t, ok)
	assert.Equal(t, "jibo-clock", s)
	assert.Equal(t, "what_time", i)
	_, _, ok = SplitDispatch("ovos.utterance.handle")
	assert.False(t, ok)
}

func TestForwardKeepsContext_MSG12_MSG15(t *testing.T) {
	src := Message{Type: "a.b", Data: map[string]any{"x": int64(1)}, Context: map[string]any{
		"source": "cli", "destination": "skills", "session": map[string]any{"session_id": "s1", "unknown": true},
		"utterance_id": "u1",
	}}
	f := src.Forward("c.d", map[string]any{"y": "z"})
	assert.Equal(t, "c.d", f.Type)
	assert.Equal(t, map[string]any{"y": "z"}, f.Data)
	assert.Equal(t, src.Context, f.Context, "MSG-12: context copied unchanged")
	// The copy is deep: changing the derived session leaves the source alone.
	f.Context["session"].(map[string]any)["session_id"] = "changed"
	assert.Equal(t, "s1", src.Context["session"].(map[string]any)["session_id"])
}

func TestReply_MSG13(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{"swap source and destination",
			map[string]any{"source": "cli", "destination": "skills", "k": "v"},
			map[string]any{"source": "skills", "destination": "cli", "k": "v"}},
		{"destination list: first element becomes source",
			map[string]any{"source": "cli", "destination": []any{"a", "b"}},
			map[string]any{"source": "a", "destination": "cli"}},
		{"broadcast: source kept, destination written",
			map[string]any{"source": "cli"},
			map[string]any{"source": "cli", "destination": "cli"}},
		{"neither set: both stay absent",
			map[string]any{"session": map[string]any{"session_id": "x"}},
			map[string]any{"session": map[string]any{"session_id": "x"}}},
		{"destination without source (OPEN, literal reading)",
			map[string]any{"destination": "skills"},
			map[string]any{"source": "skills", "destination": "skills"}},
		{"empty strings read as absent, MSG-10",
			map[string]any{"source": "", "destination": ""},
			map[string]any{"source": "", "destination": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Type: "q", Data: map[string]any{}, Context: tt.in}
			r := m.Reply("q.answer", nil)
			assert.Equal(t, tt.want, r.Context)
			assert.Equal(t, map[string]any{}, r.Data)
		})
	}
}

func TestResponse_MSG14(t *testing.T) {
	m := Message{Type: "ovos.intent.list", Context: map[string]any{"source": "a"}}
	r, err := m.Response(map[string]any{"ok": true})
	require.NoError(t, err)
	assert.Equal(t, "ovos.intent.list.response", r.Type)
	assert.Equal(t, "a", r.Context["destination"])

	_, err = Message{Type: "x.response"}.Response(nil)
	assert.Error(t, err, "topic already ends in .response")
	_, err = Message{Type: "skill:intent"}.Response(nil)
	assert.Error(t, err, "dispatch topic")
}

func TestDestinations_MSG10_MSG11(t *testing.T) {
	m := Message{Type: "t", Context: map[string]any{"destination": []any{"", "audio", 3, "gui"}}}
	assert.Equal(t, []string{"audio", "gui"}, m.Destinations())
	assert.True(t, m.IsFor("audio"))
	assert.False(t, m.IsFor("Audio"), "exact equality only")
	assert.True(t, Message{Type: "t", Context: map[string]any{"destination": ""}}.IsFor("x"), "empty = broadcast")
	assert.True(t, Message{Type: "t"}.IsFor("x"))
}
