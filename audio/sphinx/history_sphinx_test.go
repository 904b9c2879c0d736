//go:build sphinx

package sphinx

import (
	"context"
	"testing"

	"github.com/openjibo/jibod/audio"

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

// TestHistorySweepOfTheWrittenCellsDecidesAsTheFullOne: the sweep that
// visits only the cells the frame's word exits went into gives every
// utterance the same sentence, scores and verdict as the sweep over every
// cell (pocketsphinx's own order), over noise and with the fallback.
func TestHistorySweepOfTheWrittenCellsDecidesAsTheFullOne(t *testing.T) {
	lm := fallbackLM(t)
	utterances := [][]int16{
		noisy(speak(t, "tell me the time"), 300, 1),
		noisy(speak(t, "what time is it"), 30, 2),
		noisy(speak(t, "she told me a story about her grandmother"), 900, 3),
		noisy(speak(t, "set a timer for five minutes"), 200, 4),
	}
	run := func(full bool) ([][]audio.Hypothesis, []audio.Verdict) {
		setFullSweeps(full)
		defer setFullSweeps(false)
		r := newTestRecognizer(t, Config{Grammar: lm, Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8})
		var hs [][]audio.Hypothesis
		var vs []audio.Verdict
		for _, pcm := range utterances {
			h, v, err := r.RecognizeVerdict(context.Background(), pcm)
			require.NoError(t, err)
			hs, vs = append(hs, h), append(vs, v)
		}
		return hs, vs
	}
	fullH, fullV := run(true)
	h, v := run(false)
	assert.True(t, historyTracking(), "the word exits came through jibod_entry_add")
	assert.Equal(t, fullH, h)
	assert.Equal(t, fullV, v)
}
