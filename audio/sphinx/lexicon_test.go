package sphinx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fakeGuesser map[string]string

func (f fakeGuesser) Guess(_ context.Context, w string) (string, error) {
	if p, ok := f[w]; ok {
		return p, nil
	}
	return "", errors.New("no guess")
}

func TestLexiconLookup(t *testing.T) {
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{Words: map[string]string{"timer": "T AY M ER"}})
	require.NoError(t, err)
	tests := []struct {
		word string
		want []string
	}{
		{"time", []string{"T AY M"}},
		{"whats", []string{"W AH T S", "HH W AH T S"}}, // apostrophe put back, both variants
		{"dont", []string{"D OW N T", "D OW N"}},
		{"im", []string{"AY M", "IH M"}}, // the word and its apostrophe form, in file order
		{"cant", []string{"K AE N T"}},   // the same pronunciation once
		{"mins", []string{"M IH N Z"}},   // plural after a voiced sound
		{"secs", []string{"S EH K S"}},   // after a voiceless one
		{"boxs", []string{"B AA K S IH Z"}},
		{"jibo", []string{"JH IY B OW"}}, // built in
		{"timer", []string{"T AY M ER"}}, // given
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got, err := lex.Lookup(context.Background(), []string{tt.word})
			require.NoError(t, err)
			assert.Equal(t, tt.want, got[tt.word])
		})
	}
}

func TestLexiconMissingWords(t *testing.T) {
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{})
	require.NoError(t, err)
	got, err := lex.Lookup(context.Background(), []string{"time", "zebra", "hey", "zebra"})
	var missing *MissingWordsError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, []string{"zebra"}, missing.Words)
	assert.Contains(t, err.Error(), "zebra")
	assert.Equal(t, []string{"T AY M"}, got["time"], "the rest is still pronounced")
	assert.Equal(t, []string{"HH EY"}, got["hey"])
}

func TestLexiconGuesser(t *testing.T) {
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{Guesser: fakeGuesser{"zebra": "Z IY B R AH", "bad": "XX"}})
	require.NoError(t, err)
	got, err := lex.Lookup(context.Background(), []string{"zebra", "bad"})
	var missing *MissingWordsError
	require.ErrorAs(t, err, &missing, "a guess with an unknown phone is refused")
	assert.Equal(t, []string{"bad"}, missing.Words)
	assert.Equal(t, []string{"Z IY B R AH"}, got["zebra"])
}

func TestLexiconRefusesBadInput(t *testing.T) {
	_, err := NewLexicon("testdata/nope.dict", LexiconOptions{})
	assert.Error(t, err)
	_, err = NewLexicon("testdata/small.dict", LexiconOptions{Words: map[string]string{"x": "Q"}})
	assert.ErrorContains(t, err, `unknown phone "Q"`)
	_, err = NewLexicon("testdata/small.dict", LexiconOptions{Words: map[string]string{"a b": "AH"}})
	assert.ErrorContains(t, err, "not allowed")
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{})
	require.NoError(t, err)
	_, err = lex.Lookup(context.Background(), []string{strings.Repeat("a", MaxWordBytes+1)})
	assert.Error(t, err)
	_, err = lex.Lookup(context.Background(), make([]string, MaxLookupWords+1))
	assert.ErrorContains(t, err, "more than")
	_, err = lex.Lookup(context.Background(), []string{"<s>"})
	assert.ErrorContains(t, err, "not allowed")
}

func TestEspeakToPhones(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "dZ_'i:_b_oU", want: "JH IY B OW"},
		{in: "h_'aI_a#\n", want: "HH AY AH"},
		{in: "V_n_m_j_'u:_t", want: "AH N M Y UW T"},
		{in: "T_'3:_m_@_s_t_,a_t", want: "TH ER M AH S T AE T"},
		{in: "n_'i@3", want: "N IY R"},
		{in: "k_'aU_?", want: "K AW"},
		{in: "b_r_'O2_n_t_aI_d", want: "B R AO N T AY D"}, // en-us's "o" of long, wrong (a name: Brontide)
		{in: "Q_x9", err: "no CMU equivalent"},
		{in: " ", err: "no phonemes"},
	}
	for _, tt := range tests {
		got, err := espeakToPhones(tt.in)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		_, err = checkPhones(got)
		assert.NoError(t, err, "every mapped phone is in the model's set")
	}
}

func TestEspeakPhonesAreModelPhones(t *testing.T) {
	for k, v := range espeakPhones {
		for _, p := range strings.Fields(v) {
			assert.Contains(t, Phones, p, "espeak %q", k)
		}
	}
}

func TestGrammarWords(t *testing.T) {
	tests := []struct {
		name, jsgf string
		want       []string
		err        string
	}{
		{name: "rules and groups", jsgf: "#JSGF V1.0;\ngrammar g;\npublic <a> = hey jibo [<b>] | what (time | day) is it;\n<b> = please+ thanks*;\n",
			want: []string{"day", "hey", "is", "it", "jibo", "please", "thanks", "time", "what"}},
		{name: "comments tags weights quotes", jsgf: "grammar g; /* a; b */ public <a> = /2.5/ hello {greet} | \"good day\" // bye;\n | yo;",
			want: []string{"good day", "hello", "yo"}},
		{name: "unterminated", jsgf: "grammar g; public <a> = hello", err: "no ';'"},
		{name: "bad comment", jsgf: "grammar g; /* x", err: "never ends"},
		{name: "not a rule", jsgf: "grammar g; hello world;", err: "not a rule definition"},
		{name: "open tag", jsgf: "public <a> = hi {x;", err: "never closed"},
		{name: "no public rule", jsgf: "grammar g; <a> = hi;", err: "no public rule"},
		{name: "undefined rule", jsgf: "grammar g; public <a> = hi <b> | <NULL> | <c>; <c> = yo;", err: "rule <b> used but not defined"},
		{name: "bad head", jsgf: "grammar g; public <a> <b> = hi;", err: "want [public] <name>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := GrammarWords(tt.jsgf)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := GrammarWords(strings.Repeat(" ", MaxGrammarBytes+1))
	assert.Error(t, err)
}

// TestLexiconNames: a name's pronunciations come after the word's own
// (extra words, the dictionary's), a guess is not asked for a word that
// has one, and they can be replaced and removed.
func TestLexiconNames(t *testing.T) {
	ctx := context.Background()
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{Guesser: fakeGuesser{"siobhan": "S IY AA B HH AE N", "shivawn": "SH IH V AO N"}})
	require.NoError(t, err)
	words := []string{"what", "siobhan", "jibo", "time"}
	got, err := lex.Lookup(ctx, words)
	require.NoError(t, err)
	assert.Equal(t, []string{"S IY AA B HH AE N"}, got["siobhan"], "guessed before it has a name's")

	require.NoError(t, lex.SetNames(map[string][]string{
		"what":    {"W  AA T", "W AH T"}, // spacing normalised; the dictionary's own once
		"siobhan": {"SH IH V AO N"},
		"jibo":    {"JH IH B OW"},
	}))
	got, err = lex.Lookup(ctx, words)
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{
		"what":    {"W AH T", "W AA T"},
		"siobhan": {"SH IH V AO N"},
		"jibo":    {"JH IY B OW", "JH IH B OW"},
		"time":    {"T AY M"},
	}, got)

	require.NoError(t, lex.SetNames(map[string][]string{"siobhan": {"SH AH V AO N", "SH IH V AO N"}}))
	got, err = lex.Lookup(ctx, words)
	require.NoError(t, err)
	assert.Equal(t, []string{"SH AH V AO N", "SH IH V AO N"}, got["siobhan"], "in the order given")
	assert.Equal(t, []string{"W AH T"}, got["what"], "replaced, not merged")

	require.NoError(t, lex.SetNames(nil))
	got, err = lex.Lookup(ctx, words)
	require.NoError(t, err)
	assert.Equal(t, []string{"S IY AA B HH AE N"}, got["siobhan"], "removed")
}

func TestLexiconPronounce(t *testing.T) {
	ctx := context.Background()
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{Guesser: fakeGuesser{"shivawn": "SH IH V AO N"}})
	require.NoError(t, err)
	require.NoError(t, lex.SetNames(map[string][]string{"time": {"T IY M"}}))
	for spelling, want := range map[string]string{
		"shivawn":     "SH IH V AO N",
		"what  time":  "W AH T T AY M", // each word's first; never a name's
		"whats":       "W AH T S",
		"jibo minute": "JH IY B OW M IH N AH T",
	} {
		got, err := lex.Pronounce(ctx, spelling)
		require.NoError(t, err, spelling)
		assert.Equal(t, want, got, spelling)
	}
	_, err = lex.Pronounce(ctx, "what zork zork")
	var missing *MissingWordsError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, []string{"zork"}, missing.Words)
	for spelling, want := range map[string]string{
		" ":                           "want 1 to",
		"a <s>":                       "not allowed",
		strings.Repeat("minute ", 10): "want 1 to 48 phones",
	} {
		_, err := lex.Pronounce(ctx, spelling)
		assert.ErrorContains(t, err, want, spelling)
	}
}

func TestLexiconSetNamesRefuses(t *testing.T) {
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{})
	require.NoError(t, err)
	require.NoError(t, lex.SetNames(map[string][]string{"ann": {"AE N"}}))
	many := map[string][]string{}
	for i := range MaxNameWords + 1 {
		many[fmt.Sprintf("name%d", i)] = []string{"N EY M"}
	}
	for name, tt := range map[string]struct {
		names map[string][]string
		err   string
	}{
		"unknown phone":      {map[string][]string{"ann": {"AE Q"}}, `unknown phone "Q"`},
		"no phones":          {map[string][]string{"ann": {" "}}, "want 1 to 48 phones"},
		"too long":           {map[string][]string{"ann": {strings.Repeat("AH ", 49)}}, "want 1 to 48 phones"},
		"bad word":           {map[string][]string{"ann lee": {"AE N"}}, "not allowed"},
		"empty word":         {map[string][]string{"": {"AE N"}}, "want 1 to"},
		"no pronunciation":   {map[string][]string{"ann": nil}, "want 1 to 4, got 0"},
		"too many variants":  {map[string][]string{"ann": {"AE N", "AA N", "EY N", "AH N", "IY N"}}, "want 1 to 4, got 5"},
		"too many words":     {many, "more than 256"},
		"one bad among good": {map[string][]string{"bob": {"B AA B"}, "cleo": {"K L IY OW", "XX"}}, `unknown phone "XX"`},
	} {
		t.Run(name, func(t *testing.T) {
			assert.ErrorContains(t, lex.SetNames(tt.names), tt.err)
			got, err := lex.Lookup(context.Background(), []string{"ann"})
			require.NoError(t, err)
			assert.Equal(t, []string{"AE N"}, got["ann"], "the names before stay")
		})
	}
}

// TestLexiconNamesConcurrently: names replaced while others look words
// up (run with -race): each lookup sees one set of names or the other.
func TestLexiconNamesConcurrently(t *testing.T) {
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{})
	require.NoError(t, err)
	a := map[string][]string{"ann": {"AE N"}, "time": {"T IY M"}}
	b := map[string][]string{"ann": {"AA N"}}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				if i%2 == 0 {
					names := a
					if j%2 == 1 {
						names = b
					}
					if err := lex.SetNames(names); err != nil {
						errs <- err
					}
					continue
				}
				got, err := lex.Lookup(context.Background(), []string{"ann", "time"})
				if err != nil {
					continue // before any names: "ann" is missing
				}
				okA := slices.Equal(got["ann"], a["ann"]) && slices.Equal(got["time"], []string{"T AY M", "T IY M"})
				okB := slices.Equal(got["ann"], b["ann"]) && slices.Equal(got["time"], []string{"T AY M"})
				if !okA && !okB {
					errs <- fmt.Errorf("a mix of names: %v", got)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestLexiconReadsTheDictionaryOnce: words a lookup read, found or not,
// and words prefetched with it (by every Prefetch before it) are answered later without the file, as
// they were the first time; a word not read before needs it.
func TestLexiconReadsTheDictionaryOnce(t *testing.T) {
	data, err := os.ReadFile("testdata/small.dict")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "small.dict")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	lex, err := NewLexicon(path, LexiconOptions{Guesser: fakeGuesser{"zebra": "Z IY B R AH"}})
	require.NoError(t, err)
	ctx := context.Background()
	// Two prefetches before the lookup: the second adds to the first.
	require.NoError(t, lex.Prefetch([]string{"mins"}))
	require.NoError(t, lex.Prefetch([]string{"dont"}))
	first, err := lex.Lookup(ctx, []string{"time", "whats", "zebra"})
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))

	again, err := lex.Lookup(ctx, []string{"zebra", "whats", "time"})
	require.NoError(t, err)
	assert.Equal(t, first, again, "the same pronunciations, the guess asked again")
	pre, err := lex.Lookup(ctx, []string{"mins", "dont"})
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"mins": {"M IH N Z"}, "dont": {"D OW N T", "D OW N"}}, pre)
	_, err = lex.Lookup(ctx, []string{"hey"})
	assert.ErrorContains(t, err, "reading the pronouncing dictionary", "a word not read before")
	assert.ErrorContains(t, lex.Prefetch([]string{"two words"}), "not allowed")
}
