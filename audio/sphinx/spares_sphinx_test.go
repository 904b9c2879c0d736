//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/openjibo/jibod/audio"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpareNodesStayWithTheirDecoder: the grammar search's list nodes
// come from the pool of the decoder that searched, which holds no more
// than its bound however many utterances go through it, all of them
// home after each, and which the decoder frees as it closes.
func TestSpareNodesStayWithTheirDecoder(t *testing.T) {
	utterances := [][]int16{
		overBabble(t, speak(t, "tell me the time"), 5, 1),
		overBabble(t, speak(t, "set a timer for five minutes"), 10, 1),
		noisy(speak(t, "she told me a story about her grandmother"), 900, 3),
	}
	for _, bound := range []int{maxSpareNodes, 64} {
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			setSpareBound(bound)
			defer setSpareBound(maxSpareNodes)
			r, err := New(context.Background(), Config{Grammar: fallbackLM(t), Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8,
				Garbage: testGarbage(t, 250), ResetNoise: true})
			require.NoError(t, err)
			for range 3 {
				for _, pcm := range utterances {
					_, _, err := r.RecognizeVerdict(context.Background(), pcm)
					require.NoError(t, err)
				}
				d := <-r.pool
				assert.Equal(t, bound, d.spareBound())
				assert.Equal(t, bound, d.spareNodes(), "every node home")
				r.pool <- d
			}
			assert.True(t, spareNodesReused(), "the lists' nodes went back to the decoder's pool")
			freed, stranded := sparePoolsFreed(), spareNodesStranded()
			require.NoError(t, r.Close())
			assert.Positive(t, sparePoolsFreed()-freed, "the pool freed with the decoder")
			assert.Equal(t, stranded, spareNodesStranded(), "no node out as it was freed")
		})
	}
}

// TestSpareNodesDecideAsMalloc: every utterance decodes to the same
// sentences, scores and verdicts with the spare nodes as with
// sphinxbase's malloc and free: over noise, with the fallback and the
// garbage path, and with decoders searching side by side, each
// utterance's frames on whichever thread runs it.
func TestSpareNodesDecideAsMalloc(t *testing.T) {
	lm := fallbackLM(t)
	utterances := [][]int16{
		noisy(speak(t, "tell me the time"), 300, 1),
		overBabble(t, speak(t, "what time is it"), 5, 1),
		noisy(speak(t, "she told me a story about her grandmother"), 900, 3),
		overBabble(t, speak(t, "set a timer for five minutes"), 10, 2),
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
			assert.Equal(t, mallocH, h)
			assert.Equal(t, mallocV, v)
		})
	}
}
