package character_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/jcp/character"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// IMPACT_EMOTION moves valence and confidence by the impact's size and the
// name follows the stronger one (spec/jibo.md §3.2 step 4).
func TestImpactEmotion(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	var changes []character.Snapshot
	s := character.New(character.Options{Now: clk.now, HalfLife: -1, OnChange: func(s character.Snapshot) { changes = append(changes, s) }})
	ctx := context.Background()
	assert.Equal(t, character.Emotion{Name: character.Neutral}, s.Emotion())

	tests := []struct {
		valence, confidence jcp.Impact
		want                character.Emotion
	}{
		{jcp.ImpactHighPos, "", character.Emotion{Name: character.Pleased, Valence: 0.5}},
		{jcp.ImpactMediumPos, jcp.ImpactLowNeg, character.Emotion{Name: character.Pleased, Valence: 0.75, Confidence: -0.1}},
		{jcp.ImpactHighPos, jcp.ImpactNone, character.Emotion{Name: character.Pleased, Valence: 1, Confidence: -0.1}}, // clamped
		{jcp.ImpactHighNeg, jcp.ImpactHighNeg, character.Emotion{Name: character.Insecure, Valence: 0.5, Confidence: -0.6}},
		{jcp.ImpactHighNeg, jcp.ImpactMediumPos, character.Emotion{Name: character.Insecure, Valence: 0, Confidence: -0.35}},
		{"", jcp.ImpactHighPos, character.Emotion{Name: character.Confident, Valence: 0, Confidence: 0.15}},
		{jcp.ImpactHighNeg, "", character.Emotion{Name: character.Displeased, Valence: -0.5, Confidence: 0.15}},
	}
	for _, tt := range tests {
		require.NoError(t, s.ImpactEmotion(ctx, jcp.ImpactEmotion{Valence: tt.valence, Confidence: tt.confidence}))
		assert.Equal(t, tt.want, s.Emotion(), "%s/%s", tt.valence, tt.confidence)
	}
	assert.Len(t, changes, len(tests))
	assert.ErrorContains(t, s.ImpactEmotion(ctx, jcp.ImpactEmotion{Valence: "HUGE"}), `valence: unknown impact "HUGE"`)
}

func TestEmotionFades(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	s := character.New(character.Options{Now: clk.now, HalfLife: time.Minute})
	require.NoError(t, s.ImpactEmotion(context.Background(), jcp.ImpactEmotion{Valence: jcp.ImpactHighPos}))
	clk.t = clk.t.Add(time.Minute)
	assert.Equal(t, character.Emotion{Name: character.Pleased, Valence: 0.25}, s.Emotion())
	clk.t = clk.t.Add(2 * time.Minute)
	assert.Equal(t, character.Neutral, s.Emotion().Name, "faded below the neutral band")
}

// SET_PRESENT_PERSON sets who the robot talks to.
func TestSetPresentPerson(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	s := character.New(character.Options{Now: clk.now})
	_, ok := s.PresentPerson()
	assert.False(t, ok)
	require.NoError(t, s.SetPresentPerson(context.Background(), jcp.SetPresentPerson{LooperID: "ann", Source: jcp.SourceUserOverride, Confidence: 100}))
	p, ok := s.PresentPerson()
	require.True(t, ok)
	assert.Equal(t, character.Person{LooperID: "ann", Source: "USER_OVERRIDE", Confidence: 100, Since: clk.t}, p)
	snap := s.Snapshot()
	require.NotNil(t, snap.Person)
	assert.Equal(t, "ann", snap.Person.LooperID)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, s.SetPresentPerson(ctx, jcp.SetPresentPerson{LooperID: "bob"}), context.Canceled)
	p, _ = s.PresentPerson()
	assert.Equal(t, "ann", p.LooperID, "a cancelled call changes nothing")
}

// The executor drives the state: a skill's JCP changes what the next
// request's RuntimeContext.character will say.
func TestStateThroughExecutor(t *testing.T) {
	s := character.New(character.Options{})
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: nopVoice{}, State: s})
	require.NoError(t, err)
	a, err := jcp.ParseAction([]byte(`{"type":"JCP","config":{"jcp":{"id":"seq","type":"SEQUENCE","children":[
		{"id":"p","type":"SET_PRESENT_PERSON","looperId":"ann","source":"VOICE","confidence":80},
		{"id":"e","type":"IMPACT_EMOTION","valence":"MEDIUM_POS","confidence":"LOW_POS"}]}}}`))
	require.NoError(t, err)
	_, err = ex.Run(context.Background(), a)
	require.NoError(t, err)
	snap := s.Snapshot()
	assert.Equal(t, character.Pleased, snap.Emotion.Name)
	assert.Equal(t, "ann", snap.Person.LooperID)
}

type nopVoice struct{}

func (nopVoice) Say(context.Context, string) error { return nil }
