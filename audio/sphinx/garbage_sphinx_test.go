//go:build sphinx

package sphinx

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testGarbage is a garbage path of the 50 most common words costing
// perWord a word.
func testGarbage(t testing.TB, perWord float64) *Garbage {
	t.Helper()
	words, err := CommonWords(50)
	require.NoError(t, err)
	return &Garbage{Words: words, PerWord: perWord}
}

// TestGarbagePathNeverHeard: with the garbage path in the grammar's
// search, none of the n-best hypotheses is a path through it, whether
// the speech is a sentence of the grammar or not (the grammar's Accepts
// reads "=do =you =know" as "do you know"; JSGF's accepts every
// sentence). Free filler words put many such paths near the top of the
// list.
func TestGarbagePathNeverHeard(t *testing.T) {
	r := newTestRecognizer(t, Config{NBest: 8, Garbage: testGarbage(t, 0), MinConfidence: 0.01, MinCoverage: 0.01})
	tests := []struct{ say string }{
		{"set a timer for four minutes"},
		{"what time is it"},
		{"hey jibo, set a timer for five minutes"},
		{"how are you"},
		{"do you know"},
		{"tell me the time"},
		{"she told me a story about her grandmother"},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			h, err := r.Recognize(context.Background(), noisy(speak(t, tt.say), 300, 1))
			require.NoError(t, err)
			for _, hyp := range h {
				assert.NotContains(t, hyp.Text, "=", "a filler word heard: %q", hyp.Text)
			}
		})
	}
}

// TestGarbageFloorOnlyWhereThePathIs: the garbage path's confidence
// floor is the floor of a search that holds the path, and of no other
// (a grammar with the wake phrase in it gets no path): elsewhere
// Config.MinConfidence decides.
func TestGarbageFloorOnlyWhereThePathIs(t *testing.T) {
	gb := testGarbage(t, 250)
	gb.MinConfidence = 0.01
	tests := []struct {
		name, say, wake string
		heard           bool
	}{
		{"the path: its floor", "what time is it", "", true},
		{"no path: the usual floor", "hey jibo what time is it", "hey jibo", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A usual floor no sentence reaches.
			r := newTestRecognizer(t, Config{Garbage: gb, Wake: tt.wake, MinConfidence: 1, MinCoverage: 0.01})
			h, v, err := r.RecognizeVerdict(context.Background(), speak(t, tt.say))
			require.NoError(t, err)
			require.Less(t, v.Confidence, 1.0, "a sentence short of the usual floor")
			if tt.heard {
				assert.Equal(t, tt.say, best(h))
				assert.Empty(t, v.Dropped)
			} else {
				assert.Empty(t, h)
				assert.Equal(t, "confidence", v.Dropped)
			}
		})
	}
}

// TestTailedSentenceMeasuredWithoutTheTail: filler words after a
// sentence do not lower the confidence of a sentence found without them.
// In "hey jibo, set a timer for ten minutes" "hey jibo" is a sentence of
// its own, so from there on the filler words are searched beside the
// rest, whose words score lower against each frame's best senone. Over
// the floor the sentence is taken as found; under it, it is measured
// again without the filler words, as a recogniser without them measures
// it (the end-to-end test over other talkers shows what that saves).
func TestTailedSentenceMeasuredWithoutTheTail(t *testing.T) {
	pcm := noisy(speak(t, "hey jibo, set a timer for ten minutes"), 300, 1)
	const said = "hey jibo set a timer for ten minutes"
	recognize := func(tail bool, floor float64) ([]audio.Hypothesis, audio.Verdict) {
		gb := testGarbage(t, 250)
		gb.Tail, gb.EndEntry, gb.MinConfidence = tail, 250, floor
		r := newTestRecognizer(t, Config{Garbage: gb})
		h, v, err := r.RecognizeVerdict(context.Background(), pcm)
		require.NoError(t, err)
		return h, v
	}
	tests := []struct {
		name     string
		floor    float64
		heard    string
		searches []string
	}{
		{"over the floor: measured once", 0.7, said, []string{searchName}},
		{"under the floor: measured without the tail", 1, "", []string{searchName, searchName + untailedSuffix}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, untailed := recognize(false, tt.floor)
			require.Equal(t, said, untailed.Sentence)
			h, v := recognize(true, tt.floor)
			assert.Equal(t, tt.heard, best(h), "%+v", v)
			assert.Equal(t, said, v.Sentence)
			assert.Equal(t, tt.searches, v.Searches)
			if len(tt.searches) > 1 {
				assert.InDelta(t, untailed.Confidence, v.Confidence, 1e-9, "the confidence without the tail")
			} else {
				assert.Less(t, v.Confidence, untailed.Confidence, "the tail lowers it")
			}
		})
	}
	t.Run("under the floor with the tail, over it without: heard", func(t *testing.T) {
		_, tailed := recognize(true, 0)
		_, untailed := recognize(false, 0)
		require.Less(t, tailed.Confidence, untailed.Confidence)
		h, v := recognize(true, (tailed.Confidence+untailed.Confidence)/2)
		assert.Equal(t, said, best(h), "%+v", v)
		assert.Equal(t, []string{searchName, searchName + untailedSuffix}, v.Searches)
	})
}

// TestQuietTailKeepsTheSentence: "how are you", then, 150 ms after it,
// another talker saying "but it was" in the room. Filler words after
// the sentence take the other talker, and the path is refused; where
// that talker is 20 dB under the one who spoke (no frame of theirs
// within 6 dB of the sentence's median level), the sentence is measured
// by the search without filler words and heard. 14 dB under, the other
// talker is as loud as much of the sentence: refused.
func TestQuietTailKeepsTheSentence(t *testing.T) {
	said, other := speak(t, "how are you"), speak(t, "but it was", "-v", "en-gb", "-s", "190")
	with := func(under float64) []int16 {
		pcm := append(slices.Clone(said), make([]int16, audio.SampleRate*15/100)...)
		g := math.Pow(10, -under/20)
		for _, v := range other {
			pcm = append(pcm, int16(math.Round(float64(v)*g)))
		}
		return noisy(pcm, 100, 1)
	}
	tests := []struct {
		name         string
		under, quiet float64
		heard        string
		searches     []string
	}{
		{"20 dB under: heard", 20, 6, "how are you", []string{searchName, searchName + untailedSuffix}},
		{"20 dB under, every tail refusing: refused", 20, 0, "", []string{searchName}},
		{"14 dB under: refused", 14, 6, "", []string{searchName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gb := testGarbage(t, 250)
			gb.Tail, gb.EndEntry, gb.MinConfidence, gb.QuietTail = true, 250, 0.7, tt.quiet
			r := newTestRecognizer(t, Config{Garbage: gb})
			h, v, err := r.RecognizeVerdict(context.Background(), with(tt.under))
			require.NoError(t, err)
			assert.Equal(t, tt.heard, best(h), "%+v", v)
			assert.Equal(t, tt.searches, v.Searches)
			assert.Equal(t, tt.heard != "", v.QuietTail)
			if tt.heard == "" {
				assert.Equal(t, "garbage", v.Dropped)
				assert.True(t, strings.HasPrefix(v.Sentence, "how are you ="), "the sentence, then filler words: %q", v.Sentence)
			}
		})
	}
}
