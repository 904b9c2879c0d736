//go:build sphinx

package sphinx

import (
	"context"
	"sync"
	"testing"

	"github.com/openjibo/jibod/audio"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListNodesAreKeptAsSpares: the grammar search's active
// lists go through glist.go's glist_free, which keeps their nodes, and
// every utterance decodes to the same sentences, scores and verdicts as
// with sphinxbase's malloc and free: over noise, with the fallback and
// the garbage path, and with decoders searching side by side, each
// utterance's frames on whichever thread runs it.
func TestListNodesAreKeptAsSpares(t *testing.T) {
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
		{"garbage path, two decoders", Config{Grammar: lm, Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8,
			Garbage: testGarbage(t, 250), Decoders: 2, ResetNoise: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(off bool) ([][]audio.Hypothesis, []audio.Verdict) {
				setSpareNodesOff(off)
				defer setSpareNodesOff(false)
				r := newTestRecognizer(t, tt.cfg)
				hs := make([][]audio.Hypothesis, len(utterances))
				vs := make([]audio.Verdict, len(utterances))
				errs := make([]error, len(utterances))
				var wg sync.WaitGroup
				for i, pcm := range utterances {
					recognize := func() { hs[i], vs[i], errs[i] = r.RecognizeVerdict(context.Background(), pcm) }
					if tt.cfg.Decoders > 1 {
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
			mallocH, mallocV := run(true)
			h, v := run(false)
			assert.True(t, glistReused(), "the active lists' nodes were kept")
			assert.Equal(t, mallocH, h)
			assert.Equal(t, mallocV, v)
		})
	}
}
