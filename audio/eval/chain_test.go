package eval

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/wake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixedRecognizer says the same thing for every utterance.
type fixedRecognizer struct{ text string }

func (f fixedRecognizer) Recognize(_ context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	if f.text == "" {
		return nil, nil
	}
	return []audio.Hypothesis{{Text: f.text, Confidence: 0.9}}, nil
}

// burst is quiet noise, a loud tone and quiet noise again: one utterance
// for the detector.
func burst() []int16 {
	pcm := make([]int16, 3*audio.SampleRate)
	seed := uint32(1)
	for i := range pcm {
		seed = seed*1664525 + 1013904223
		pcm[i] = int16(int(seed>>20)%41 - 20)
		if i >= audio.SampleRate && i < 2*audio.SampleRate {
			pcm[i] += int16(8000 * math.Sin(2*math.Pi*440*float64(i)/audio.SampleRate))
		}
	}
	return pcm
}

func TestListenerChain(t *testing.T) {
	tests := []struct {
		name     string
		said     string
		open     bool
		wakes    int
		commands [][]string
	}{
		{"wake and command", "hey jibo what time is it", false, 1, [][]string{{"what time is it"}}},
		{"bare wake", "hey jibo", false, 1, nil},
		{"no wake, window closed", "what time is it", false, 0, nil},
		{"no wake, window open", "what time is it", true, 0, [][]string{{"what time is it"}}},
		{"nothing recognised", "", true, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lc := &ListenerChain{Recognizer: fixedRecognizer{tt.said}, Lang: "en-US"}
			h, err := lc.Hear(context.Background(), burst(), tt.open, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.wakes, h.Wakes)
			assert.Equal(t, tt.commands, h.Commands)
			assert.Equal(t, []string{tt.said}, h.Recognized, "one utterance")
			assert.Equal(t, 1, h.Utterances)
			assert.Len(t, h.Latencies, 1)
			assert.Greater(t, h.Speech.Seconds(), 0.9)
			assert.Positive(t, h.RecognizeTime)
		})
	}
}

func TestListenerChainNeedsARecognizer(t *testing.T) {
	_, err := (&ListenerChain{}).Hear(context.Background(), burst(), false, 0)
	assert.Error(t, err)
}

// spotAt reports the wake phrase once, when the stream passes a position.
type spotAt struct{ at, pos int64 }

func (s *spotAt) Feed(pcm []int16) []wake.Detection {
	from := s.pos
	s.pos += int64(len(pcm))
	if s.at > from && s.at <= s.pos {
		return []wake.Detection{{At: s.at, End: s.at, Score: 0.9}}
	}
	return nil
}

// With a wake word detector, its wakes count and what follows the phrase
// is the command; each file gets a detector of its own.
func TestListenerChainWithWakeDetector(t *testing.T) {
	made := 0
	lc := &ListenerChain{Recognizer: fixedRecognizer{"what time is it"}, Lang: "en-US",
		Wake: func() (listen.WakeDetector, error) {
			made++
			return &spotAt{at: audio.SampleRate + audio.SampleRate/4}, nil
		}}
	for range 2 {
		h, err := lc.Hear(context.Background(), burst(), false, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, h.Wakes)
		assert.Equal(t, [][]string{{"what time is it"}}, h.Commands)
	}
	assert.Equal(t, 2, made)

	h, err := (&ListenerChain{Recognizer: NoRecognizer{}, Wake: func() (listen.WakeDetector, error) { return &spotAt{}, nil }}).
		Hear(context.Background(), burst(), false, 0)
	require.NoError(t, err)
	assert.Zero(t, h.Wakes)
	assert.Equal(t, 1, h.Utterances)
	assert.Empty(t, h.Recognized, "outside the window nothing is recognised")
}

// verdictRecognizer says the same thing for every utterance, and why.
type verdictRecognizer struct{ v audio.Verdict }

func (r verdictRecognizer) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	h, _, err := r.RecognizeVerdict(ctx, pcm)
	return h, err
}

func (r verdictRecognizer) RecognizeVerdict(context.Context, []int16) ([]audio.Hypothesis, audio.Verdict, error) {
	return nil, r.v, nil
}

// The chain keeps where each utterance was and what the recogniser said
// of it, so a report can tell where a command was lost.
func TestListenerChainRecordsSpansAndVerdicts(t *testing.T) {
	v := audio.Verdict{Sentence: "what time is it", Confidence: 0.4, Coverage: 0.9, Dropped: "confidence"}
	h, err := (&ListenerChain{Recognizer: verdictRecognizer{v}, Lang: "en-US"}).Hear(context.Background(), burst(), true, 0)
	require.NoError(t, err)
	require.Len(t, h.Spans, 1)
	assert.InDelta(t, 1.0, h.Spans[0].Start.Seconds(), 0.1, "the tone starts at 1 s")
	assert.InDelta(t, 2.0, h.Spans[0].End.Seconds(), 0.1, "and ends at 2 s")
	assert.Equal(t, "silence", h.Spans[0].Reason)
	require.Len(t, h.Decisions, 1)
	assert.Equal(t, v, h.Decisions[0].Verdict)
	assert.Greater(t, h.Decisions[0].Audio.Seconds(), 1.0)
}

// A window opened at a position of the file takes the speech after it,
// not the speech before it closes.
func TestListenerChainOpensTheWindowWhereAsked(t *testing.T) {
	tests := []struct {
		name     string
		at       time.Duration
		commands int
	}{
		{"before the speech", 500 * time.Millisecond, 1},
		{"long before the speech", 0, 1},
		{"after the speech", 2500 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := (&ListenerChain{Recognizer: fixedRecognizer{"what time is it"}, Lang: "en-US"}).
				Hear(context.Background(), burst(), true, tt.at)
			require.NoError(t, err)
			assert.Len(t, h.Commands, tt.commands)
		})
	}
}

// aligningRecognizer says the same thing for every utterance and keeps
// how much audio each had; it aligns the wake phrase
// (listen.PhraseAligner) shift samples after where the listener's
// estimate lies in the audio it is handed (alignAfter, 500 ms, before
// its end), or finds none.
type aligningRecognizer struct {
	fixedRecognizer
	shift   int
	found   bool
	mu      sync.Mutex
	aligned int
	lengths []int
}

func (a *aligningRecognizer) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	a.mu.Lock()
	a.lengths = append(a.lengths, len(pcm))
	a.mu.Unlock()
	return a.fixedRecognizer.Recognize(ctx, pcm)
}

func (a *aligningRecognizer) AlignWake(_ context.Context, pcm []int16) (int, bool, error) {
	a.mu.Lock()
	a.aligned++
	a.mu.Unlock()
	return len(pcm) - audio.SampleRate/2 + a.shift, a.found, nil
}

// An eval of "hey jibo" run on into the command (no pause after the
// phrase, in a quiet room) asks the recogniser where the phrase ends, as
// the robot's listener does, and the command is cut there: the aligned
// end 50 ms after the detector's estimate hands the recogniser 50 ms
// less of the command than an alignment that finds no phrase.
func TestListenerChainAlignsTheWakePhrase(t *testing.T) {
	hear := func(found bool) *aligningRecognizer {
		a := &aligningRecognizer{fixedRecognizer: fixedRecognizer{"what time is it"}, shift: audio.SampleRate / 20, found: found}
		lc := &ListenerChain{Recognizer: a, Lang: "en-US",
			Wake: func() (listen.WakeDetector, error) {
				return &spotAt{at: audio.SampleRate + audio.SampleRate/4}, nil
			}}
		h, err := lc.Hear(context.Background(), burst(), false, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, h.Wakes)
		assert.Equal(t, [][]string{{"what time is it"}}, h.Commands)
		assert.Equal(t, 1, a.aligned, "the phrase's end asked for once")
		require.Len(t, a.lengths, 1, "one command recognised")
		return a
	}
	aligned, notFound := hear(true), hear(false)
	assert.Equal(t, audio.SampleRate/20, notFound.lengths[0]-aligned.lengths[0], "the command cut where the phrase was aligned")
}
