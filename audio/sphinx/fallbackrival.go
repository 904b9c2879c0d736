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
// ("delete the time", "delete that time"), nearly as well. So before a
// claim is acted on, the search's n-best list is read (the lattice is
// built only then, or once for the fallback's n-best where that is on:
// most utterances the fallback hears are not claimed), each transcript
// given its meaning by the intent engines, and the claim acted on only
// when the best transcript of another meaning (an intent guessed,
// another intent or other slots, or none) scores at least the margin per
// frame under the list's first. Whether a margin parts right transcripts
// from wrong ones is for measuring (docs/config.md).

// nextTranscripts returns up to n distinct transcripts of the n-best
// list hyps other than best (already heard), in order, with how much
// lower each scored per frame than the list's first: the lattice's
// scores are on another scale than the search's best path's.
func nextTranscripts(hyps []result, best string, n, frames int) ([]string, []float64) {
	if len(hyps) == 0 || n <= 0 {
		return nil, nil
	}
	var texts []string
	var margins []float64
	seen := map[string]bool{best: true}
	for _, h := range hyps {
		if len(texts) == n {
			break
		}
		t := cleanTranscript(h.text)
		if t != "" && !seen[t] {
			seen[t] = true
			texts = append(texts, t)
			margins = append(margins, float64(hyps[0].score-h.score)/float64(max(frames, 1)))
		}
	}
	return texts, margins
}

// transcriptRival reads the fallback's n-best list hyps and returns the
// best transcript whose meaning is not claim's, with how much better per
// frame (over frames) the list's first scored; where the list holds none,
// the margin is the first's over the list's last (a rival would score
// under it) and the text "". measured is false where the list holds
// fewer than two distinct transcripts: there is nothing to measure.
func (r *Recognizer) transcriptRival(ctx context.Context, hyps []result, claim Meaning, knows func(string) bool, frames int) (rival string, margin float64, measured bool, err error) {
	want := meaningKey(claim.Intent, claim.Slots, knows)
	if len(hyps) == 0 {
		return "", 0, false, nil
	}
	best, last := hyps[0].score, hyps[0].score
	seen := map[string]bool{}
	for _, h := range hyps {
		text := cleanTranscript(h.text)
		if text == "" || seen[text] {
			continue
		}
		seen[text] = true
		last = h.score
		m, err := r.cfg.Understand(ctx, text)
		if err != nil {
			return "", 0, false, fmt.Errorf("understanding the transcript %q: %w", text, err)
		}
		// A guess is another meaning than a parse: the engines are not
		// sure of it.
		if m.Parsed && meaningKey(m.Intent, m.Slots, knows) == want {
			continue
		}
		return text, float64(best-h.score) / float64(max(frames, 1)), true, nil
	}
	if len(seen) < 2 {
		return "", 0, false, nil
	}
	return "", float64(best-last) / float64(max(frames, 1)), true, nil
}
