package grammar

import (
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
