//go:build sphinx

package sphinx

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTranscribeWhatTheGrammarRefuses is issue 24 item 4: speech the
// grammar does not hold is refused by Recognize and transcribed, in any
// words, by the open-vocabulary pass (Debian's language model).
func TestTranscribeWhatTheGrammarRefuses(t *testing.T) {
	r := newTestRecognizer(t, Config{MinConfidence: 0.8, MinCoverage: 0.8, Open: &OpenConfig{LanguageModel: "lm/jibo.lm", NBest: 3}})
	pcm := speak(t, "please turn the music down a little")
	h, err := r.Recognize(context.Background(), pcm)
	require.NoError(t, err)
	assert.Empty(t, h, "not a sentence of the grammar")
	start := time.Now()
	h, err = r.Transcribe(context.Background(), pcm)
	took := time.Since(start)
	require.NoError(t, err)
	require.NotEmpty(t, h)
	t.Logf("transcribed %q in %v (%.1f s of audio); n-best %v", h[0].Text, took, float64(len(pcm))/16000, h)
	assert.Contains(t, h[0].Text, "music", "a word the grammar does not have")
	for _, x := range h {
		assert.True(t, x.Open)
		assert.GreaterOrEqual(t, x.Confidence, 0.0)
		assert.LessOrEqual(t, x.Confidence, h[0].Confidence, "the best comes first")
	}

	none := newTestRecognizer(t, Config{})
	h, err = none.Transcribe(context.Background(), pcm)
	require.NoError(t, err)
	assert.Empty(t, h, "no open pass configured")
}

func TestCleanTranscript(t *testing.T) {
	assert.Equal(t, "read the book", cleanTranscript("<s> read(2) [NOISE] the book </s>"))
	assert.Empty(t, cleanTranscript("<sil> <s> </s>"))
}
