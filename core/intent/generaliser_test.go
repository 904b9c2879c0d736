package intent

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/session"
)

// fakeGeneraliser is a generalising source that answers what it is told,
// per utterance, and counts what it is asked and what it learnt.
type fakeGeneraliser struct {
	mu      sync.Mutex
	answers map[string]Candidate
	asked   int
	learnt  []int // the number of registrations each Learn saw
}

func (f *fakeGeneraliser) Name() string  { return "guesser" }
func (f *fakeGeneraliser) Stage() string { return "guesser" }

func (f *fakeGeneraliser) Candidates(_ context.Context, req Request) ([]Candidate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	c, ok := f.answers[req.Utterance]
	if !ok || !req.Keep(c.SkillID, c.IntentName) {
		return nil, nil
	}
	return []Candidate{c}, nil
}

func (f *fakeGeneraliser) Learn(_ context.Context, e *TemplateEngine) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.learnt = append(f.learnt, len(e.Registrations(DefaultSession)))
	return nil
}

func (f *fakeGeneraliser) learns() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.learnt...)
}

func newGeneraliserStack(t *testing.T, g *fakeGeneraliser) *Stack {
	t.Helper()
	st, err := NewStack(StackConfig{Logger: slog.New(slog.DiscardHandler), Sources: []Source{g}})
	require.NoError(t, err)
	for _, def := range []TemplateIntent{
		{SkillID: "clock", IntentName: "time", Lang: "en-us", Samples: []string{"what time is it"}},
		{SkillID: "timer", IntentName: "set", Lang: "en-us", Samples: []string{"set a timer for {duration:duration}"}},
		{SkillID: "notes", IntentName: "say", Lang: "en-us", Samples: []string{"say {words}"}},
	} {
		_, err := st.Templates.Register(def)
		require.NoError(t, err)
	}
	return st
}

// TestGeneraliserStage: a generaliser's candidates are claimed by a stage
// of their own right after intents-high: a sure parse outranks it, it
// outranks a less sure parse, and a candidate its source refused is never
// claimed. The pipeline puts its stage before fallback-high.
func TestGeneraliserStage(t *testing.T) {
	g := &fakeGeneraliser{answers: map[string]Candidate{
		"what time is it":    {SkillID: "timer", IntentName: "set", Confidence: 0.99},
		"say hello there":    {SkillID: "clock", IntentName: "time", Confidence: 0.8},
		"tell me the hour":   {SkillID: "clock", IntentName: "time", Confidence: 0.9, Slots: map[string]string{}},
		"time please maybe":  {SkillID: "clock", IntentName: "time", Confidence: 0.6, Refused: "below the 0.70 needed"},
		"set a timer please": {SkillID: "timer", IntentName: "set", Confidence: 0.9, Refused: "required slot not said: duration", Missing: []string{"duration"}},
		"say it quietly":     {SkillID: "notes", IntentName: "say", Confidence: 0.3, Refused: "below the 0.70 needed"},
	}}
	st := newGeneraliserStack(t, g)
	assert.Equal(t, []string{"stop", "converse", "intents-high", "guesser", "fallback-high", "intents-medium", "fallback-medium",
		"intents-low", "fallback-low", "fallback-unknown"}, st.Pipeline())
	var ids []string
	for _, p := range st.Plugins() {
		ids = append(ids, p.ID())
	}
	assert.Equal(t, []string{BandHigh, "guesser", BandMedium, BandLow}, ids, "claim order")
	require.NotNil(t, st.Band("guesser"))

	tests := []struct {
		utterance, band, intent string
	}{
		{"what time is it", BandHigh, "clock:time"},   // a sure parse outranks it
		{"say hello there", "guesser", "clock:time"},  // it outranks a medium parse
		{"tell me the hour", "guesser", "clock:time"}, // what the templates do not spell
		{"time please maybe", "", ""},                 // refused: never claimed
		{"set a timer please", "", ""},                // a required slot not said
		{"say it quietly", BandMedium, "notes:say"},   // refused, so the parse
		{"flibbertigibbet", "", ""},                   // nothing at all
	}
	for _, tc := range tests {
		m, band, _, err := st.Claim(context.Background(), Query{Hypotheses: Texts(tc.utterance), Lang: "en-US", Session: session.Empty()})
		require.NoError(t, err)
		assert.Equal(t, tc.band, band, tc.utterance)
		if tc.intent == "" {
			assert.Nil(t, m, tc.utterance)
			continue
		}
		require.NotNil(t, m, tc.utterance)
		assert.Equal(t, tc.intent, m.SkillID+":"+m.IntentName, tc.utterance)
	}

	// The stage's own plugin claims the same way in a pipeline.
	m, err := st.Band("guesser").Match(context.Background(), []string{"tell me the hour"}, "en-US", session.Empty())
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Equal(t, "clock:time", m.SkillID+":"+m.IntentName)
	m, err = st.Band("guesser").Match(context.Background(), []string{"what time is it"}, "en-US", session.Empty())
	require.NoError(t, err)
	assert.Nil(t, m, "never over a sure parse")

	// Denylisted intents are never offered to it (PIPE-14).
	blocked := sess(t, map[string]any{"blacklisted_intents": []any{"clock:time"}})
	m, band, _, err := st.Claim(context.Background(), Query{Hypotheses: Texts("tell me the hour"), Lang: "en-US", Session: blocked})
	require.NoError(t, err)
	assert.Nil(t, m, band)
}

// TestGeneraliserSkippedWhenSure: once a parse is sure, the generaliser is
// not asked at all (its candidates could neither be claimed nor asked
// about), unless the caller wants every candidate explained.
func TestGeneraliserSkippedWhenSure(t *testing.T) {
	g := &fakeGeneraliser{}
	st := newGeneraliserStack(t, g)
	_, _, _, err := st.Claim(context.Background(), Query{Hypotheses: Texts("what time is it"), Lang: "en-US", Session: session.Empty()})
	require.NoError(t, err)
	assert.Zero(t, g.asked)
	_, _, _, err = st.Claim(context.Background(), Query{Hypotheses: Texts("say hello there"), Lang: "en-US", Session: session.Empty()})
	require.NoError(t, err)
	assert.Equal(t, 1, g.asked)
	_, _, _, err = st.Claim(context.Background(), Query{Hypotheses: Texts("what time is it"), Lang: "en-US", Session: session.Empty(), Explain: true})
	require.NoError(t, err)
	assert.Equal(t, 2, g.asked)
}

// TestStackGuess: what the robot asks about when nothing claimed (the
// fallback skill's "Were you asking about …?"): a candidate its source
// found likely but refused, at least GuessFloor likely, with the slots
// it lacks; never a weak parse, never junk, never when a band claims.
func TestStackGuess(t *testing.T) {
	g := &fakeGeneraliser{answers: map[string]Candidate{
		"time please maybe":  {SkillID: "clock", IntentName: "time", Confidence: 0.6, Refused: "below the 0.70 needed"},
		"set a timer please": {SkillID: "timer", IntentName: "set", Confidence: 0.9, Refused: "required slot not said: duration", Missing: []string{"duration"}},
		"tell me the hour":   {SkillID: "clock", IntentName: "time", Confidence: 0.9},
		"say it maybe":       {SkillID: "clock", IntentName: "time", Confidence: 0.45, Refused: "below the 0.70 needed"},
	}}
	st := newGeneraliserStack(t, g)
	guess := func(u string) (Candidate, bool) {
		c, ok, err := st.Guess(context.Background(), Query{Hypotheses: Texts(u), Lang: "en-US", Session: session.Empty()})
		require.NoError(t, err)
		return c, ok
	}
	c, ok := guess("time please maybe")
	require.True(t, ok)
	assert.Equal(t, "clock:time", c.SkillID+":"+c.IntentName)
	assert.Equal(t, "en-us", c.Lang)
	c, ok = guess("set a timer please")
	require.True(t, ok)
	assert.Equal(t, []string{"duration"}, c.Missing, "the part to ask for")
	for _, u := range []string{
		"tell me the hour",                // the stage claims it: nothing to ask
		"what time is it",                 // a band claims it
		"say it maybe",                    // refused, and too unlikely to ask about
		"the timer on the oven is broken", // a weak parse is no guess
		"flibbertigibbet",
	} {
		_, ok := guess(u)
		assert.False(t, ok, u)
	}
}

// TestStackLearns: a learning source learns the registered intents once
// they have been quiet for LearnQuiet, again after each change, and not
// when nothing changed; Learn learns at once; Close stops the goroutine.
func TestStackLearns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &fakeGeneraliser{}
		st := newGeneraliserStack(t, g)
		require.NoError(t, st.Start())
		time.Sleep(LearnQuiet / 2)
		assert.Empty(t, g.learns(), "not before registrations are quiet")
		time.Sleep(LearnQuiet)
		synctest.Wait()
		assert.Equal(t, []int{3}, g.learns(), "what was registered before Start")

		for _, name := range []string{"a", "b"} { // a burst: learnt once
			_, err := st.Templates.Register(TemplateIntent{SkillID: "more", IntentName: name, Lang: "en-us", Samples: []string{name + " please"}})
			require.NoError(t, err)
			time.Sleep(LearnQuiet / 4)
		}
		time.Sleep(2 * LearnQuiet)
		synctest.Wait()
		assert.Equal(t, []int{3, 5}, g.learns())

		require.NoError(t, st.Learn(context.Background()))
		assert.Equal(t, []int{3, 5}, g.learns(), "nothing changed: nothing to learn")
		st.Templates.Deregister("", "more", "a", "")
		require.NoError(t, st.Learn(context.Background()))
		assert.Equal(t, []int{3, 5, 4}, g.learns(), "Learn learns at once")
		time.Sleep(2 * LearnQuiet)
		synctest.Wait()
		assert.Equal(t, []int{3, 5, 4}, g.learns(), "the goroutine finds it learnt")
		st.Close()
	})
}

// TestGeneraliserTakesSlotsFromTheParse: when a generaliser's stage claims
// an intent that a template also parses, too unsure for the high band, the
// match's slots are the parse's: it places every word said, where the
// generaliser's slot finder may drop some ("say the rain is coming" keeps
// "the"). A parse whose duration slot holds words its parser does not
// read ("no make it please") lends no slots.
func TestGeneraliserTakesSlotsFromTheParse(t *testing.T) {
	g := &fakeGeneraliser{answers: map[string]Candidate{
		"say the rain is coming": {SkillID: "notes", IntentName: "say", Confidence: 0.95, Slots: map[string]string{"words": "rain is coming"}},
		"tell me the hour":       {SkillID: "clock", IntentName: "time", Confidence: 0.9, Slots: map[string]string{}},
		"no make it please":      {SkillID: "timer", IntentName: "change", Confidence: 0.95, Slots: map[string]string{}},
	}}
	st := newGeneraliserStack(t, g)
	_, err := st.Templates.Register(TemplateIntent{SkillID: "timer", IntentName: "change", Lang: "en-us",
		Samples: []string{"(make it|no make it) {duration:duration} [please]"}})
	require.NoError(t, err)
	ctx := context.Background()
	m, band, _, err := st.Claim(ctx, Query{Hypotheses: Texts("say the rain is coming"), Lang: "en-us", Session: session.Empty()})
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Equal(t, "guesser", band, "the open slot takes most words: the parse is below the high band")
	assert.Equal(t, map[string]string{"words": "the rain is coming"}, m.Slots)
	assert.Contains(t, m.Why, "slots from template")

	m, _, _, err = st.Claim(ctx, Query{Hypotheses: Texts("no make it please"), Lang: "en-us", Session: session.Empty()})
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Empty(t, m.Slots, "a duration its parser does not read is no value: the generaliser's own slots")
	assert.NotContains(t, m.Why, "slots from template")

	m, _, _, err = st.Claim(ctx, Query{Hypotheses: Texts("tell me the hour"), Lang: "en-us", Session: session.Empty()})
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Empty(t, m.Slots, "no parse of the intent: the generaliser's own slots")
}
