//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingUnderstand reads "set a timer for N seconds" as the timer with
// N, "what time is it"/"whats the time" as the clock, anything else as
// nothing, and counts the sentences it is asked about.
func countingUnderstand(asked map[string]int) func(context.Context, string) (Meaning, error) {
	return func(_ context.Context, text string) (Meaning, error) {
		asked[text]++
		switch text {
		case "what time is it", "whats the time":
			return Meaning{Intent: "clock:time", Parsed: true}, nil
		case "set a timer for ten seconds", "set a timer for ten second":
			return Meaning{Intent: "timer:set", Parsed: true, Slots: map[string]string{"duration": text[len("set a timer for "):]}}, nil
		case "set a timer for two seconds":
			return Meaning{Intent: "timer:set", Parsed: true, Slots: map[string]string{"duration": "two seconds"}}, nil
		}
		return Meaning{}, nil
	}
}

// TestRival: the rival is the best sentence of another meaning; its
// margin is how much the best sentence of the heard one scored over it,
// per frame; another wording of the same meaning (a plural's s) is no
// rival; and the other sentences' meanings are asked for once, however
// many utterances reach them, the heard one's each time (it tells the
// cache whether the intents changed).
func TestRival(t *testing.T) {
	asked := map[string]int{}
	r := &Recognizer{cfg: Config{Understand: countingUnderstand(asked)}, log: slog.New(slog.DiscardHandler)}
	g := search{accepts: func(string) bool { return true }, meanings: &meaningCache{},
		prons: map[string][]string{"second": nil, "seconds": nil}}
	hyps := []result{
		{text: "set a timer for ten seconds", score: -1000},
		{text: "set a timer for ten second", score: -1100},
		{text: "set a timer for two seconds", score: -1300},
		{text: "what time is it", score: -1500},
	}
	for range 3 {
		text, margin, ok, err := r.rival(t.Context(), hyps, g, "set a timer for ten seconds", 100)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, "set a timer for two seconds", text)
		assert.InDelta(t, 3.0, margin, 1e-9)
	}
	assert.Equal(t, map[string]int{"set a timer for ten seconds": 3, "set a timer for ten second": 1, "set a timer for two seconds": 1}, asked,
		"each sentence asked once; the walk stops at the first rival")

	_, _, ok, err := r.rival(t.Context(), hyps[:2], g, "set a timer for ten seconds", 100)
	require.NoError(t, err)
	assert.False(t, ok, "a plural's s is the same meaning: no rival")

	// The best of another meaning ranked above every sentence of the
	// heard one: the heard one wins by nothing.
	text, margin, ok, err := r.rival(t.Context(), hyps[2:3], g, "what time is it", 100)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Zero(t, margin)
	assert.Equal(t, "set a timer for two seconds", text)

	_, _, ok, err = r.rival(t.Context(), hyps[3:], g, "whats the time", 100)
	require.NoError(t, err)
	assert.False(t, ok, "another wording of the same intent is no rival")

	// A path through the garbage path is no sentence, though the
	// grammar's Accepts would read it as one: never a rival.
	g.garbage = true
	text, margin, ok, err = r.rival(t.Context(), []result{
		{text: "=set =a =timer =for =two =seconds", score: -900},
		{text: "set a timer for ten seconds", score: -1000},
		{text: "what time is it", score: -1500},
	}, g, "set a timer for ten seconds", 100)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "what time is it", text)
	assert.InDelta(t, 5.0, margin, 1e-9)
}

// TestMeaningCache: a sentence's meaning is remembered, a failure is
// not, the cache starts again when full, and a nil cache asks every time.
func TestMeaningCache(t *testing.T) {
	asked := map[string]int{}
	understand := countingUnderstand(asked)
	knows := func(string) bool { return false }
	var c meaningCache
	for range 2 {
		k, err := c.key(t.Context(), understand, "what time is it", knows)
		require.NoError(t, err)
		assert.Equal(t, "clock:time", k)
	}
	assert.Equal(t, 1, asked["what time is it"])

	fail := errors.New("no stack")
	_, err := c.key(t.Context(), func(context.Context, string) (Meaning, error) { return Meaning{}, fail }, "hello", knows)
	assert.ErrorIs(t, err, fail)
	k, err := c.key(t.Context(), understand, "hello", knows)
	require.NoError(t, err)
	assert.Empty(t, k, "the failure was not remembered")

	for i := range maxMeanings {
		c.keys[string(rune('a'+i%26))+string(rune(i))] = ""
	}
	_, err = c.key(t.Context(), understand, "whats the time", knows)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(c.keys), maxMeanings, "bounded")

	var none *meaningCache
	for range 2 {
		_, err := none.key(t.Context(), understand, "set a timer for two seconds", knows)
		require.NoError(t, err)
	}
	assert.Equal(t, 2, asked["set a timer for two seconds"])
}

// TestMeaningCacheFollowsTheIntents: meanings remembered from one
// generation of the intent engines are not answered once the engines
// report a newer one (a skill registered before the grammar is made
// again, or a rebuild that failed); an answer from an older generation,
// asked before the change, is not kept.
func TestMeaningCacheFollowsTheIntents(t *testing.T) {
	knows := func(string) bool { return false }
	gen, intent := uint64(1), "chat:hello"
	asked := 0
	understand := func(context.Context, string) (Meaning, error) {
		asked++
		return Meaning{Intent: intent, Parsed: true, Generation: gen}, nil
	}
	var c meaningCache
	k, err := c.key(t.Context(), understand, "hi there", knows)
	require.NoError(t, err)
	assert.Equal(t, "chat:hello", k)

	gen, intent = 2, "greet:hi" // a skill registered and learnt
	k, err = c.key(t.Context(), understand, "hi there", knows)
	require.NoError(t, err)
	assert.Equal(t, "chat:hello", k, "remembered until the cache hears of the new generation")
	_, err = c.fresh(t.Context(), understand, "what time is it", knows)
	require.NoError(t, err)
	k, err = c.key(t.Context(), understand, "hi there", knows)
	require.NoError(t, err)
	assert.Equal(t, "greet:hi", k, "asked again under the new generation")
	assert.Equal(t, 3, asked)

	gen, intent = 1, "chat:hello" // a late answer from before the change
	_, err = c.fresh(t.Context(), understand, "hello", knows)
	require.NoError(t, err)
	gen = 2
	asked = 0
	_, err = c.key(t.Context(), understand, "hello", knows)
	require.NoError(t, err)
	assert.Equal(t, 1, asked, "the old answer was not kept")
	k, err = c.key(t.Context(), understand, "hi there", knows)
	require.NoError(t, err)
	assert.Equal(t, "greet:hi", k)
	assert.Equal(t, 1, asked, "the newer generation's answers kept")
}

// TestMeaningCacheFollowsTheContexts: a claim depends on the session's
// live contexts (a follow-up is claimed only while its context is live,
// CTX-11), so a meaning remembered while a context was live is not
// answered once an answer says the context is gone, nor one remembered
// without it once a context is live.
func TestMeaningCacheFollowsTheContexts(t *testing.T) {
	knows := func(string) bool { return false }
	live := true
	asked := 0
	understand := func(_ context.Context, s string) (Meaning, error) {
		asked++
		if s == "make it five minutes" && live {
			return Meaning{Intent: "jibo.timer:change_timer", Parsed: true, Generation: 1, Context: `"jibo.timer:set"`}, nil
		}
		if live {
			return Meaning{Generation: 1, Context: `"jibo.timer:set"`}, nil
		}
		return Meaning{Generation: 1}, nil
	}
	var c meaningCache
	for _, tt := range []struct {
		name  string
		live  bool
		fresh string // the sentence the rival check asks afresh first
		want  string
		asked int
	}{
		{"a timer was just set", true, "set a timer", "jibo.timer:change_timer", 2},
		{"remembered while the context lives", true, "set a timer", "jibo.timer:change_timer", 1},
		{"the context is gone", false, "set a timer", "", 2},
		{"remembered without a context", false, "set a timer", "", 1},
		{"a timer was set again", true, "set a timer", "jibo.timer:change_timer", 2},
	} {
		live, asked = tt.live, 0
		_, err := c.fresh(t.Context(), understand, tt.fresh, knows)
		require.NoError(t, err, tt.name)
		k, err := c.key(t.Context(), understand, "make it five minutes", knows)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, k, tt.name)
		assert.Equal(t, tt.asked, asked, tt.name)
	}
}

// TestRivalsShareTheNBest: with more than one hypothesis asked for and
// the rival check on, both read the one n-best walk: the hypotheses are
// those the recogniser returns without the check, and the check finds
// its rival among them.
func TestRivalsShareTheNBest(t *testing.T) {
	// Every sentence its own meaning: any other sentence is a rival.
	itself := func(_ context.Context, text string) (Meaning, error) { return Meaning{Intent: text}, nil }
	plain := newTestRecognizer(t, Config{NBest: 3})
	checked := newTestRecognizer(t, Config{NBest: 3, RivalMargin: -1, Understand: itself})
	// Faint noise gives the lattice more than one sentence.
	pcm := speak(t, "set a timer for four minutes")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range pcm {
		pcm[i] = int16(max(-32768, min(32767, float64(pcm[i])+300*rng.NormFloat64())))
	}
	want, err := plain.Recognize(t.Context(), pcm)
	require.NoError(t, err)
	got, v, err := checked.RecognizeVerdict(t.Context(), pcm)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, want, got)
	assert.Equal(t, "set a timer for four minutes", got[0].Text)
	require.Greater(t, len(want), 1, "the lattice holds other sentences")
	assert.Contains(t, []string{want[1].Text, "hey jibo " + want[1].Text}, v.Rival, "the rival is the next sentence of the walk")
}
