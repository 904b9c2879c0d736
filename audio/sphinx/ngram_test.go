//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio/ngram"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testLM is testGrammar's commands (without the wake phrase, as the
// robot's grammar is with the wake word detector) as a domain language model with
// everyday words, searched alone or verifying the grammar.
type testLM struct {
	Grammar
	arpa  string
	words []string
	use   ModelUse
}

func (m testLM) ARPA() string    { return m.arpa }
func (m testLM) Words() []string { return m.words }
func (m testLM) Use() ModelUse   { return m.use }

func newTestLM(t *testing.T, use ModelUse) testLM {
	t.Helper()
	var c ngram.Corpus
	for i, s := range []string{"what time is it", "set a timer for <n> minutes", "start a timer for <n> seconds",
		"set a timer for <n> seconds", "start a timer for <n> minutes", "how are you", "whats the date"} {
		c.Sentences = append(c.Sentences, ngram.Sentence{Tokens: strings.Fields(s), Group: i})
	}
	c.Slots = map[string][][]string{"<n>": {{"one"}, {"two"}, {"three"}, {"four"}, {"five"}, {"ten"}, {"twenty"}}}
	open, err := OpenWords(1000)
	require.NoError(t, err)
	require.Len(t, open, 1000)
	lex, err := NewLexicon(DefaultDict, LexiconOptions{})
	require.NoError(t, err)
	var words []string
	for w := range open {
		words = append(words, w)
	}
	unknown, err := lex.Unknown(context.Background(), words)
	require.NoError(t, err)
	assert.Empty(t, unknown, "cmudict pronounces every open word")
	m, err := ngram.Build(c, ngram.Options{Open: open, OpenWeight: 0.3})
	require.NoError(t, err)
	var sb strings.Builder
	require.NoError(t, m.WriteARPA(&sb))
	return testLM{Grammar: JSGF(strings.Replace(testGrammar, "<wake> [<command>] | <command>", "<command>", 1)), arpa: sb.String(), words: m.Words(), use: use}
}

// TestLanguageModelTranscribes: searched with the domain language model,
// a command is transcribed, and everyday speech comes out as everyday
// words rather than as one of the commands.
func TestLanguageModelTranscribes(t *testing.T) {
	r := newTestRecognizer(t, Config{Grammar: newTestLM(t, ModelAlone)})
	h, err := r.Recognize(context.Background(), speak(t, "set a timer for five minutes"))
	require.NoError(t, err)
	assert.Equal(t, "set a timer for five minutes", best(h))
	h, err = r.Recognize(context.Background(), speak(t, "she told me a story about her grandmother who lived on a farm"))
	require.NoError(t, err)
	t.Logf("everyday speech transcribed as %q", best(h))
	assert.NotContains(t, []string{"", "what time is it", "how are you", "whats the date"}, best(h))
	assert.NotContains(t, best(h), "timer")
}

// TestVerifiedGrammar is issue 24's "rejection instead of forcing": with
// no floors, the grammar forces everyday speech onto a command; checked
// against the domain language model's transcript of the same audio,
// whose words mean nothing to the robot and are not the sentence's, the
// sentence is dropped, while a command said, transcribed in the same
// words, passes.
func TestVerifiedGrammar(t *testing.T) {
	lm := newTestLM(t, ModelVerifies)
	plain := newTestRecognizer(t, Config{Grammar: lm.Grammar})
	r := newTestRecognizer(t, Config{Grammar: lm, Understand: commandsOnly})
	for _, say := range []string{"what kind of music do you like", "the train leaves at half past nine", "i went to the store yesterday and bought some apples"} {
		pcm := speak(t, say)
		h, err := plain.Recognize(context.Background(), pcm)
		require.NoError(t, err)
		require.NotEmpty(t, h, "%q forced onto a sentence", say)
		h, err = r.Recognize(context.Background(), pcm)
		require.NoError(t, err)
		assert.Empty(t, h, "%q heard as %v", say, h)
	}
	for _, say := range []string{"what time is it", "set a timer for twenty seconds", "how are you"} {
		h, err := r.Recognize(context.Background(), speak(t, say))
		require.NoError(t, err)
		assert.Equal(t, say, best(h))
	}
}

// commandsOnly understands testLM's commands, as an intent engine that
// knows only them would.
func commandsOnly(_ context.Context, text string) (Meaning, error) {
	for prefix, intent := range map[string]string{"what time is it": "clock:time", "set a timer for": "timer:set",
		"start a timer for": "timer:set", "how are you": "chat:how_are_you", "whats the date": "clock:date"} {
		if strings.HasPrefix(text, prefix) {
			return Meaning{Intent: intent, Confidence: 1, Parsed: true}, nil
		}
	}
	return Meaning{}, nil
}

// TestVerifyCheck: what the verifying search makes of the grammar's
// sentence and the language model's transcript of the same speech. Both
// agreeing, in words or in meaning, keeps the sentence; a transcript
// nothing claims drops it when it says much the sentence does not; a
// transcript surely claimed for another intent wins when it fits the
// speech, and otherwise the robot asks.
func TestVerifyCheck(t *testing.T) {
	claims := map[string]Meaning{
		"delete timer":      {Intent: "timer:cancel", Confidence: 0.97},
		"delete the time":   {Intent: "clock:time", Confidence: 0.995},
		"what is the date":  {Intent: "clock:date", Confidence: 0.97},
		"what is the day":   {Intent: "clock:date", Confidence: 0.97},
		"timer five minute": {Intent: "timer:set", Confidence: 0.97},
		"volume two":        {Intent: "volume:set", Confidence: 0.97},
		"on new":            {Intent: "chat:how_are_you", Confidence: 0.98},
	}
	understand := func(_ context.Context, text string) (Meaning, error) { return claims[text], nil }
	tests := []struct {
		name, sentence string
		heard          transcript
		want           verdict
	}{
		{"same words", "what is the date", transcript{"what is the date", 0.9, 1}, takeSentence},
		{"same intent", "what is the date", transcript{"what is the day", 0.9, 1}, takeSentence},
		{"nothing claims a short transcript", "louder", transcript{"dial the", 0.9, 1}, takeSentence},
		{"nothing claims three words more", "set a timer for five minute", transcript{"set the timer what is", 0.9, 1}, takeSentence},
		{"nothing claims four words more", "set a timer for five minute", transcript{"set the timer what is the", 0.9, 1}, dropBoth},
		{"nothing claims other words", "timer five minute", transcript{"i lovely of all of get me", 0.9, 1}, dropBoth},
		{"surely another intent", "delete timer", transcript{"delete the time", 0.9, 1}, takeTranscript},
		{"surely another intent, poorly heard", "delete timer", transcript{"delete the time", 0.7, 1}, dropBoth},
		{"surely another intent, half covered", "delete timer", transcript{"delete the time", 0.9, 0.5}, dropBoth},
		{"another intent, not surely", "volume two", transcript{"on new", 1, 1}, dropBoth},
		{"another intent, not surely either", "timer five minute", transcript{"what is the day", 1, 1}, dropBoth},
	}
	r := &Recognizer{cfg: Config{MinConfidence: 0.8, MinCoverage: 0.8, Understand: understand}, log: slog.New(slog.DiscardHandler)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := r.check(context.Background(), tt.sentence, tt.heard)
			require.NoError(t, err)
			assert.Equal(t, tt.want, v)
		})
	}
	t.Run("understanding fails", func(t *testing.T) {
		r := &Recognizer{cfg: Config{Understand: func(context.Context, string) (Meaning, error) { return Meaning{}, errors.New("no stack") }},
			log: slog.New(slog.DiscardHandler)}
		v, err := r.check(context.Background(), "delete timer", transcript{"delete the time", 1, 1})
		assert.ErrorContains(t, err, "no stack")
		assert.Equal(t, dropBoth, v)
	})
}
