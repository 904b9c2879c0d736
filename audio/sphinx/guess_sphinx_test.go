//go:build sphinx

package sphinx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneByOne hides a guesser's GuessWords: the lexicon guesses word by word.
type oneByOne struct{ Guesser }

// TestBuiltinGuessedWords: the words of the built-in skills' grammar that
// cmudict lacks are the ones builtinGuessedWords lists, so that the
// batch's test covers them.
func TestBuiltinGuessedWords(t *testing.T) {
	words, err := GrammarWords(builtinGrammar(t, grammar.Options{}).JSGF())
	require.NoError(t, err)
	lex, err := NewLexicon(DefaultDict, LexiconOptions{})
	require.NoError(t, err)
	unknown, err := lex.Unknown(context.Background(), words)
	require.NoError(t, err)
	assert.Equal(t, builtinGuessedWords, unknown)
}

// BenchmarkBuiltinLookup measures the lookup of the built-in skills'
// grammar's words, cmudict's and the guessed ones, with espeak-ng
// guessing the words in one run ("batch") or a run a word ("per-word").
// espeak-runs is the espeak-ng processes one lookup starts.
func BenchmarkBuiltinLookup(b *testing.B) {
	real, err := exec.LookPath("espeak-ng")
	if err != nil {
		b.Skip("espeak-ng is not installed")
	}
	words, err := GrammarWords(builtinGrammar(b, grammar.Options{}).JSGF())
	require.NoError(b, err)
	// A wrapper that counts its runs, for the count only: the timed
	// lookups run espeak-ng itself.
	counter := filepath.Join(b.TempDir(), "espeak-ng")
	require.NoError(b, os.WriteFile(counter, []byte("#!/bin/sh\necho >> \"$0.runs\"\nexec "+real+" \"$@\"\n"), 0o755))
	for _, tt := range []struct {
		name  string
		guess func(prog string) Guesser
	}{
		{"batch", func(prog string) Guesser { return EspeakGuesser{Program: prog} }},
		{"per-word", func(prog string) Guesser { return oneByOne{EspeakGuesser{Program: prog}} }},
	} {
		b.Run(tt.name, func(b *testing.B) {
			ctx := context.Background()
			os.Remove(counter + ".runs")
			lex, err := NewLexicon(DefaultDict, LexiconOptions{Guesser: tt.guess(counter)})
			require.NoError(b, err)
			_, err = lex.Lookup(ctx, words)
			require.NoError(b, err)
			runs, err := os.ReadFile(counter + ".runs")
			require.NoError(b, err)
			// The dictionary's answers are remembered after the first
			// lookup; the guesses are forgotten before each: what is
			// timed is the guessing.
			lex, err = NewLexicon(DefaultDict, LexiconOptions{Guesser: tt.guess(real)})
			require.NoError(b, err)
			_, err = lex.Lookup(ctx, words)
			require.NoError(b, err)
			b.ResetTimer()
			for b.Loop() {
				lex.guessed = nil
				_, err := lex.Lookup(ctx, words)
				require.NoError(b, err)
			}
			b.ReportMetric(float64(strings.Count(string(runs), "\n")), "espeak-runs/op")
		})
	}
}
