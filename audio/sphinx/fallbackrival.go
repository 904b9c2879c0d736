//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
)

// The fallback's transcript is a forced decode too: the domain language
// model has no way through the utterance but its own words, so speech
// the grammar refused ("tell me the time", where the grammar's garbage
// path won) can come out as a command it does not mean ("delete that
// timer"), which the intent engines then parse surely. Such a transcript
// is seldom alone: the search's next best paths say something else
// ("delete the time", "delete that time"), nearly as well. A transcript
// said is usually far ahead of every path of another meaning. So before
// a claim is acted on, the search's n-best list is read (the lattice is
// built only then: most utterances the fallback hears are not claimed),
// each transcript given its meaning by the intent engines, and the
// claim acted on only when the best transcript of another meaning (an
// intent guessed, another intent or other slots, or none) scores at
// least the margin per frame under the claimed one.

// DefaultFallbackRivalMargin is the fallback's rival margin where it is
// on (Fallback.RivalMargin; per frame, the decoder's log units).
const DefaultFallbackRivalMargin = 1.0

// DefaultFallbackRivals is how many transcripts of the fallback's n-best
// list the rival check reads.
const DefaultFallbackRivals = 10

// transcriptRival reads the last search's n-best list (the fallback's)
// and returns the best transcript whose meaning is not claim's, with how
// much better per frame (over frames) the best transcript scored; where
// the list holds none, the margin is the best's over the list's last
// (a rival would score under it) and the text "".
func (r *Recognizer) transcriptRival(ctx context.Context, d *decoder, claim Meaning, knows func(string) bool, frames int) (string, float64, error) {
	want := meaningKey(claim.Intent, claim.Slots, knows)
	hyps := d.nbest(r.cfg.Fallback.Rivals, nil)
	if len(hyps) == 0 {
		return "", MaxRivalMargin, nil
	}
	best, last := hyps[0].score, hyps[0].score
	seen := map[string]bool{}
	for _, h := range hyps {
		text := cleanTranscript(h.text)
		if seen[text] {
			continue
		}
		seen[text] = true
		last = h.score
		m, err := r.cfg.Understand(ctx, text)
		if err != nil {
			return "", 0, fmt.Errorf("understanding the transcript %q: %w", text, err)
		}
		// A guess is another meaning than a parse: the engines are not
		// sure of it.
		if m.Parsed && meaningKey(m.Intent, m.Slots, knows) == want {
			continue
		}
		return text, float64(best-h.score) / float64(max(frames, 1)), nil
	}
	if len(seen) < 2 {
		return "", MaxRivalMargin, nil
	}
	return "", float64(best-last) / float64(max(frames, 1)), nil
}
