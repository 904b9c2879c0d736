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
	words, probs, err := openWordList(n)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(words))
	for i, w := range words {
		out[w] = probs[i]
	}
	return out, nil
}

// openWordList reads the first n (at most) lines of the open words, in
// their order, each a word and its relative frequency.
func openWordList(n int) (words []string, probs []float64, err error) {
	for i, line := range strings.Split(strings.TrimSpace(openWords), "\n") {
		if len(words) == n {
			break
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, nil, fmt.Errorf("open words, line %d: want a word and its log10 probability", i+1)
		}
		lp, err := strconv.ParseFloat(f[1], 64)
		if err != nil || lp > 0 {
			return nil, nil, fmt.Errorf("open words, line %d: log10 probability %q", i+1, f[1])
		}
		words = append(words, f[0])
		probs = append(probs, math.Pow(10, lp))
	}
	return words, probs, nil
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
		for _, h := range d.nbest(r.cfg.NBest+2, nil) {
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

// Meaning is what the robot's intent engines make of a text
// (Config.Understand).
type Meaning struct {
	// Intent names the intent that claims the text ("skill:intent"), ""
	// when none does.
	Intent string
	// Confidence is the claim's, in [0, 1].
	Confidence float64
	// Parsed is true when the claim is a sure parse of the words against
	// a skill's sentences (the template or keyword engines' high band),
	// not a guess of the generalising tier.
	Parsed bool
	// Slots are the slots the claim binds, each by its name to the
	// words it took.
	Slots map[string]string
	// Generation identifies what the intent engines knew when they
	// answered (intent.Stack.Generation): answers of one generation
	// agree, and a new one makes remembered meanings stale. Zero where
	// the engines do not say, and then remembered meanings are kept.
	Generation uint64
	// Context names the session contexts that were live when the engines
	// answered (a follow-up is claimed only while its context is live,
	// CTX-11): answers in another Context may differ, so remembered
	// meanings are those of one Context. "" when none was live.
	Context string
}

// The verifying search's rules (Recognizer.check), chosen on the tuning
// set (docs/hearing.md).
const (
	// agreedMinConfidence is the confidence floor of a grammar sentence
	// the language model transcribed in the same words.
	agreedMinConfidence = 0.5
	// maxUnexplainedWords is how many words of a transcript no intent
	// claims may be missing from the grammar's sentence before the
	// sentence is dropped: the speech said more, or other, than the
	// sentence it was forced onto.
	maxUnexplainedWords = 3
	// sureClaim is the least confidence of a claim on the transcript that
	// overrules the grammar's sentence when the two mean different
	// things.
	sureClaim = 0.99
)

// transcript is the verifying language model's transcript of an
// utterance, with its confidence and coverage (as the grammar's sentence
// has them).
type transcript struct {
	text        string
	conf, cover float64
}

// transcribe decodes pcm with the verifying language model.
func (r *Recognizer) transcribe(ctx context.Context, d *decoder, pcm []int16) (transcript, error) {
	best, err := d.search(ctx, verifyName, pcm)
	if err != nil {
		return transcript{}, err
	}
	t := transcript{text: cleanTranscript(best.text)}
	if t.text != "" {
		segs := d.align()
		_, t.conf = confidence(segs)
		t.cover = coverage(segs, pcm)
	}
	return t, nil
}

// verdict is what the verifying search makes of the grammar's sentence.
type verdict int

const (
	takeSentence verdict = iota
	takeTranscript
	dropBoth
)

// check compares the grammar's sentence (which passed the floors) with
// the language model's transcript of the same speech. The sentence is
// taken when the two have the same words or the same intent, or when no
// intent claims the transcript and it holds few words the sentence lacks.
// When they mean different things, the transcript is taken if an intent
// claims it surely (sureClaim) and it passes the floors itself — it may
// be a wording the bounded grammar does not hold, forced onto another
// command — and otherwise neither is: the robot asks. Speech no skill
// knows, forced onto a sentence, is transcribed in other words that
// nothing claims.
func (r *Recognizer) check(ctx context.Context, sentence string, t transcript) (verdict, error) {
	if t.text == sentence {
		return takeSentence, nil
	}
	var tm, sm Meaning
	if r.cfg.Understand != nil {
		var err error
		if tm, err = r.cfg.Understand(ctx, t.text); err != nil {
			return dropBoth, fmt.Errorf("understanding the transcript %q: %w", t.text, err)
		}
	}
	if tm.Intent == "" {
		extra := unexplained(t.text, sentence)
		r.log.Debug("verified: the transcript means nothing", "text", sentence, "transcript", t.text, "unexplained_words", extra)
		if extra > maxUnexplainedWords {
			return dropBoth, nil
		}
		return takeSentence, nil
	}
	sm, err := r.cfg.Understand(ctx, sentence)
	if err != nil {
		return dropBoth, fmt.Errorf("understanding the sentence %q: %w", sentence, err)
	}
	r.log.Debug("verified: meanings", "text", sentence, "intent", sm.Intent, "transcript", t.text,
		"transcript_intent", tm.Intent, "transcript_claim", tm.Confidence, "transcript_confidence", t.conf, "transcript_coverage", t.cover)
	switch {
	case sm.Intent == tm.Intent:
		return takeSentence, nil
	case tm.Confidence >= sureClaim && t.conf >= r.cfg.MinConfidence && t.cover >= r.cfg.MinCoverage:
		return takeTranscript, nil
	}
	return dropBoth, nil
}

// unexplained counts the words of transcript that sentence lacks.
func unexplained(transcript, sentence string) int {
	has := map[string]bool{}
	for _, w := range strings.Fields(sentence) {
		has[w] = true
	}
	n := 0
	for _, w := range strings.Fields(transcript) {
		if !has[w] {
			n++
		}
	}
	return n
}
