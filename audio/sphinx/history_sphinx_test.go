//go:build sphinx

package sphinx

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/openjibo/jibod/audio"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGrammarSearchSweepsWithOurHistory: the grammar search's end of
// frame goes through jibod_end_frame (history.go), not pocketsphinx's
// own, its word exits through jibod_entry_add, the periodic check finds
// no cell the tracking missed, and the sentence comes out as before (the
// other tests of this package hold the decisions; jibod audio eval
// decides file for file as main did).
func TestGrammarSearchSweepsWithOurHistory(t *testing.T) {
	require.NoError(t, historyReady(), "pocketsphinx's fsg_history_entry_add found")
	r := newTestRecognizer(t, Config{})
	for _, say := range []string{"what time is it", "hey jibo, set a timer for five minutes"} {
		h, err := r.Recognize(context.Background(), speak(t, say))
		require.NoError(t, err)
		assert.Equal(t, strings.ReplaceAll(say, ",", ""), best(h))
	}
	assert.True(t, historySwept(), "jibod_end_frame ran")
	assert.True(t, historyTracking(), "the word exits came through jibod_entry_add")
	assert.False(t, historyMismatch(), "no filled cell missed")
}

// TestHistorySweepOfTheWrittenCellsDecidesAsTheFullOne: the sweep that
// visits only the cells the frame's word exits went into gives every
// utterance the same sentence, scores and verdict as the sweep over every
// cell (pocketsphinx's own order) and as the sweeps after a mismatch,
// over noise and with the fallback; and with the garbage path, decoders
// searching side by side and the noise estimate reset per utterance.
func TestHistorySweepOfTheWrittenCellsDecidesAsTheFullOne(t *testing.T) {
	lm := fallbackLM(t)
	utterances := [][]int16{
		noisy(speak(t, "tell me the time"), 300, 1),
		noisy(speak(t, "what time is it"), 30, 2),
		noisy(speak(t, "she told me a story about her grandmother"), 900, 3),
		noisy(speak(t, "set a timer for five minutes"), 200, 4),
	}
	tests := []struct {
		name string
		cfg  Config
	}{
		{"the fallback", Config{Grammar: lm, Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8}},
		{"garbage path, two decoders, noise reset", Config{Grammar: lm, Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8,
			Garbage: testGarbage(t, 250), Decoders: 2, ResetNoise: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(full, mismatch bool) ([][]audio.Hypothesis, []audio.Verdict) {
				setFullSweeps(full)
				setHistoryMismatch(mismatch)
				defer setFullSweeps(false)
				defer setHistoryMismatch(false)
				return hearEach(t, newTestRecognizer(t, tt.cfg), tt.cfg.Decoders, utterances)
			}
			fullH, fullV := run(true, false)
			h, v := run(false, false)
			assert.True(t, historyTracking(), "the word exits came through jibod_entry_add")
			assert.False(t, historyMismatch(), "no filled cell missed")
			assert.Equal(t, fullH, h)
			assert.Equal(t, fullV, v)
			mH, mV := run(false, true)
			assert.Equal(t, fullH, mH, "after a mismatch, as the full sweep")
			assert.Equal(t, fullV, mV)
		})
	}
}

// hearEach hears each utterance: in order with one decoder (each
// utterance starts from the noise estimate the one before left); side by
// side with more, where the noise estimate is reset so that the order does
// not matter, each search's frames on whichever thread runs it.
func hearEach(t *testing.T, r *Recognizer, decoders int, utterances [][]int16) ([][]audio.Hypothesis, []audio.Verdict) {
	t.Helper()
	hs := make([][]audio.Hypothesis, len(utterances))
	vs := make([]audio.Verdict, len(utterances))
	errs := make([]error, len(utterances))
	var wg sync.WaitGroup
	for i, pcm := range utterances {
		recognize := func() { hs[i], vs[i], errs[i] = r.RecognizeVerdict(context.Background(), pcm) }
		if decoders > 1 {
			wg.Go(recognize)
		} else {
			recognize()
		}
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return hs, vs
}
