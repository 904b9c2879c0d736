//go:build sphinx

package sphinx

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGrammarSearchSweepsWithOurHistory: the grammar search's end of
// frame goes through jibod_end_frame (history.go), not pocketsphinx's
// own, once a frame, and the sentence comes out as before (the other
// tests of this package hold the decisions; jibod audio eval decides
// file for file as main did).
func TestGrammarSearchSweepsWithOurHistory(t *testing.T) {
	r := newTestRecognizer(t, Config{})
	pcm := speak(t, "what time is it")
	before := historySweeps()
	h, err := r.Recognize(context.Background(), pcm)
	require.NoError(t, err)
	assert.Equal(t, "what time is it", best(h))
	// The front end makes a frame every 10 ms; the utterance is trimmed
	// and padded, so allow for that.
	frames := len(pcm) / 160
	assert.GreaterOrEqual(t, historySweeps()-before, uint64(frames/2), "about one sweep a frame of %d", frames)
}
