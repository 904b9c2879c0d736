package grammar

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPromptsSayEveryWord(t *testing.T) {
	gossip := Intent{Skill: "gossip", Name: "gossip", Lang: "en-us", Templates: []string{"gossip about {topic}"}}
	g, err := Build(append(builtinIntents(t), gossip), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	ps, err := g.Prompts(600, 1)
	require.NoError(t, err)
	require.Len(t, ps, 600)

	assert.Equal(t, Prompt{Text: "hey jibo", Wake: true}, ps[0], "the wake phrase alone comes first")
	said := map[string]bool{}
	intents := map[string]bool{}
	for i, p := range ps {
		assert.True(t, g.Accepts(p.Text), "prompt %d %q is a sentence of the grammar", i, p.Text)
		assert.Equal(t, strings.HasPrefix(p.Text, "hey jibo "), p.Wake && i > 0, "prompt %d %q", i, p.Text)
		if i > 0 {
			assert.Equal(t, i%2 == 1, p.Wake, "every other prompt starts with the wake phrase")
			assert.NotEmpty(t, p.Intent)
		}
		assert.NotEqual(t, "gossip:gossip", p.Intent, "open slots are left out")
		for _, w := range strings.Fields(p.Text) {
			said[w] = true
		}
		intents[p.Intent] = true
	}
	// Every intent without an open slot in all its sentences is visited.
	assert.GreaterOrEqual(t, len(intents)-1, g.Intents()-1)
	// Every word is said, but those only open-slot sentences carry.
	var unsaid []string
	for _, w := range g.Words() {
		if !said[w] {
			unsaid = append(unsaid, w)
		}
	}
	assert.Equal(t, []string{"gossip"}, unsaid, "only the open-slot intent's own words may be unsaid")

	again, err := g.Prompts(600, 1)
	require.NoError(t, err)
	assert.Equal(t, ps, again, "the same seed gives the same prompts")
	other, err := g.Prompts(600, 2)
	require.NoError(t, err)
	assert.NotEqual(t, ps, other)
}

func TestPromptsLimits(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	for _, n := range []int{0, -1, MaxPrompts + 1} {
		_, err := g.Prompts(n, 1)
		assert.ErrorContains(t, err, "not in 1..", "n=%d", n)
	}

	// A grammar of the wake phrase alone prompts it.
	w, err := Build(nil, Options{TemplateLanguage: tl, Wake: "hey jibo"})
	require.NoError(t, err)
	ps, err := w.Prompts(2, 1)
	require.NoError(t, err)
	assert.Equal(t, []Prompt{{Text: "hey jibo", Wake: true}, {Text: "hey jibo", Wake: true}}, ps)

	// Only open-slot sentences: nothing to prompt.
	o, err := Build([]Intent{{Skill: "s", Name: "like", Lang: "en", Templates: []string{"i like {thing}"}}}, Options{TemplateLanguage: tl})
	require.NoError(t, err)
	_, err = o.Prompts(3, 1)
	assert.ErrorContains(t, err, "no sentence without an open slot")
}
