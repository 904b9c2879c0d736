package sphinx

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWakeDecoys: every decoy is "hey" and a pronounceable syllable
// starting with /dʒ/ that is not on the vowel of "jibo"; other wake
// phrases get none.
func TestWakeDecoys(t *testing.T) {
	phrases, words := WakeDecoys("Hey Jibo")
	require.NotEmpty(t, phrases)
	assert.Len(t, words, len(phrases))
	for _, p := range phrases {
		f := strings.Fields(p)
		require.Len(t, f, 2, p)
		assert.Equal(t, "hey", f[0])
		phones, ok := words[f[1]]
		require.True(t, ok, "%s has a pronunciation", p)
		_, err := checkPhones(phones)
		assert.NoError(t, err, p)
		assert.True(t, strings.HasPrefix(phones, "JH "), p)
		assert.NotRegexp(t, `^JH (IY|IH)\b`, phones, "not the vowel of jibo")
		assert.NoError(t, checkWord(f[1]))
	}
	assert.Equal(t, "JH EY", words["jhey"])
	assert.Equal(t, "JH AE K", words["jhaek"])
	for _, wake := range []string{"ok robot", "hey", "hey jibo please"} {
		p, w := WakeDecoys(wake)
		assert.Empty(t, p, wake)
		assert.Empty(t, w, wake)
	}
}
