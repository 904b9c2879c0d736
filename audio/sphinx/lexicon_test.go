package sphinx

import (
	"context"
	"errors"
	"strings"
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
