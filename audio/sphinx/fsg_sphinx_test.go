//go:build sphinx

package sphinx

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/audio/sphinx/internal/pstest"
	"github.com/openjibo/jibod/core/intent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// intentLanguage is core/intent's template language, the one the robot's
// grammars are built with (core/runtime/hearing.IntentTemplates, which
// imports this package).
type intentLanguage struct{}

func (intentLanguage) Expand(template string, vocab map[string][]string) ([]string, error) {
	samples, _, err := intent.Expand(template, vocab, intent.ExpandOptions{})
	return samples, err
}

func (intentLanguage) Normalize(text string) string { return intent.Normalize(text) }

// builtinGrammar is the command grammar of the built-in skills' launch
// intents, loaded from their locale folders as the skill host registers
// them.
func builtinGrammar(t testing.TB, opts grammar.Options) *grammar.Grammar {
	t.Helper()
	dirs, err := filepath.Glob("../../core/skill/builtin/*/locale")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	var intents []grammar.Intent
	for _, d := range dirs {
		skill := "jibo." + filepath.Base(filepath.Dir(d))
		loc, err := intent.LoadLocale(os.DirFS(d), ".")
		require.NoError(t, err, d)
		for _, tag := range loc.Languages() {
			lang := loc.Langs[tag]
			for _, name := range lang.Names(intent.RoleIntent) {
				def, ok := lang.TemplateIntent("", skill, name)
				require.True(t, ok)
				intents = append(intents, grammar.Intent{Skill: def.SkillID, Name: def.IntentName, Lang: def.Lang, Templates: def.Samples,
					Vocab: def.Vocab, Entities: def.Entities, SlotTypes: def.SlotTypes})
			}
		}
	}
	opts.TemplateLanguage, opts.Lang = intentLanguage{}, "en-US"
	g, err := grammar.Build(intents, opts)
	require.NoError(t, err)
	return g
}

// logBase is the base of the log probabilities pstest.Automaton gives.
var logBase = math.Log(1.0001)

// canonicalAutomaton is the minimal automaton of arcs, the probabilities
// on pocketsphinx's log scale (logp, or made from each arc's own as the
// decoder does):
// two automata hold the same weighted sentences exactly when their
// canonical automata are equal.
func canonicalAutomaton(t *testing.T, states, start, final int, arcs []fsgArc, logp []int) *automaton {
	t.Helper()
	out := make([][]nfaArc, states)
	for i, a := range arcs {
		lp := 0
		if logp != nil {
			lp = logp[i]
		} else if a.prob != 1 {
			lp = pstest.Log(a.prob)
		}
		prob := 1.0
		if lp != 0 {
			prob = math.Exp(float64(lp) * logBase)
		}
		out[a.from] = append(out[a.from], nfaArc{to: a.to, word: a.word, prob: prob})
	}
	d, err := determinize(out, start, final)
	require.NoError(t, err)
	m, err := d.minimal()
	require.NoError(t, err)
	return m
}

// TestCompiledGrammarIsPocketsphinxs: the automaton the decoder searches
// has exactly the sentences, with the same weights, as pocketsphinx's own
// compilation of the same JSGF, for the robot's grammars too, with far
// fewer states.
func TestCompiledGrammarIsPocketsphinxs(t *testing.T) {
	phrases, _ := WakeDecoys("hey jibo")
	tests := []struct {
		name, jsgf string
	}{
		{"test grammar", testGrammar},
		{"answer grammar", answerGrammar},
		{"weights", "#JSGF V1.0;\ngrammar g;\npublic <u> = /1/ hey jibo [<c>] | /0.25/ hey joe | /0.5/ <c>;\n<c> = what time | [please] stop;\n"},
		{"built-in skills", builtinGrammar(t, grammar.Options{}).JSGF()},
		{"built-in skills with the wake phrase and its decoys", builtinGrammar(t, grammar.Options{Wake: "hey jibo", Decoys: phrases, DecoyWeight: DecoyWeight}).JSGF()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			states, start, final, psArcs, logp, err := pstest.Automaton(tt.jsgf)
			require.NoError(t, err)
			arcs := make([]fsgArc, len(psArcs))
			for i, a := range psArcs {
				arcs[i] = fsgArc{from: a.From, to: a.To, word: a.Word}
			}
			want := canonicalAutomaton(t, states, start, final, arcs, logp)
			a, err := compileGrammar(tt.jsgf)
			require.NoError(t, err)
			got := canonicalAutomaton(t, a.states, a.start, a.final, a.arcs, nil)
			assert.Equal(t, want, got)
			assert.Equal(t, want.states, a.states, "the compiled automaton is minimal")
			assert.LessOrEqual(t, a.states, states)
			t.Logf("%d states (pocketsphinx's compiler: %d), %d transitions (%d)", a.states, states, len(a.arcs), len(arcs))
		})
	}
}
