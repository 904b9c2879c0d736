package sphinx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtinGuessedWords are the words of the built-in skills' grammar that
// cmudict lacks, which the robot's lexicon guesses.
var builtinGuessedWords = []string{"heya", "hiya", "hullo", "nighty", "salutations", "shush", "unmute"}

// TestEspeakGuessWordsMatchesGuess: one espeak-ng run for many words
// pronounces each word as a run for the word alone does, apostrophes,
// function words, initialisms and refused words included.
func TestEspeakGuessWordsMatchesGuess(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is not installed (scripts/deps.sh installs it)")
	}
	words := append(slices.Clone(builtinGuessedWords),
		"don't", "rock'n'roll", "o'clock", "jibo's", "'tis", "the", "a", "i", "to", "bbc", "mr", "x",
		"brontide", "siobhan", "shivawn", strings.Repeat("ab", MaxWordBytes/2),
		"r2d2", "hi-ya", "'")
	g := EspeakGuesser{}
	ctx := context.Background()
	got := g.GuessWords(ctx, words)
	require.Len(t, got, len(words))
	for i, w := range words {
		t.Run(w, func(t *testing.T) {
			want, err := g.Guess(ctx, w)
			if err != nil {
				assert.Error(t, got[i].Err, "refused alone, refused in a batch")
				return
			}
			require.NoError(t, got[i].Err)
			assert.Equal(t, want, got[i].Phones)
		})
	}
}

// TestEspeakGuessBuiltinWords: the built-in skills' guessed words have the
// phones they have always had.
func TestEspeakGuessBuiltinWords(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is not installed (scripts/deps.sh installs it)")
	}
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{Guesser: EspeakGuesser{}})
	require.NoError(t, err)
	got, err := lex.Lookup(context.Background(), append([]string{"time"}, builtinGuessedWords...))
	require.NoError(t, err)
	tests := []struct{ word, want string }{
		{"heya", "HH EY AH"},
		{"hiya", "HH AY AH"},
		{"hullo", "HH AH L OW"},
		{"nighty", "N AY T IY"},
		{"salutations", "S AE L UW T EY SH AH N Z"},
		{"shush", "SH AH SH"},
		{"unmute", "AH N M Y UW T"},
	}
	for _, tt := range tests {
		assert.Equal(t, []string{tt.want}, got[tt.word], tt.word)
	}
}

// fakeEspeak copies testdata/fake-espeak.sh to a program named mode (what
// it does) and returns its path and a count of its runs so far.
func fakeEspeak(t *testing.T, mode string) (string, func() int) {
	t.Helper()
	src, err := os.ReadFile("testdata/fake-espeak.sh")
	require.NoError(t, err)
	prog := filepath.Join(t.TempDir(), mode)
	require.NoError(t, os.WriteFile(prog, src, 0o755))
	return prog, func() int {
		b, err := os.ReadFile(prog + ".runs")
		if os.IsNotExist(err) {
			return 0
		}
		require.NoError(t, err)
		return strings.Count(string(b), "\n")
	}
}

// TestEspeakGuessWordsRuns: a batch is one run; output that does not map
// back to the words a line each falls back to a run a word; a run past
// its time limit is tried once more.
func TestEspeakGuessWordsRuns(t *testing.T) {
	words := []string{"bad", "dog", "tune"}
	want := []string{"B AE D", "D OW G", "T UW N EH"}
	tests := []struct {
		mode    string
		timeout time.Duration
		runs    int
	}{
		{"answer", 0, 1},
		{"one-line", 0, 1 + len(words)},
		// The first run never answers: its time limit passes, the second
		// answers. The limit has room for the second on a loaded machine.
		{"hang-once", 2 * time.Second, 2},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			prog, runs := fakeEspeak(t, tt.mode)
			got := EspeakGuesser{Program: prog, Timeout: tt.timeout}.GuessWords(context.Background(), words)
			require.Len(t, got, len(words))
			for i := range words {
				require.NoError(t, got[i].Err, words[i])
				assert.Equal(t, want[i], got[i].Phones, words[i])
			}
			assert.Equal(t, tt.runs, runs(), "espeak-ng runs")
		})
	}
}

// TestLexiconGuesserHangs: a guesser that never answers is given up after
// its time limit and one more try; the lookup names the words it has no
// pronunciation for, and the log says which and why.
func TestLexiconGuesserHangs(t *testing.T) {
	// The attempts are counted from the log, not from the fake's own
	// count: under load a run can be given up before the fake has started
	// far enough to note it.
	prog, _ := fakeEspeak(t, "hang")
	var logs bytes.Buffer
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{
		Guesser: EspeakGuesser{Program: prog, Timeout: 100 * time.Millisecond},
		Log:     slog.New(slog.NewTextHandler(&logs, nil)),
	})
	require.NoError(t, err)
	got, err := lex.Lookup(context.Background(), []string{"time", "nighty", "hiya"})
	var missing *MissingWordsError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, []string{"hiya", "nighty"}, missing.Words)
	assert.Equal(t, []string{"T AY M"}, got["time"], "the rest is still pronounced")
	for _, w := range []string{"nighty", "hiya"} {
		assert.Contains(t, logs.String(), "level=WARN msg=\"speech lexicon: no pronunciation guessed; the word cannot be heard\" word="+w)
	}
	assert.Equal(t, 2, strings.Count(logs.String(), "timed out twice"), "one batch run, tried once more, for each word")
	unknown, err := lex.Unknown(context.Background(), []string{"time", "nighty"})
	require.NoError(t, err)
	assert.Equal(t, []string{"nighty"}, unknown)
	assert.Equal(t, 3, strings.Count(logs.String(), "timed out twice"), "a word given up is asked again at the next lookup")
}

// TestLexiconGuessesInOneRun: a lookup hands all its unknown words to a
// guesser that takes many at once, in one call.
func TestLexiconGuessesInOneRun(t *testing.T) {
	g := &countingGuesser{fakeGuesser: fakeGuesser{"zebra": "Z IY B R AH", "okapi": "OW K AA P IY", "bad": "XX"}}
	var logs bytes.Buffer
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{Guesser: g, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	got, err := lex.Lookup(context.Background(), []string{"zebra", "time", "okapi", "bad", "gnu"})
	var missing *MissingWordsError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, []string{"bad", "gnu"}, missing.Words)
	assert.Equal(t, []string{"Z IY B R AH"}, got["zebra"])
	assert.Equal(t, []string{"OW K AA P IY"}, got["okapi"])
	assert.Equal(t, [][]string{{"zebra", "okapi", "bad", "gnu"}}, g.calls)
	assert.Contains(t, logs.String(), "word=bad")
	assert.Contains(t, logs.String(), "word=gnu")

	// The guesses are remembered; the words the guesser failed on are
	// asked again.
	got, err = lex.Lookup(context.Background(), []string{"okapi", "zebra", "gnu"})
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, []string{"gnu"}, missing.Words)
	assert.Equal(t, []string{"OW K AA P IY"}, got["okapi"])
	assert.Equal(t, [][]string{{"zebra", "okapi", "bad", "gnu"}, {"gnu"}}, g.calls)
}

// countingGuesser is a WordsGuesser that notes its batches.
type countingGuesser struct {
	fakeGuesser
	calls [][]string
}

func (g *countingGuesser) GuessWords(ctx context.Context, words []string) []Guess {
	g.calls = append(g.calls, slices.Clone(words))
	out := make([]Guess, len(words))
	for i, w := range words {
		out[i].Phones, out[i].Err = g.Guess(ctx, w)
	}
	return out
}

// TestLexiconGuessesAtMost: a lookup hands the guesser at most MaxGuesses
// words and warns of the others, which it names as missing.
func TestLexiconGuessesAtMost(t *testing.T) {
	g := &countingGuesser{fakeGuesser: fakeGuesser{}}
	var logs bytes.Buffer
	lex, err := NewLexicon("testdata/small.dict", LexiconOptions{Guesser: g, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	words := make([]string, MaxGuesses+2)
	for i := range words {
		words[i] = fmt.Sprintf("zz%03d", i)
	}
	_, err = lex.Lookup(context.Background(), words)
	var missing *MissingWordsError
	require.ErrorAs(t, err, &missing)
	assert.Len(t, missing.Words, len(words))
	require.Len(t, g.calls, 1)
	assert.Len(t, g.calls[0], MaxGuesses)
	assert.Contains(t, logs.String(), "too many words to guess")
	assert.Contains(t, logs.String(), "zz201")
}
