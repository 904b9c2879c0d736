package pipeline

import (
	"context"
	"testing"

	"github.com/openjibo/jibod/core/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The winning stage's confidence and reason ride on ovos.intent.matched's
// context, for people watching; its data stays as PIPE-25 fixes it.
func TestMatchedCarriesConfidenceAndWhy(t *testing.T) {
	tests := []struct {
		name string
		m    Match
		want map[string]any
	}{
		{"with a reason", Match{Confidence: 0.75, Why: `sample "hi": exact match`},
			map[string]any{KeyMatchConfidence: 0.75, KeyMatchWhy: `sample "hi": exact match`}},
		{"without one", Match{Confidence: 1}, map[string]any{KeyMatchConfidence: 1.0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			m.SkillID, m.IntentName, m.Slots = "greeter", "hello", map[string]string{}
			r := newRig(t, Config{
				Plugins: []Plugin{&scripted{id: "a", match: &m}},
				Invoker: handlerFunc(func(context.Context, Dispatch) (session.Session, error) { return session.Session{}, nil }),
			})
			r.utter(t, hello(), nil)
			msgs := r.rec.waitHandled(t, 1)
			require.Equal(t, TopicMatched, msgs[1].Type)
			got := map[string]any{}
			for _, k := range []string{KeyMatchConfidence, KeyMatchWhy} {
				if v, ok := msgs[1].Context[k]; ok {
					got[k] = v
				}
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, map[string]any{"skill_id": "greeter", "intent_name": "hello", "lang": "en-US",
				"utterance": "hello", "slots": map[string]any{}, "pipeline_id": "a"}, msgs[1].Data, "PIPE-25")
			assert.NotContains(t, msgs[2].Context, KeyMatchWhy, "the dispatch does not inherit it")
		})
	}
}
