//go:build sphinx

package sphinx

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWakeDecoysKeepOthersNamesOut: "hey jay, what time is it" is said to
// someone else. Without decoys the grammar's nearest sentence starts with
// the wake phrase and the robot would wake; with them it is heard as a
// decoy and dropped, while "hey jibo" still wakes it.
func TestWakeDecoysKeepOthersNamesOut(t *testing.T) {
	phrases, words := WakeDecoys("hey jibo")
	lex, err := NewLexicon(DefaultDict, LexiconOptions{Words: words})
	require.NoError(t, err)
	in := []grammar.Intent{{Skill: "s", Name: "a", Lang: "en", Templates: []string{"what time is it", "how are you", "set a timer", "hey there"}}}
	recognizer := func(decoys []string) *Recognizer {
		g, err := grammar.Build(in, grammar.Options{TemplateLanguage: plainWords{}, Wake: "hey jibo", Decoys: decoys, DecoyWeight: DecoyWeight})
		require.NoError(t, err)
		return newTestRecognizer(t, Config{Grammar: g, Lexicon: lex})
	}
	other := speak(t, "hey jay, what time is it")
	h, err := recognizer(nil).Recognize(context.Background(), other)
	require.NoError(t, err)
	assert.Equal(t, "hey jibo what time is it", best(h), "without decoys it wakes the robot")

	r := recognizer(phrases)
	h, err = r.Recognize(context.Background(), other)
	require.NoError(t, err)
	assert.Empty(t, h, "heard as a decoy, dropped")
	for _, say := range []string{"hey jibo, what time is it", "what time is it", "hey jibo", "hey there"} {
		h, err = r.Recognize(context.Background(), speak(t, say))
		require.NoError(t, err)
		assert.Equal(t, grammarText(say), best(h))
	}
}

// grammarText is a sentence as the recogniser returns it.
func grammarText(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r != ',' {
			out = append(out, r)
		}
	}
	return string(out)
}

// plainWords is a template language of plain sentences, enough for this
// test's (grammar.TemplateLanguage): a template is its own sample, and
// text is its lowercase words.
type plainWords struct{}

func (plainWords) Expand(template string, _ map[string][]string) ([]string, error) {
	return []string{plainWords{}.Normalize(template)}, nil
}

func (plainWords) Normalize(text string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
