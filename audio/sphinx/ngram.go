//go:build sphinx

package sphinx

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio"
)

// openWords are common words of everyday English with their unigram
// log10 probability in Debian's en-us language model
// (scripts/gen-open-words.sh): the open words of the domain language
// model, so that speech no skill knows has words of its own to be heard
// as.
//
//go:embed lm/open-words.txt
var openWords string

// OpenWords returns the first n (at most) open words of the domain
// language model, the most frequent first, with their relative frequency.
func OpenWords(n int) (map[string]float64, error) {
	out := map[string]float64{}
	for i, line := range strings.Split(strings.TrimSpace(openWords), "\n") {
		if len(out) == n {
			break
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("open words, line %d: want a word and its log10 probability", i+1)
		}
		lp, err := strconv.ParseFloat(f[1], 64)
		if err != nil || lp > 0 {
			return nil, fmt.Errorf("open words, line %d: log10 probability %q", i+1, f[1])
		}
		out[f[0]] = math.Pow(10, lp)
	}
	return out, nil
}

// transcribed turns the language model search's best path into
// hypotheses: its words without fillers, when the floors take them.
func (r *Recognizer) transcribed(ctx context.Context, d *decoder, best result, pcm []int16) ([]audio.Hypothesis, error) {
	text := cleanTranscript(best.text)
	if text == "" {
		return nil, nil
	}
	segs := d.align()
	perFrame, conf := confidence(segs)
	cover := coverage(segs, pcm)
	r.log.Debug("transcribed", "text", text, "score_per_frame", perFrame, "confidence", conf, "coverage", cover)
	var texts []string
	var scores []int32
	texts, scores = append(texts, text), append(scores, best.score)
	if r.cfg.NBest > 1 {
		seen := map[string]bool{text: true}
		for _, h := range d.nbest(r.cfg.NBest + 2) {
			t := cleanTranscript(h.text)
			if len(texts) == r.cfg.NBest {
				break
			}
			if t != "" && !seen[t] {
				seen[t] = true
				texts, scores = append(texts, t), append(scores, h.score)
			}
		}
	}
	if cover < r.cfg.MinCoverage || conf < r.cfg.MinConfidence {
		r.log.Debug("rejected: the transcript does not explain the speech", "text", text, "confidence", conf, "coverage", cover)
		return nil, nil
	}
	if r.cfg.PhoneLoop != "" {
		delta, err := d.phoneLoopDelta(ctx, segs, pcm)
		if err != nil {
			return nil, err
		}
		if delta < -r.cfg.PhoneLoopMargin {
			r.log.Debug("rejected: free phones explain the speech much better than the transcript", "text", text, "delta_per_frame", delta)
			return nil, nil
		}
	}
	out := make([]audio.Hypothesis, len(texts))
	for i, t := range texts {
		c := conf
		if i > 0 {
			c = conf * min(1, d.ratio(scores[i]-scores[0]))
		}
		out[i] = audio.Hypothesis{Text: t, Confidence: c}
	}
	return out, nil
}

// DefaultVerifyMargin is Config.VerifyMargin's default.
const DefaultVerifyMargin = 30

// verifyAbove is the confidence from which the grammar's sentence is
// taken without the verifying search: on the tuning set's files looked
// at, no sentence forced onto speech the grammar does not hold reached
// it, while right ones the model transcribes otherwise did ("what do you
// like to do" as "what do you like the do"); and the search is saved.
const verifyAbove = 0.99

// verified decodes pcm again with the verifying language model and
// reports whether the grammar's sentence (text, aligned as segs) explains
// the speech about as well as the model's transcript: a transcript of the
// same words is; otherwise the sentence may score at most VerifyMargin
// per frame under it acoustically, and must mean what the transcript
// means (Config.Agree). Speech the grammar does not hold, forced onto its
// nearest sentence, fits that sentence much worse than the words the
// model finds for it; a wording the grammar lacks, forced onto another
// command's sentence, is transcribed as said and means something else.
func (r *Recognizer) verified(ctx context.Context, d *decoder, text string, segs []segment, pcm []int16) (bool, error) {
	if len(segs) == 0 {
		return true, nil
	}
	var g int64
	for _, s := range segs {
		g += int64(s.ascr)
	}
	best, err := d.search(ctx, verifyName, pcm)
	if err != nil {
		return false, err
	}
	transcript := cleanTranscript(best.text)
	var m int64
	for _, s := range d.align() {
		m += int64(s.ascr)
	}
	frames := segs[len(segs)-1].end + 1
	delta := float64(g-m) / float64(max(frames, 1))
	margin := r.cfg.VerifyMargin
	if margin == 0 {
		margin = DefaultVerifyMargin
	}
	same := transcript == cleanTranscript(text)
	r.log.Debug("verified", "text", text, "transcript", transcript, "delta_per_frame", delta, "same", same)
	switch {
	case same:
		return true, nil
	case delta < -margin:
		return false, nil
	case r.cfg.Agree == nil:
		return true, nil
	}
	agree, err := r.cfg.Agree(ctx, cleanTranscript(text), transcript)
	if err != nil {
		return false, fmt.Errorf("verifying %q against %q: %w", text, transcript, err)
	}
	r.log.Debug("verified: meaning", "text", text, "transcript", transcript, "agree", agree)
	return agree, nil
}
