package hearing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/core/intent"
)

// TestGrammarIntentsFromEngines: the grammar hears the default session's
// enabled template intents and the keyword intents, in the keywords'
// registered order.
func TestGrammarIntentsFromEngines(t *testing.T) {
	te := intent.NewTemplateEngine(intent.EngineOptions{})
	_, err := te.Register(intent.TemplateIntent{SkillID: "clock", IntentName: "time", Lang: "en-US",
		Samples: []string{"what time is it"}})
	require.NoError(t, err)
	_, err = te.Register(intent.TemplateIntent{SessionID: "remote", SkillID: "x", IntentName: "y", Lang: "en-US",
		Samples: []string{"only for a remote session"}})
	require.NoError(t, err)
	_, err = te.Register(intent.TemplateIntent{SkillID: "off", IntentName: "z", Lang: "en-US", Samples: []string{"disabled one"}})
	require.NoError(t, err)
	te.SetEnabled("", "off", "z", "", false)
	got := templateIntents(te.Registrations(""))
	require.Len(t, got, 1, "the default session's enabled intents only")
	assert.Equal(t, "clock", got[0].Skill)

	ke := intent.NewKeywordEngine(intent.KeywordOptions{})
	_, err = ke.Register(intent.KeywordIntent{SkillID: "lights", IntentName: "on", Lang: "en-US",
		Optional: []intent.KeywordVocab{{Name: "polite", Samples: []string{"please"}}},
		Required: []intent.KeywordVocab{{Name: "turn_on", Samples: []string{"turn on", "switch on"}}, {Name: "light", Samples: []string{"(light|lamp)"}}}})
	require.NoError(t, err)
	kw := keywordIntents(ke.Registrations(""))
	require.Len(t, kw, 1)
	g, err := grammar.Build(append(got, kw...), grammar.Options{TemplateLanguage: IntentTemplates{}})
	require.NoError(t, err)
	for _, s := range []string{"what time is it", "please switch on lamp", "turn on light"} {
		assert.True(t, g.Accepts(s), s)
	}
	assert.False(t, g.Accepts("light turn on"), "keyword order is the registered one")
}

// TestWrappersAreFillers: every wording the grammar may put around a
// request, in every language with a built-in lexicon, is a filler phrase
// the intent engines skip, so a wrapped sentence claims what the sentence
// alone does.
func TestWrappersAreFillers(t *testing.T) {
	lexicons, err := intent.BuiltinLexicons()
	require.NoError(t, err)
	require.Contains(t, lexicons, "en")
	for lang, lex := range lexicons {
		fillers := map[string]bool{}
		for _, f := range lex.Fillers() {
			fillers[f] = true
		}
		w := grammar.WrappersFor(lang)
		var tl IntentTemplates
		for _, tpl := range append(w.Before, w.After...) {
			samples, err := tl.Expand(tpl, nil)
			require.NoError(t, err, tpl)
			for _, s := range samples {
				if s = tl.Normalize(s); s != "" {
					assert.True(t, fillers[s], "%s wrapper %q is no filler", lang, s)
				}
			}
		}
	}
	assert.NotEmpty(t, grammar.WrappersFor("en").Before, "English has wrappers to check")
}
