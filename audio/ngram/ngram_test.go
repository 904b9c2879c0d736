package ngram

import (
	"bufio"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func words(s string) []string { return strings.Fields(s) }

// timerCorpus is two intents, one with a slot of lengths.
func timerCorpus() Corpus {
	return Corpus{
		Sentences: []Sentence{
			{Tokens: words("set a timer for <d>"), Group: 0},
			{Tokens: words("start a timer for <d>"), Group: 0},
			{Tokens: words("set a <d> timer"), Group: 0},
			{Tokens: words("what time is it"), Group: 1},
		},
		Slots: map[string][][]string{"<d>": {
			words("five minutes"), words("ten minutes"), words("an hour"),
			words("one hour and five minutes"), words("twenty five seconds"),
		}},
	}
}

// sum returns the total probability the model gives the words after
// history: a proper model gives 1.
func sum(m *Model, history []string) float64 {
	var total float64
	for _, w := range append(m.Words(), End) {
		total += math.Pow(10, m.LogProb(history, w))
	}
	return total
}

func sentenceLogProb(m *Model, s string) float64 {
	seq := append([]string{Start}, words(s)...)
	seq = append(seq, End)
	var lp float64
	for i := 1; i < len(seq); i++ {
		lp += m.LogProb(seq[max(0, i-2):i], seq[i])
	}
	return lp
}

func TestModelIsAProbabilityDistribution(t *testing.T) {
	m, err := Build(timerCorpus(), Options{Open: map[string]float64{"the": 5, "dog": 1, "barked": 1}, OpenWeight: 0.3})
	require.NoError(t, err)
	for _, h := range [][]string{{Start}, {"set"}, {"timer", "for"}, {"for", "five"}, {"the", "dog"}, {Start, "what"}, {"dog"}} {
		assert.InDelta(t, 1, sum(m, h), 1e-6, "after %q", h)
	}
}

func TestModelPrefersTheSkillsWordings(t *testing.T) {
	m, err := Build(timerCorpus(), Options{Open: map[string]float64{"the": 5, "dog": 1, "barked": 1}, OpenWeight: 0.3})
	require.NoError(t, err)
	said := sentenceLogProb(m, "set a timer for five minutes")
	assert.Greater(t, said, sentenceLogProb(m, "set a timer for minutes five"), "word order")
	assert.Greater(t, said, sentenceLogProb(m, "the dog barked"), "a command over everyday words")
	// A wording no sentence has, made of the sentences' pieces, is still
	// a sentence of the model, unlike a grammar's.
	assert.False(t, math.IsInf(sentenceLogProb(m, "start a five minutes timer"), -1))
	// Everyday speech is heard as the open words, not forced.
	assert.False(t, math.IsInf(sentenceLogProb(m, "the dog barked"), -1))
	// Every value of the slot is next to the words around it.
	for _, v := range []string{"five minutes", "an hour", "twenty five seconds", "one hour and five minutes"} {
		assert.Greater(t, sentenceLogProb(m, "set a timer for "+v), sentenceLogProb(m, "set a timer for "+v+" dog"), v)
	}
	// Without open words, words outside the corpus cannot be heard.
	closed, err := Build(timerCorpus(), Options{})
	require.NoError(t, err)
	assert.True(t, math.IsInf(sentenceLogProb(closed, "the dog barked"), -1))
}

func TestEachIntentWeighsTheSame(t *testing.T) {
	c := timerCorpus()
	for i := range 50 {
		c.Sentences = append(c.Sentences, Sentence{Tokens: words(fmt.Sprintf("set a timer for <d> %s", strings.Repeat("now ", i%3+1))), Group: 0})
	}
	m, err := Build(c, Options{})
	require.NoError(t, err)
	// The clock's one sentence starts as likely as the timer's many
	// together.
	p := func(w string) float64 { return math.Pow(10, m.LogProb([]string{Start}, w)) }
	assert.InDelta(t, math.Log10(p("what")), math.Log10(p("set")+p("start")), 0.1)
}

func TestWriteARPA(t *testing.T) {
	m, err := Build(timerCorpus(), Options{Open: map[string]float64{"dog": 1}, OpenWeight: 0.1})
	require.NoError(t, err)
	var sb strings.Builder
	require.NoError(t, m.WriteARPA(&sb))
	// The header's counts are the sections' lines.
	counts := map[string]int{}
	section := ""
	want := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(sb.String()))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ngram "):
			var n, c int
			_, err := fmt.Sscanf(line, "ngram %d=%d", &n, &c)
			require.NoError(t, err)
			want[fmt.Sprint(n)] = c
		case strings.HasSuffix(line, "-grams:"):
			section = strings.TrimSuffix(strings.TrimPrefix(line, "\\"), "-grams:")
		case line == "" || line == "\\end\\" || line == "\\data\\":
		default:
			f := strings.Split(line, "\t")
			require.True(t, len(f) == 2 || len(f) == 3, line)
			assert.Len(t, strings.Fields(f[1]), map[string]int{"1": 1, "2": 2, "3": 3}[section], line)
			counts[section]++
		}
	}
	assert.Equal(t, want, counts)
	assert.Equal(t, [3]int{want["1"], want["2"], want["3"]}, m.NGrams())
	assert.Contains(t, sb.String(), "\\end\\\n")
	assert.Contains(t, m.Words(), "dog")
	assert.NotContains(t, m.Words(), End)
}

func TestBuildRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Corpus
		o    Options
		want string
	}{
		{"no sentences", Corpus{}, Options{}, "no sentences"},
		{"open weight", timerCorpus(), Options{OpenWeight: 1, Open: map[string]float64{"a": 1}}, "not in [0, 1)"},
		{"weight without words", timerCorpus(), Options{OpenWeight: 0.2}, "without open words"},
		{"shares", timerCorpus(), Options{Shares: MaxShares + 1}, "shares"},
		{"open word", timerCorpus(), Options{OpenWeight: 0.2, Open: map[string]float64{"two words": 1}}, "is not a word"},
		{"frequency", timerCorpus(), Options{OpenWeight: 0.2, Open: map[string]float64{"dog": -1}}, "not positive"},
		{"sentence mark", Corpus{Sentences: []Sentence{{Tokens: words("a </s> b")}}}, Options{}, "is not a word"},
		{"empty slot", Corpus{Sentences: []Sentence{{Tokens: words("a <x>")}}, Slots: map[string][][]string{"<x>": nil}}, Options{}, "no values"},
		{"long sentence", Corpus{Sentences: []Sentence{{Tokens: words(strings.Repeat("a ", maxSentenceTokens+1))}}}, Options{}, "tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.c, tc.o)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestCoverHoldsEveryPairShortestFirst(t *testing.T) {
	vals := [][]string{words("one hour and five minutes"), words("five minutes"), words("one hour"), words("an hour and five minutes")}
	got := cover(vals)
	assert.Equal(t, [][]string{words("five minutes"), words("one hour"), words("one hour and five minutes"), words("an hour and five minutes")}, got)
	assert.Len(t, cover([][]string{words("a b"), words("a b")}), 1, "a value that brings nothing new is left out")
}
