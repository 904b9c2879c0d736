//go:build sphinx

package sphinx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSameWord(t *testing.T) {
	tests := []struct{ word, want string }{
		{"timer", "timer"},
		{"two(2)", "two"},
		{"=you", "you"},
		{"minutes", "minute"},
		{"seconds(2)", "second"},
		{"is", "is"},
		{"was", "was"},
		{"less", "less"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sameWord(tt.word), tt.word)
	}
}

// TestWordPosteriors: measured, each word of the sentence heard has a
// posterior in [0, 1] and the recogniser hears what it hears without
// the check; a low floor lets a clean sentence through.
func TestWordPosteriors(t *testing.T) {
	pcm := speak(t, "set a timer for four minutes")
	plain := newTestRecognizer(t, Config{})
	want, err := plain.Recognize(t.Context(), pcm)
	require.NoError(t, err)
	require.NotEmpty(t, want)

	measured := newTestRecognizer(t, Config{WordPosterior: -1})
	got, v, err := measured.RecognizeVerdict(t.Context(), pcm)
	require.NoError(t, err)
	assert.Equal(t, want, got, "measuring decides nothing")
	assert.Equal(t, []string{"set", "a", "timer", "for", "four", "minutes"}, v.Words)
	require.Len(t, v.WordPosteriors, len(v.Words))
	for i, p := range v.WordPosteriors {
		assert.True(t, p >= 0 && p <= 1+1e-9, "%s: %g", v.Words[i], p)
	}

	lax := newTestRecognizer(t, Config{WordPosterior: 0.001})
	got, _, err = lax.RecognizeVerdict(t.Context(), pcm)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a clean sentence's words hold their frames")
}
