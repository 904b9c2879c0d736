package sphinx

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sentencesOf lists every sentence of an automaton with its probability
// (the product of its words'), sorted; the automaton must be small.
func sentencesOf(t *testing.T, a *automaton) []string {
	t.Helper()
	out := map[int][]fsgArc{}
	for _, arc := range a.arcs {
		require.True(t, arc.from >= 0 && arc.from < a.states && arc.to >= 0 && arc.to < a.states, "arc %+v outside %d states", arc, a.states)
		out[arc.from] = append(out[arc.from], arc)
	}
	var got []string
	var walk func(s int, words []string, p float64)
	walk = func(s int, words []string, p float64) {
		require.Less(t, len(words), 50, "a cycle")
		if s == a.final {
			got = append(got, strings.Join(words, " ")+" @"+strconv.FormatFloat(p, 'g', 6, 64))
		}
		for _, arc := range out[s] {
			w := words
			if arc.word != "" {
				w = append(slices.Clip(words), arc.word)
			}
			walk(arc.to, w, p*arc.prob)
		}
	}
	walk(a.start, nil, 1)
	slices.Sort(got)
	return slices.Compact(got)
}

// TestCompileGrammarKeepsTheSentences: the automaton the decoder searches
// holds exactly the grammar's sentences, each with the weight
// pocketsphinx gives it (an alternative's weight on its first word).
func TestCompileGrammarKeepsTheSentences(t *testing.T) {
	tests := []struct {
		name, jsgf string
		want       []string
	}{
		{"sequence and alternatives", "public <u> = (turn | switch) (on | off) the light;",
			[]string{"switch off the light @1", "switch on the light @1", "turn off the light @1", "turn on the light @1"}},
		{"optional words and rule references", "public <u> = [please] <c> [now];\n<c> = stop | go;",
			[]string{"go @1", "go now @1", "please go @1", "please go now @1", "please stop @1", "please stop now @1", "stop @1", "stop now @1"}},
		{"a rule at several references", "public <u> = <n> minutes | <n> seconds | volume <n>;\n<n> = one | two;",
			[]string{"one minutes @1", "one seconds @1", "two minutes @1", "two seconds @1", "volume one @1", "volume two @1"}},
		{"weights on first words", "public <u> = /1/ hey jibo | /0.25/ hey joe | /0.5/ <x>;\n<x> = gee bo;",
			[]string{"gee bo @1", "hey jibo @1", "hey joe @0.25"}},
		{"null and void", "public <u> = a <NULL> b | c <VOID> | \"d\" e;",
			[]string{"a b @1", "d e @1"}},
		{"tags and comments", "// top\npublic <u> = hello {greet} /* x */ there;",
			[]string{"hello there @1"}},
		{"a sentence that is the prefix of another", "public <u> = hello | hello there | hello there jibo;",
			[]string{"hello @1", "hello there @1", "hello there jibo @1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := compileGrammar("#JSGF V1.0;\ngrammar g;\n" + tt.jsgf)
			require.NoError(t, err)
			assert.Equal(t, tt.want, sentencesOf(t, a))
		})
	}
}

// TestCompileGrammarMerges: sentences that share their ends share states,
// so the automaton has as many states as the language needs, far fewer
// than a state per word.
func TestCompileGrammarMerges(t *testing.T) {
	a, err := compileGrammar("#JSGF V1.0;\ngrammar g;\npublic <u> = (set | start | make) a timer for <n> (minutes | seconds) | <n> (minutes | seconds);\n<n> = one | two | three | ten | twenty [one | two];\n")
	require.NoError(t, err)
	// start, after the verb, "a", "timer", "for", after a number, after
	// "twenty", the end.
	assert.Equal(t, 8, a.states)
	nulls := 0
	for _, arc := range a.arcs {
		if arc.word == "" {
			nulls++
		}
	}
	assert.Zero(t, nulls, "no sentence ends where another goes on")
}

// TestCompileGrammarLeavesTheRestToPocketsphinx: what this compiler does
// not handle is refused with errUnsupported (the decoder then compiles
// the JSGF itself); a broken grammar is refused with what is wrong.
func TestCompileGrammarLeavesTheRestToPocketsphinx(t *testing.T) {
	tests := []struct {
		name, jsgf  string
		unsupported bool
		err         string
	}{
		{"repetition", "public <u> = hello+;", true, "repetition"},
		{"kleene star", "public <u> = (very)* good;", true, "repetition"},
		{"recursion", "public <u> = <a>;\n<a> = x [<a>];", true, "refers to itself"},
		{"imports", "import <other.*>;\npublic <u> = x;", true, "imports"},
		{"two public rules", "public <u> = x;\npublic <v> = y;", true, "several public rules"},
		{"undefined rule", "public <u> = <nowhere>;", false, "<nowhere> used but not defined"},
		{"no public rule", "<u> = x;", false, "no public rule"},
		{"unclosed group", "public <u> = (x | y;", false, "never closed"},
		{"empty alternative", "public <u> = x | | y;", false, "empty alternative"},
		{"no sentence", "public <u> = <VOID>;", false, "no sentence"},
		{"bad weight", "public <u> = /heavy/ x;", false, "weight"},
		{"no semicolon", "public <u> = x", false, "no ';'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileGrammar("#JSGF V1.0;\ngrammar g;\n" + tt.jsgf)
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.err)
			assert.Equal(t, tt.unsupported, errors.Is(err, errUnsupported), err.Error())
		})
	}
}
