//go:build sphinx

package sphinx

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/openjibo/jibod/audio"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/cpu"
)

// skipWithoutVectors skips a test on a CPU without a vector unit the
// scoring uses (armv7 without NEON), where pocketsphinx's own scores
// every frame.
func skipWithoutVectors(t *testing.T, r *Recognizer) {
	if testDecoder(r).gauss == gaussNoSIMD {
		t.Skip("no NEON on this CPU: pocketsphinx's own scoring runs")
	}
}

// testDecoder is one of r's decoders, left in its pool: they were all
// made alike.
func testDecoder(r *Recognizer) *decoder {
	d := <-r.pool
	r.pool <- d
	return d
}

// recordedLogs keeps the records a logger was given.
type recordedLogs struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *recordedLogs) Enabled(context.Context, slog.Level) bool { return true }

func (l *recordedLogs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

func (l *recordedLogs) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *recordedLogs) WithGroup(string) slog.Handler      { return l }

// count is how many records at level say something containing msg.
func (l *recordedLogs) count(level slog.Level, msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.records {
		if r.Level == level && strings.Contains(r.Message, msg) {
			n++
		}
	}
	return n
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
// gets the same senone scores and the same top-N densities: four
// densities at a time, and eight where the CPU has AVX.
func TestGaussScoresFramesAsPocketsphinx(t *testing.T) {
	for _, narrow := range []bool{false, true} {
		name := "widest"
		if narrow {
			name = "four"
		}
		t.Run(name, func(t *testing.T) {
			setGaussCheckAll(true)
			defer setGaussCheckAll(false)
			setGaussNarrow(narrow)
			defer setGaussNarrow(false)
			r := newTestRecognizer(t, Config{Grammar: fallbackLM(t), Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8})
			skipWithoutVectors(t, r)
			d := testDecoder(r)
			require.True(t, d.gaussOn(), "the vector scoring is installed (amd64, arm64 or armv7 with NEON, the en-us model)")
			want := 4
			if !narrow && runtime.GOARCH == "amd64" && cpu.X86.HasAVX {
				want = 8
			}
			require.Equal(t, want, d.gaussWidth(), "densities scored at a time")
			checked, vec := gaussChecked(), gaussVecFrames()
			for _, pcm := range gaussUtterances(t) {
				_, _, err := r.RecognizeVerdict(context.Background(), pcm)
				require.NoError(t, err)
			}
			assert.Greater(t, gaussChecked()-checked, int64(500), "frames scored both ways")
			assert.Greater(t, gaussVecFrames()-vec, int64(500), "frames scored by the vector code")
			assert.True(t, d.gaussOn(), "no frame scored otherwise than pocketsphinx scores it")
		})
	}
}

// TestGaussDecidesAsPocketsphinx: the recogniser hears the same sentences
// with the same scores and verdicts whether the vector scoring or
// pocketsphinx's own scores the frames.
func TestGaussDecidesAsPocketsphinx(t *testing.T) {
	utts := gaussUtterances(t)
	skipWithoutVectors(t, newTestRecognizer(t, Config{}))
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
	want := make([][]audio.Hypothesis, len(utts))
	setGaussOff(true)
	r := newTestRecognizer(t, Config{})
	skipWithoutVectors(t, r)
	for i, pcm := range utts {
		var err error
		want[i], err = r.Recognize(context.Background(), pcm)
		require.NoError(t, err)
	}
	setGaussOff(false)
	gaussTripWarned.Store(false)
	logs := &recordedLogs{}
	r = newTestRecognizer(t, Config{Log: slog.New(logs)})
	d := testDecoder(r)
	require.True(t, d.gaussOn())
	setGaussCorrupt(true)
	defer setGaussCorrupt(false)
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
	assert.False(t, d.gaussOn(), "turned off by the first check")
	assert.Equal(t, 1, logs.count(slog.LevelWarn, "differed from pocketsphinx's on a checked frame"), "the recogniser says so once")
}
