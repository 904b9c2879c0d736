//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
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
				return hearEach(t, newTestRecognizer(t, tt.cfg), tt.cfg.Decoders, utterances)
			}
			mallocH, mallocV := run(true)
			h, v := run(false)
			assert.Equal(t, mallocH, h)
			assert.Equal(t, mallocV, v)
		})
	}
}

// TestSpareNodesStreamedDecideAsMalloc: utterances fed in 20 ms pieces,
// the goroutine yielding between pieces and locked to no thread, so
// that one utterance's search runs on several threads, decode to the
// same sentences and scores with the spare nodes as with malloc's, two
// decoders side by side, every node back in its pool after each.
func TestSpareNodesStreamedDecideAsMalloc(t *testing.T) {
	utterances := [][][]int16{
		{
			noisy(speak(t, "tell me the time"), 300, 1),
			overBabble(t, speak(t, "set a timer for five minutes"), 10, 2),
		},
		{
			overBabble(t, speak(t, "what time is it"), 5, 1),
			noisy(speak(t, "she told me a story about her grandmother"), 900, 3),
		},
	}
	cfg := Config{Grammar: fallbackLM(t), Understand: timeToo, MinConfidence: 0.8, MinCoverage: 0.8,
		Garbage: testGarbage(t, 250), Decoders: len(utterances), ResetNoise: true}
	const piece = audio.SampleRate / 50
	run := func(off bool) [][]result {
		setSpareNodesOff(off)
		defer setSpareNodesOff(false)
		r := newTestRecognizer(t, cfg)
		r.mu.Lock()
		g := r.grammar
		r.mu.Unlock()
		got := make([][]result, len(utterances))
		errs := make([]error, len(utterances))
		var wg sync.WaitGroup
		for i, pcms := range utterances {
			d, err := r.take(context.Background())
			require.NoError(t, err)
			d, err = r.apply(d, g)
			require.NoError(t, err)
			wg.Go(func() {
				defer r.give(d)
				for _, pcm := range pcms {
					stream := func() error {
						if err := d.useSearch(searchName); err != nil {
							return err
						}
						if err := d.startStream(); err != nil {
							return err
						}
						if err := d.start(); err != nil {
							return err
						}
						for len(pcm) > 0 {
							n := min(piece, len(pcm))
							if err := d.processPart(pcm[:n]); err != nil {
								return err
							}
							pcm = pcm[n:]
							runtime.Gosched()
						}
						return d.end()
					}
					if errs[i] = stream(); errs[i] != nil {
						return
					}
					got[i] = append(got[i], d.hyp())
					if !off && d.spareNodes() != d.spareBound() {
						errs[i] = fmt.Errorf("%d of %d nodes home after %q", d.spareNodes(), d.spareBound(), d.hyp().text)
						return
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		return got
	}
	mallocs := run(true)
	got := run(false)
	assert.Equal(t, mallocs, got)
	heard := 0
	for _, rs := range got {
		for _, r := range rs {
			if r.text != "" {
				heard++
			}
		}
	}
	assert.Positive(t, heard, "some sentence heard, not only empty hypotheses compared")
}

// TestSparePoolOutlivedByItsNode: a pool freed with a node still in a
// list stays the node's home, so that freeing the list later returns
// the node to it rather than handing an address inside the pool's
// mapping to free (which aborts the process), and is unmapped as that
// last node comes back.
func TestSparePoolOutlivedByItsNode(t *testing.T) {
	p, registered := newSparePool()
	require.True(t, registered)
	spares := sparePoolNodes(p)
	n := takeSpareNode(p)
	require.Equal(t, spares-1, sparePoolNodes(p), "the node came from the pool")
	freed, stranded := sparePoolsFreed(), spareNodesStranded()
	freeSparePool(p)
	assert.Equal(t, stranded+1, spareNodesStranded(), "a node out as the pool was freed")
	assert.Equal(t, freed, sparePoolsFreed(), "left mapped while its node is out")
	giveSpareNode(n)
	assert.Equal(t, freed+1, sparePoolsFreed(), "unmapped as its last node came back")
}

// TestSpareNodeFreedTwiceAborts: a node freed twice stops the process
// rather than going on the pool's free stack twice, to be handed out to
// two lists. The double free runs in a child process.
func TestSpareNodeFreedTwiceAborts(t *testing.T) {
	if os.Getenv("JIBOD_TEST_SPARE_FREED_TWICE") == "1" {
		p, _ := newSparePool()
		n := takeSpareNode(p)
		giveSpareNode(n)
		giveSpareNode(n)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpareNodeFreedTwiceAborts$")
	cmd.Env = append(os.Environ(), "JIBOD_TEST_SPARE_FREED_TWICE=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the double free went unnoticed")
	// Go's runtime reports the C abort's signal and exits.
	assert.Contains(t, string(out), "SIGABRT", "stopped by abort")
}
