package grammar

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCorpus(t *testing.T) {
	intents := []Intent{
		{Skill: "s", Name: "a", Lang: "en-US", Templates: []string{"(set|start) a timer for {duration}", "volume {level}"},
			Entities: map[string][]string{"level": {"up", "down"}}},
		{Skill: "s", Name: "b", Lang: "en-US", Templates: []string{"call {who} now"}},
	}
	g, err := Build(intents, Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo", Sentences: -1})
	require.NoError(t, err)
	c, err := g.Corpus(100, 100_000)
	require.NoError(t, err)
	var got []string
	for _, s := range c.Sentences {
		got = append(got, strings.Join(s.Tokens, " "))
	}
	// The commands only (no wake phrase), slots as references, each
	// sentence with its intent's index.
	assert.ElementsMatch(t, []string{"set a timer for <c_duration>", "start a timer for <c_duration>", "volume <e0>", "call <open> now"}, got)
	for _, s := range c.Sentences {
		assert.Equal(t, strings.HasPrefix(s.Tokens[0], "call"), s.Intent == 1, s.Tokens)
	}
	assert.ElementsMatch(t, [][]string{{"down"}, {"up"}}, c.Slots["e0"])
	assert.Contains(t, c.Slots["c_duration"], []string{"five", "minutes"})
	assert.Contains(t, c.Slots["c_duration"], []string{"an", "hour", "and", "a", "half"})
	assert.Greater(t, len(c.Slots["c_duration"]), 10_000, "every length")
	// The open slot's values are the grammar's words, one each.
	assert.Contains(t, c.Slots["open"], []string{"timer"})

	_, err = g.Corpus(3, 100_000)
	assert.ErrorIs(t, err, ErrCorpusTooLarge)
	_, err = g.Corpus(100, 1000)
	assert.ErrorIs(t, err, ErrCorpusTooLarge)
}

// Wrapped copies are spread evenly over the sentences where there is
// not room for one each, also where the products pass 32 bits (a large
// corpus built on armv7).
func TestSpreadWrappedCopies(t *testing.T) {
	count := func(room, n int) int {
		got := 0
		for j := range n {
			if spreadWrapped(j, room, n) {
				got++
			}
		}
		return got
	}
	for _, tc := range []struct{ room, n, want int }{
		{10, 5, 5},
		{5, 5, 5},
		{2, 5, 2},
		{0, 5, 0},
		{-3, 5, 0},
		{1_000_000, 3_000_000, 1_000_000},
		{math.MaxInt32 - 1, math.MaxInt32, math.MaxInt32 - 1},
	} {
		if tc.n > 10_000_000 {
			// Too many to walk: the last sentences straddle the 32-bit
			// range, and there all but one get a copy.
			skipped := 0
			for j := tc.n - 1000; j < tc.n; j++ {
				if !spreadWrapped(j, tc.room, tc.n) {
					skipped++
				}
			}
			assert.LessOrEqual(t, skipped, 1, "room %d of %d", tc.room, tc.n)
			assert.True(t, spreadWrapped(tc.n-1, tc.room, tc.n), "the last sentence")
			continue
		}
		assert.Equal(t, tc.want, count(tc.room, tc.n), "room %d of %d", tc.room, tc.n)
	}
}
