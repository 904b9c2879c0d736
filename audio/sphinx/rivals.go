//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
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

// rival finds, among the last search's n-best sentences of the grammar
// g, the best one of another meaning than best's, and returns it with
// the margin: how much better per frame (over frames) the best sentence
// of best's meaning scored than it. ok is false when the list holds no
// sentence of another meaning: nothing the search reached competes.
func (r *Recognizer) rival(ctx context.Context, d *decoder, g search, best string, frames int) (text string, margin float64, ok bool, err error) {
	keys := map[string]string{}
	key := func(s string) (string, error) {
		if k, ok := keys[s]; ok {
			return k, nil
		}
		m, err := r.cfg.Understand(ctx, cleanTranscript(s))
		if err != nil {
			return "", fmt.Errorf("understanding the sentence %q: %w", s, err)
		}
		keys[s] = meaningKey(m.Intent, m.Slots)
		return keys[s], nil
	}
	want, err := key(best)
	if err != nil {
		return "", 0, false, err
	}
	var mine, theirs *result
	for _, h := range d.nbest(r.cfg.Rivals) {
		if !g.accepts(h.text) {
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
