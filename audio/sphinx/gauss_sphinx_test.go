//go:build sphinx

package sphinx

import (
	"context"
	"testing"

	"github.com/openjibo/jibod/audio"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skipWithoutVectors skips a test on a CPU without a vector unit the
// scoring uses (armv7 without NEON), where pocketsphinx's own scores
// every frame; a decoder must have started.
func skipWithoutVectors(t *testing.T) {
	if gaussState.Load() == gaussNoSIMD {
		t.Skip("no NEON on this CPU: pocketsphinx's own scoring runs")
	}
}

// gaussUtterances are speech and noise for the scoring tests: quiet
// commands, commands over noise, and everyday speech (the fallback's).
func gaussUtterances(t *testing.T) [][]int16 {
	return [][]int16{
		speak(t, "hey jibo, set a timer for five minutes"),
		noisy(speak(t, "tell me the time"), 300, 1),
		noisy(speak(t, "what time is it"), 30, 2),
		noisy(speak(t, "she told me a story about her grandmother"), 900, 3),
	}
}

// TestGaussScoresFramesAsPocketsphinx: with every frame scored both ways
// (the vector scoring of gauss.c, then pocketsphinx's own from the same
// state), every frame of the grammar search, its retry and the fallback
// gets the same senone scores and the same top-N densities.
func TestGaussScoresFramesAsPocketsphinx(t *testing.T) {
	setGaussCheckAll(true)
	defer setGaussCheckAll(false)
	r := newTestRecognizer(t, Config{Grammar: fallbackLM(t), Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8})
	skipWithoutVectors(t)
	require.True(t, gaussOn(), "the vector scoring is installed (amd64, arm64 or armv7 with NEON, the en-us model)")
	checked, vec := gaussChecked(), gaussVecFrames()
	for _, pcm := range gaussUtterances(t) {
		_, _, err := r.RecognizeVerdict(context.Background(), pcm)
		require.NoError(t, err)
	}
	assert.Greater(t, gaussChecked()-checked, int64(500), "frames scored both ways")
	assert.Greater(t, gaussVecFrames()-vec, int64(500), "frames scored by the vector code")
	assert.True(t, gaussOn(), "no frame scored otherwise than pocketsphinx scores it")
}

// TestGaussDecidesAsPocketsphinx: the recogniser hears the same sentences
// with the same scores and verdicts whether the vector scoring or
// pocketsphinx's own scores the frames.
func TestGaussDecidesAsPocketsphinx(t *testing.T) {
	utts := gaussUtterances(t)
	newTestRecognizer(t, Config{})
	skipWithoutVectors(t)
	run := func(off bool) ([][]audio.Hypothesis, []audio.Verdict) {
		setGaussOff(off)
		defer setGaussOff(false)
		r := newTestRecognizer(t, Config{Grammar: fallbackLM(t), Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8})
		hs := make([][]audio.Hypothesis, len(utts))
		vs := make([]audio.Verdict, len(utts))
		for i, pcm := range utts {
			var err error
			hs[i], vs[i], err = r.RecognizeVerdict(context.Background(), pcm)
			require.NoError(t, err)
		}
		return hs, vs
	}
	libH, libV := run(true)
	vec := gaussVecFrames()
	h, v := run(false)
	assert.Greater(t, gaussVecFrames()-vec, int64(500), "frames scored by the vector code")
	assert.Equal(t, libH, h)
	assert.Equal(t, libV, v)
}

// TestGaussCheckTurnsItselfOff: a checked frame whose scores differ from
// pocketsphinx's turns the vector scoring off for the process, the
// sentences stay what pocketsphinx hears, and the recogniser says so
// once.
func TestGaussCheckTurnsItselfOff(t *testing.T) {
	utts := gaussUtterances(t)[:2]
	newTestRecognizer(t, Config{})
	skipWithoutVectors(t)
	want := make([][]audio.Hypothesis, len(utts))
	setGaussOff(true)
	r := newTestRecognizer(t, Config{})
	for i, pcm := range utts {
		var err error
		want[i], err = r.Recognize(context.Background(), pcm)
		require.NoError(t, err)
	}
	setGaussOff(false)
	require.True(t, gaussOn())
	setGaussCorrupt(true)
	defer setGaussCorrupt(false)
	r = newTestRecognizer(t, Config{})
	for i, pcm := range utts {
		h, err := r.Recognize(context.Background(), pcm)
		require.NoError(t, err)
		// The utterance the check trips in is heard again, on a decoder
		// that has already heard it once (its noise estimate moved), so
		// its confidence may differ in the last digits.
		require.Len(t, h, len(want[i]))
		for k := range h {
			assert.Equal(t, want[i][k].Text, h[k].Text)
			assert.InDelta(t, want[i][k].Confidence, h[k].Confidence, 0.01)
		}
	}
	assert.False(t, gaussOn(), "turned off by the first check")
}
