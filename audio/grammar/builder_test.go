package grammar

import (
	"context"
	"errors"
	"log/slog"
	"maps"

	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLexicon pronounces every word but those in cannot, and every
// phonetic spelling but those in cannot, as the spelling in capitals.
type fakeLexicon struct {
	cannot map[string]bool
	mu     sync.Mutex
	names  map[string][]string
	asked  int // Pronounce calls
}

func (l *fakeLexicon) Unknown(_ context.Context, words []string) ([]string, error) {
	var out []string
	for _, w := range words {
		if l.cannot[w] {
			out = append(out, w)
		}
	}
	return out, nil
}

func (l *fakeLexicon) Pronounce(_ context.Context, spelling string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked++
	if l.cannot[spelling] {
		return "", errors.New("cannot say it")
	}
	return "P " + spelling, nil
}

func (l *fakeLexicon) SetNames(names map[string][]string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names = maps.Clone(names)
	return nil
}

func TestBuilder(t *testing.T) {
	people := []Person{{FirstName: "Ann", LastName: "Lee"}, {FirstName: "Siobhan", PhoneticName: "shivawn"},
		{FirstName: "Zoe", PhoneticName: "zoey"}, {FirstName: "Mary Ann", PhoneticName: "marie on"}}
	lex := &fakeLexicon{cannot: map[string]bool{"zorblax": true, "zoey": true}}
	b := &Builder{
		Intents: func() []Intent {
			return []Intent{{Skill: "s", Name: "play", Lang: "en-US", Templates: []string{"play (music|the zorblax)", "call {who}"}}}
		},
		Answers: func() []Intent {
			return []Intent{{Skill: "s", Name: "who", Lang: "en-US", Templates: []string{"this is {loop_member_referent}", "nobody"}}}
		},
		People:  func() []Person { return people },
		Lexicon: lex,
		Options: Options{TemplateLanguage: tl, Lang: "en"},
		Log:     slog.New(slog.DiscardHandler),
	}
	g, err := b.Build(context.Background())
	require.NoError(t, err)
	for s, want := range map[string]bool{"play music": true, "play the zorblax": false, "call ann": true, "call siobhan": true, "call bob": false} {
		assert.Equal(t, want, g.Accepts(s), s)
	}
	assert.NotContains(t, g.Words(), "zorblax", "a word the lexicon cannot say is left out")
	assert.Equal(t, map[string][]string{"siobhan": {"P shivawn"}, "mary": {"P marie"}, "ann": {"P on"}}, lex.names,
		"phonetic names, word by word; one that cannot be said is left out")

	a, err := b.BuildAnswers(context.Background())
	require.NoError(t, err)
	for s, want := range map[string]bool{"this is ann": true, "ann lee": true, "ann": true, "mary ann": true, "nobody": true, "this is bob": false} {
		assert.Equal(t, want, a.Accepts(s), s)
	}

	// Someone leaves: the next build hears them no more, and spellings
	// already pronounced are not asked again.
	people = people[:2]
	asked := lex.asked
	g, err = b.Build(context.Background())
	require.NoError(t, err)
	assert.False(t, g.Accepts("call zoe"))
	assert.Equal(t, map[string][]string{"siobhan": {"P shivawn"}}, lex.names)
	assert.Equal(t, asked, lex.asked, "cached")

	// Nobody known: answers naming someone are left out; no answer rules,
	// no answer grammar.
	people = nil
	a, err = b.BuildAnswers(context.Background())
	require.NoError(t, err)
	assert.False(t, a.Accepts("this is ann"))
	assert.True(t, a.Accepts("nobody"))
	b.Answers = nil
	a, err = b.BuildAnswers(context.Background())
	require.NoError(t, err)
	assert.Nil(t, a)

	_, err = (&Builder{Lexicon: lex}).Build(context.Background())
	assert.ErrorIs(t, err, errNoIntents)
}

func TestWithReferentNames(t *testing.T) {
	in := Intent{Skill: "optin", Name: "loopmember", Templates: []string{"this is {loop_member_referent}", "that is all"},
		Entities: map[string][]string{"other": {"x"}}}
	tests := []struct {
		name      string
		in        Intent
		names     []string
		ok        bool
		templates []string
		entities  map[string][]string
	}{
		{"no referent: unchanged", Intent{Templates: []string{"yes"}}, nil, true, []string{"yes"}, nil},
		{"the loop's names", in, []string{"ann", "ann lee"}, true, in.Templates,
			map[string][]string{"other": {"x"}, "loop_member_referent": {"ann", "ann lee"}}},
		{"nobody: the sentences naming someone left out", in, nil, true, []string{"that is all"}, in.Entities},
		{"nobody and nothing else: the intent left out", Intent{Templates: []string{"{loop_member_referent} here"}}, nil, false, []string{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := WithReferentNames(tt.in, tt.names)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.templates, got.Templates)
			assert.Equal(t, tt.entities, got.Entities)
		})
	}
	assert.Equal(t, []string{"this is {loop_member_referent}", "that is all"}, in.Templates, "the caller's intent is left as it was")
	assert.Len(t, in.Entities, 1)
}
