//go:build sphinx

package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/audio/sphinx"
)

// needSphinxFiles skips a test when the pronouncing dictionary or the
// acoustic model is not installed.
func needSphinxFiles(t *testing.T) {
	t.Helper()
	for _, p := range []string{sphinx.DefaultDict, sphinx.DefaultModelDir} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("no %s (apt install pocketsphinx-en-us)", p)
		}
	}
}

// A loop member's names are in the answer grammar: alone ("Ann", "Ann
// Lee") and in the who rule's open slot ("this is Ann"). A name the
// dictionary lacks is pronounced by espeak-ng when it is installed, as any
// unknown word is, and left out otherwise.
func TestAnswerGrammarHasTheLoopsNames(t *testing.T) {
	needSphinxFiles(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"--first", "Ann", "--last", "Lee"}, {"--first", "Zyxquorra"}} {
		code, _, stderr := loopCmd(t, dir, append([]string{"add"}, args...)...)
		require.Equal(t, 0, code, stderr)
	}
	r, err := newRobot(context.Background(), robotConfig{Board: "sim", SpeakWPM: 0, StateDir: dir, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })

	opts := sphinx.LexiconOptions{}
	_, lookErr := exec.LookPath("espeak-ng")
	espeak := lookErr == nil
	if espeak {
		opts.Guesser = sphinx.EspeakGuesser{}
	}
	lex, err := sphinx.NewLexicon(sphinx.DefaultDict, opts)
	require.NoError(t, err)
	gb := &grammarBuilder{r: r, lex: lex, lang: "en-US", log: slog.New(slog.DiscardHandler), loop: r.loop}
	a, err := gb.buildAnswers(context.Background())
	require.NoError(t, err)
	g := a.(*grammar.Grammar)
	for _, s := range []string{"ann", "ann lee", "this is ann", "its me ann", "ann here", "my name is ann lee"} {
		assert.True(t, g.Accepts(s), s)
	}
	assert.False(t, g.Accepts("bob"), "only the loop's names")
	assert.Equal(t, espeak, g.Accepts("zyxquorra"), "a name the dictionary lacks, through espeak-ng when installed")

	main, err := gb.build(context.Background())
	require.NoError(t, err)
	assert.Contains(t, main.Words(), "hey")
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Someone added with `jibod loop add` while the robot listens is in the
// recogniser's grammars after the rebuild the loop change causes.
func TestRecognizerRebuildsOnALoopChange(t *testing.T) {
	needSphinxFiles(t)
	dir := t.TempDir()
	r, err := newRobot(context.Background(), robotConfig{Board: "sim", SpeakWPM: 0, StateDir: dir,
		Log: slog.New(slog.DiscardHandler), LoopWatch: 20 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	var logs syncBuffer
	_, free, err := newRecognizer(context.Background(), r, asrOptions{Lang: "en-US", Log: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = free() })
	require.NotContains(t, logs.String(), "grammar rebuilt")

	code, _, stderr := loopCmd(t, dir, "add", "--first", "Ann")
	require.Equal(t, 0, code, stderr)
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "grammar rebuilt") }, 30*time.Second, 20*time.Millisecond)
}
