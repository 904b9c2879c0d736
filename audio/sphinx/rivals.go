//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
	"sync"
)

// Rivals: the grammar's search forces speech it does not hold onto its
// nearest sentence, and that sentence can fit well frame by frame while a
// sentence of another meaning fits nearly as well ("what is the time"
// heard as "what is the volume", "hi there" as "volume higher"). The
// floors rate the sentence alone; the rival check compares it with the
// best sentence of another meaning the search also reached, and the
// sentence is acted on only when its meaning wins by a margin.
const (
	// MaxRivalMargin bounds Config.RivalMargin (per frame, in the
	// decoder's log units).
	MaxRivalMargin = 1000
	// DefaultRivals is how many sentences of the search's n-best list
	// the rival check reads when Config.Rivals is 0.
	DefaultRivals = 10
	// MaxRivals bounds Config.Rivals.
	MaxRivals = 50
)

// rival finds, among the n-best sentences hyps of the grammar g, the best
// one of another meaning than best's, and returns it with the margin:
// how much better per frame (over frames) the best sentence of best's
// meaning scored than it. ok is false when the list holds no sentence of
// another meaning: nothing the search reached competes.
func (r *Recognizer) rival(ctx context.Context, hyps []result, g search, best string, frames int) (text string, margin float64, ok bool, err error) {
	key := func(s string) (string, error) {
		return g.meanings.key(ctx, r.cfg.Understand, cleanTranscript(s), g.knows)
	}
	// best's meaning is asked afresh, so that the cache learns of a new
	// generation of the intents, or of other live contexts, before it
	// answers for the others.
	want, err := g.meanings.fresh(ctx, r.cfg.Understand, cleanTranscript(best), g.knows)
	if err != nil {
		return "", 0, false, err
	}
	var mine, theirs *result
	for _, h := range hyps {
		if g.viaGarbage(h.text) || !g.accepts(h.text) {
			continue
		}
		k, err := key(h.text)
		if err != nil {
			return "", 0, false, err
		}
		switch {
		case k == want && mine == nil:
			mine = &h
		case k != want && theirs == nil:
			theirs = &h
		}
		if mine != nil && theirs != nil {
			break
		}
	}
	if theirs == nil {
		return "", 0, false, nil
	}
	if mine == nil {
		// The lattice's paths rank another meaning above every sentence
		// of best's: best wins by nothing.
		return theirs.text, 0, true, nil
	}
	return theirs.text, float64(mine.score-theirs.score) / float64(max(frames, 1)), true, nil
}

// nbestOnce is the last search's n-best list, walked once for all that
// read it (the hypotheses returned, the rival check): building the
// utterance's lattice can cost more than the decoding itself.
type nbestOnce struct {
	d     *decoder
	depth int
	// skip leaves out a path no reader may take (the garbage path's),
	// so that it does not take the place of a sentence in the list.
	skip func(string) bool
	list []result
	done bool
}

// first returns up to n of the list's best hypotheses (n ≤ depth).
func (o *nbestOnce) first(n int) []result {
	if !o.done {
		o.list, o.done = o.d.nbest(o.depth, o.skip), true
	}
	return o.list[:min(n, len(o.list))]
}

// maxMeanings bounds a meaningCache; past it the cache starts again.
const maxMeanings = 4096

// meaningCache remembers the meaning keys of a grammar's sentences: the
// rival check reads the same sentences' meanings utterance after
// utterance. It lives as long as its grammar, but the intent engines may
// learn again meanwhile (a skill registered before the grammar is made
// again, or a rebuild that failed): the cache holds the answers of one
// generation of the engines (Meaning.Generation, which only grows) and
// starts again when an answer comes from a newer one. A claim also
// depends on the session's live contexts (Meaning.Context): the cache
// holds the answers of one set of them and starts again when an answer
// comes in another, and the rival check asks its best sentence afresh
// first, so each utterance's answers are of the contexts live then. A
// nil cache remembers nothing. It is safe for concurrent use.
type meaningCache struct {
	mu         sync.Mutex
	keys       map[string]string
	generation uint64
	context    string
}

// key returns the meaning key of sentence, asking understand when the
// cache does not hold it.
func (c *meaningCache) key(ctx context.Context, understand func(context.Context, string) (Meaning, error), sentence string, knows func(string) bool) (string, error) {
	if c != nil {
		c.mu.Lock()
		k, ok := c.keys[sentence]
		c.mu.Unlock()
		if ok {
			return k, nil
		}
	}
	return c.fresh(ctx, understand, sentence, knows)
}

// fresh returns the meaning key of sentence from understand, whatever
// the cache holds, and remembers it; an answer of a newer generation
// than the cache's, or of other live contexts, empties the cache first;
// one of an older generation is not kept.
func (c *meaningCache) fresh(ctx context.Context, understand func(context.Context, string) (Meaning, error), sentence string, knows func(string) bool) (string, error) {
	m, err := understand(ctx, sentence)
	if err != nil {
		return "", fmt.Errorf("understanding the sentence %q: %w", sentence, err)
	}
	k := meaningKey(m.Intent, m.Slots, knows)
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if m.Generation < c.generation {
			// Asked before the engines learnt what the cache holds.
			return k, nil
		}
		if c.keys == nil || len(c.keys) >= maxMeanings || m.Generation != c.generation || m.Context != c.context {
			c.keys = map[string]string{}
			c.generation, c.context = m.Generation, m.Context
		}
		c.keys[sentence] = k
	}
	return k, nil
}
