package sphinx

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pathsOf lists every path of an automaton from its start to its final
// state holding at most maxWords words, with its probability, sorted.
// Unlike sentencesOf it stops at loops.
func pathsOf(t *testing.T, a *automaton, maxWords int) []string {
	t.Helper()
	out := map[int][]fsgArc{}
	for _, arc := range a.arcs {
		require.True(t, arc.from >= 0 && arc.from < a.states && arc.to >= 0 && arc.to < a.states, "arc %+v outside %d states", arc, a.states)
		out[arc.from] = append(out[arc.from], arc)
	}
	var got []string
	var walk func(s int, words []string, p float64, nulls int)
	walk = func(s int, words []string, p float64, nulls int) {
		require.Less(t, nulls, 10, "a loop of null transitions")
		if s == a.final {
			got = append(got, strings.Join(words, " ")+" @"+strconv.FormatFloat(p, 'g', 3, 64))
		}
		for _, arc := range out[s] {
			if arc.word == "" {
				walk(arc.to, words, p*arc.prob, nulls+1)
			} else if len(words) < maxWords {
				walk(arc.to, append(slices.Clip(words), arc.word), p*arc.prob, 0)
			}
		}
	}
	walk(a.start, nil, 1, 0)
	slices.Sort(got)
	return slices.Compact(got)
}

// TestGarbagePathBesideTheSentences: the garbage path adds two states,
// the entry, one arc per filler word and the two ways on; the grammar's
// sentences are all still there with their probabilities, and every
// other path is filler words alone, at least one, priced at the entry
// and per word: a filler word never joins a sentence's words.
func TestGarbagePathBesideTheSentences(t *testing.T) {
	tests := []struct {
		name, jsgf string
		fillers    []string
		want       []string // paths of up to 2 words
	}{
		{"one sentence", "public <u> = what time is it;", []string{"=a", "=the"},
			[]string{"=a =a @0.02", "=a =the @0.02", "=a @0.1", "=the =a @0.02", "=the =the @0.02", "=the @0.1"}},
		{"sentences of one and two words", "public <u> = stop | volume (up | down);", []string{"=oh"},
			[]string{"=oh =oh @0.02", "=oh @0.1", "stop @1", "volume down @1", "volume up @1"}},
		{"weights kept", "public <u> = /1/ hey jibo | /0.25/ hey joe;", []string{"=hey"},
			[]string{"=hey =hey @0.02", "=hey @0.1", "hey jibo @1", "hey joe @0.25"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := compileGrammar("#JSGF V1.0;\ngrammar g;\n" + tt.jsgf)
			require.NoError(t, err)
			g, err := a.withGarbage(tt.fillers, 0.5, 0.2, false, false, 1)
			require.NoError(t, err)
			assert.Equal(t, a.states+2, g.states)
			assert.Equal(t, len(a.arcs)+len(tt.fillers)+3, len(g.arcs))
			assert.Equal(t, a.start, g.start)
			assert.Equal(t, a.final, g.final)
			assert.Equal(t, tt.want, pathsOf(t, g, 2))
			for _, p := range pathsOf(t, g, 4) {
				words := strings.Fields(p[:strings.LastIndex(p, " @")])
				garbage := isGarbage(strings.Join(words, " "))
				for _, w := range words {
					assert.Equal(t, garbage, strings.HasPrefix(w, garbagePrefix), "a path mixes a sentence's words and filler words: %s", p)
				}
			}
			assert.Equal(t, sentencesOf(t, a), sentencesOf(t, &automaton{states: a.states, start: a.start, final: a.final, arcs: g.arcs[:len(a.arcs)]}),
				"the grammar's arcs are untouched")
		})
	}
}

// TestGarbagePathRefused: a grammar whose start is its end (only the
// empty sentence) gets no garbage path, nor does a list of no words.
func TestGarbagePathRefused(t *testing.T) {
	a := &automaton{states: 1}
	_, err := a.withGarbage([]string{"=a"}, 1, 1, false, false, 1)
	assert.ErrorContains(t, err, "start is its end")
	b, err := compileGrammar("#JSGF V1.0;\ngrammar g;\npublic <u> = x;")
	require.NoError(t, err)
	_, err = b.withGarbage(nil, 1, 1, false, false, 1)
	assert.ErrorContains(t, err, "no filler words")
}

// TestGarbageWordsAreNoGrammarWords: the decoder's name of a filler word
// is one no grammar or lexicon word can have, so a hypothesis holding
// one went through the garbage path.
func TestGarbageWordsAreNoGrammarWords(t *testing.T) {
	for _, w := range []string{"the", "time", "it's"} {
		name := garbageName(w)
		assert.Error(t, checkWord(name), name)
		assert.True(t, isGarbage("=a "+name), name)
	}
	assert.False(t, isGarbage("what time is it"))
	assert.False(t, isGarbage(""))
	assert.True(t, isGarbage("=oh"))
}

// TestGarbageCheck: the settings are checked, each fault named.
func TestGarbageCheck(t *testing.T) {
	many := make([]string, MaxGarbageWords+1)
	for i := range many {
		many[i] = "w" + strconv.Itoa(i)
	}
	tests := []struct {
		name string
		g    Garbage
		err  string
	}{
		{"good", Garbage{Words: []string{"the", "a"}, Entry: 10, PerWord: 200}, ""},
		{"no penalties", Garbage{Words: []string{"the"}}, ""},
		{"no words", Garbage{Entry: 1}, "0 filler words"},
		{"too many words", Garbage{Words: many}, "filler words"},
		{"negative entry", Garbage{Words: []string{"a"}, Entry: -1}, "entry penalty"},
		{"entry too large", Garbage{Words: []string{"a"}, Entry: MaxGarbagePenalty + 1}, "entry penalty"},
		{"entry NaN", Garbage{Words: []string{"a"}, Entry: math.NaN()}, "entry penalty"},
		{"per word infinite", Garbage{Words: []string{"a"}, PerWord: math.Inf(1)}, "per word"},
		{"a word the decoder cannot take", Garbage{Words: []string{"a(2)"}}, "not allowed"},
		{"ends' entry", Garbage{Words: []string{"a"}, Tail: true, EndEntry: 250}, ""},
		{"ends' entry negative", Garbage{Words: []string{"a"}, Tail: true, EndEntry: -1}, "a sentence's ends"},
		{"ends' entry NaN", Garbage{Words: []string{"a"}, Head: true, EndEntry: math.NaN()}, "a sentence's ends"},
		{"a quiet tail", Garbage{Words: []string{"a"}, Tail: true, QuietTail: 6}, ""},
		{"quiet tail NaN", Garbage{Words: []string{"a"}, Tail: true, QuietTail: math.NaN()}, "quiet tail"},
		{"quiet tail too deep", Garbage{Words: []string{"a"}, Tail: true, QuietTail: MaxQuietTail + 1}, "quiet tail"},
		{"a floor of its own", Garbage{Words: []string{"a"}, MinConfidence: 0.7}, ""},
		{"floor above 1", Garbage{Words: []string{"a"}, MinConfidence: 1.5}, "minimum confidence"},
		{"floor NaN", Garbage{Words: []string{"a"}, MinConfidence: math.NaN()}, "minimum confidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.Check()
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

// TestPenaltyProb: a penalty is the transition probability whose
// logarithm, in base 1.0001 shifted by 10 bits, is minus the penalty;
// the largest penalty still has a probability above zero.
func TestPenaltyProb(t *testing.T) {
	assert.Equal(t, 1.0, penaltyProb(0))
	for _, u := range []float64{1, 100, 450, MaxGarbagePenalty} {
		p := penaltyProb(u)
		require.Positive(t, p, "penalty %g", u)
		assert.InDelta(t, -u, math.Log(p)/math.Log(1.0001)/1024, 1e-6*u, "penalty %g", u)
	}
	assert.Greater(t, penaltyProb(10), penaltyProb(20))
}

// TestGarbagePathAtASentencesEnds: with tail, filler words may follow a
// sentence, with head precede one, at the ends' entry and per word; the
// sentences alone keep their probabilities, and every path that holds a
// filler word is one the recogniser refuses as garbage.
func TestGarbagePathAtASentencesEnds(t *testing.T) {
	tests := []struct {
		name       string
		tail, head bool
		want       []string // paths of up to 2 words
	}{
		{"tail", true, false, []string{"=oh =oh @0.01", "=oh =oh @0.02", "=oh @0.1", "stop =oh @0.1", "stop @1", "volume up @1"}},
		// Before a sentence the fillers are entered as the whole path's are,
		// then the ends' entry.
		{"head", false, true, []string{"=oh =oh @0.005", "=oh =oh @0.02", "=oh @0.1", "=oh stop @0.05", "stop @1", "volume up @1"}},
		{"both", true, true, []string{"=oh =oh @0.005", "=oh =oh @0.01", "=oh =oh @0.02", "=oh @0.1", "=oh stop @0.05", "stop =oh @0.1", "stop @1", "volume up @1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := compileGrammar("#JSGF V1.0;\ngrammar g;\npublic <u> = stop | volume up;")
			require.NoError(t, err)
			g, err := a.withGarbage([]string{"=oh"}, 0.5, 0.2, tt.tail, tt.head, 0.5)
			require.NoError(t, err)
			assert.Equal(t, tt.want, pathsOf(t, g, 2))
			for _, p := range pathsOf(t, g, 4) {
				words := p[:strings.LastIndex(p, " @")]
				if isGarbage(words) {
					continue
				}
				assert.Contains(t, []string{"stop", "volume up"}, words, "a path without filler words is a sentence")
			}
			assert.Contains(t, pathsOf(t, g, 3), map[bool]string{true: "volume up =oh @0.1", false: "=oh volume up @0.05"}[tt.tail])
		})
	}
}
