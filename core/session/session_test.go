package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		id      string
		warns   int
		wantErr bool
	}{
		{"absent session is default (SES-04)", nil, "default", 0, false},
		{"empty object is default (SES-04)", map[string]any{}, "default", 0, false},
		{"named session", map[string]any{"session_id": "kitchen"}, "kitchen", 0, false},
		{"empty id is default (SES-04)", map[string]any{"session_id": ""}, "default", 0, false},
		{"wrong-typed id read as omitted (SES-02)", map[string]any{"session_id": int64(3)}, "default", 1, false},
		{"null field read as omitted (SES-02)", map[string]any{"lang": nil}, "default", 1, false},
		{"bad pipeline warns (SES-02)", map[string]any{"pipeline": []any{"a", int64(1)}}, "default", 1, false},
		{"string carrier is malformed (SES-08)", "default", "", 0, true},
		{"array carrier is malformed (SES-08)", []any{}, "", 0, true},
		{"number carrier is malformed (SES-08)", int64(1), "", 0, true},
		{"bool carrier is malformed (SES-08)", true, "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, warns, err := Parse(tt.in)
			if tt.wantErr {
				assert.ErrorIs(t, err, ErrMalformedCarrier)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.id, s.ID())
			assert.Len(t, warns, tt.warns)
		})
	}
}

func TestUnknownKeysPropagate_SES07_SES17(t *testing.T) {
	in := map[string]any{"session_id": "x", "vendor_thing": map[string]any{"a": int64(1)}, "lang": int64(5)}
	s, _, err := Parse(in)
	require.NoError(t, err)
	assert.Equal(t, in, s.Map(), "unknown and wrong-typed fields stay on the wire")
	_, ok := s.String(FieldLang)
	assert.False(t, ok)
}

func TestResolveLang_SES12(t *testing.T) {
	d := Defaults{Lang: "en-US", EnabledLangs: []string{"pt-PT", "de-DE"}}
	tests := []struct {
		name  string
		entry string
		sess  map[string]any
		want  string
	}{
		{"entry data.lang wins", "pt-PT", map[string]any{"lang": "de-DE"}, "pt-PT"},
		{"stt_lang before detected and request", "", map[string]any{"stt_lang": "de-DE", "detected_lang": "pt-PT", "lang": "en-US"}, "de-DE"},
		{"detected before request", "", map[string]any{"detected_lang": "pt-PT", "request_lang": "de-DE"}, "pt-PT"},
		{"request before lang", "", map[string]any{"request_lang": "de-DE", "lang": "pt-PT"}, "de-DE"},
		{"lang", "", map[string]any{"lang": "pt-PT"}, "pt-PT"},
		{"disabled rung skipped (§14.7)", "fr-FR", map[string]any{"lang": "de-DE"}, "de-DE"},
		{"nothing usable: deployment default", "", map[string]any{"lang": "xx-bad-"}, "en-US"},
		{"case-insensitive enabled check", "PT-pt", nil, "PT-pt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, err := Parse(tt.sess)
			require.NoError(t, err)
			before := s.Map()
			assert.Equal(t, tt.want, s.ResolveLang(tt.entry, d))
			assert.Equal(t, before, s.Map(), "resolution does not mutate signals")
		})
	}
}

func TestPipelineAndDenylists(t *testing.T) {
	d := Defaults{Lang: "en-US", Pipeline: []string{"templates-high", "fallback"}}
	s, _, err := Parse(map[string]any{
		"blacklisted_skills":    []any{"evil"},
		"blacklisted_intents":   []any{"clock:time", "bare"},
		"blacklisted_pipelines": []any{"fallback"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"templates-high", "fallback"}, s.Pipeline(d), "PIPE-13: default pipeline when omitted")
	assert.True(t, s.PipelineBlocked("fallback"))
	assert.True(t, s.SkillBlocked("evil"))
	assert.True(t, s.IntentBlocked("clock", "time"))
	assert.False(t, s.IntentBlocked("x", "bare"), "PIPE-14: bare entry never broadened")

	s2, err := s.With(FieldPipeline, []string{"keywords-high"})
	require.NoError(t, err)
	assert.Equal(t, []string{"keywords-high"}, s2.Pipeline(d))
	_, ok := s.Strings(FieldPipeline)
	assert.False(t, ok, "With does not modify the original")
}

func TestStoreMergeAndReplace_SES2_02(t *testing.T) {
	st := NewStore()
	a, _, _ := Parse(map[string]any{"lang": "en-US", "pipeline": []any{"x"}})
	st.Merge(a)
	b, _, _ := Parse(map[string]any{"lang": "pt-PT"})
	got := st.Merge(b)
	assert.Equal(t, map[string]any{"lang": "pt-PT", "pipeline": []any{"x"}}, got.Map(), "omitted keeps, present replaces")
	c, _, _ := Parse(map[string]any{"lang": "de-DE"})
	st.Replace(c)
	assert.Equal(t, map[string]any{"lang": "de-DE"}, st.Get().Map(), "a committed snapshot deletes by omission")
}

func TestDefaultsValidate(t *testing.T) {
	assert.NoError(t, Defaults{Lang: "en-US"}.Validate())
	assert.Error(t, Defaults{Lang: "english"}.Validate())
	assert.Error(t, Defaults{Lang: "en-US", EnabledLangs: []string{"??"}}.Validate())
	assert.Error(t, Defaults{Lang: "en-US", Pipeline: []string{""}}.Validate())
}

func TestCloneIsDeep(t *testing.T) {
	s, _, err := Parse(map[string]any{"session_id": "k", "intent_context": map[string]any{"a": map[string]any{"value": "v"}}})
	require.NoError(t, err)
	c := s.Clone()
	c.View()["note"] = "x"
	c.View()["intent_context"].(map[string]any)["a"].(map[string]any)["value"] = "changed"
	assert.Equal(t, map[string]any{"session_id": "k", "intent_context": map[string]any{"a": map[string]any{"value": "v"}}}, s.Map(),
		"changes to a clone, even in place, never reach the original")
	assert.True(t, Session{}.Clone().IsZero())
}
