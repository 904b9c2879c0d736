//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
)

// Fallback configures what happens where the grammar's sentence is
// refused, with a ModelFallback language model (docs/hearing.md): the
// model transcribes the utterance's features, and the transcript is acted
// on only when its own alignment passes these floors and the intent
// engines claim it, scoring at least Claim: as a sure parse
// (Meaning.Parsed) of an intent without slots; as a claim that binds
// slots, when the intent's own sentences, searched again, hear the same
// values (SlotConfidence, KeepSlots; a guess of the generalising tier
// only with SlotGuesses); or, where the garbage path refused a sentence
// of the grammar for a few filler words after it, as that sentence's
// intent, a guess too when its words beyond the sentence's are the
// intent's own (AgreedTail). Every field is taken as it is: a floor of 0
// is no floor. DefaultFallback is the choice made on the tuning sets
// (docs/hearing.md).
type Fallback struct {
	// Claim is the least score of the parse that claims the transcript:
	// its confidence times the transcript's acoustic confidence, as the
	// pipeline ranks it.
	Claim float64
	// MinConfidence and MinCoverage are the transcript's own floors, as
	// Config.MinConfidence and MinCoverage are the sentence's.
	MinConfidence, MinCoverage float64
	// Beam (and the phone beam) and WordBeam (and the last phone's beams)
	// are the search's beams, MaxHMMs its most active HMMs a frame.
	Beam, WordBeam float64
	MaxHMMs        int
	// LanguageWeight and InsertionPenalty are the search's language
	// weight and word insertion penalty (a probability, as pocketsphinx's
	// -wip); 0 keeps the decoder's (-lw, -wip).
	LanguageWeight, InsertionPenalty float64
	// NBest is how many distinct transcripts the fallback reads, best
	// first (the search's lattice); 0 or 1, the best alone.
	NBest int
	// SlotConfidence is the least confidence of the slots' words in the
	// sentence the claimed intent's own search found, where the claim
	// binds slots; KeepSlots leaves such a claim unacted on, without
	// that search.
	SlotConfidence float64
	KeepSlots      bool
	// SlotGuesses sends a guess of the generalising tier that binds
	// slots to the same check as a parse: the claimed intent's own
	// sentence must then parse surely.
	SlotGuesses bool
	// GarbageConfidence, where above MinConfidence, is the transcript's
	// confidence floor where the grammar's search ended in its garbage
	// path (Config.Garbage): the grammar's own search then judged the
	// speech none of its sentences, and a transcript that overturns that
	// needs surer acoustic support than one of a sentence the floors
	// refused.
	GarbageConfidence float64
	// AgreedTail, above 0, is the most filler words after a sentence of
	// the grammar with which the garbage path's refusal is overturned by
	// agreement: the transcript, over the floors that apply after the
	// garbage path, claimed without slots as the intent the sentence is
	// parsed surely as (a guess only when every word it has beyond the
	// sentence's is one of the intent's own sentences' words); the
	// sentence is then heard, after the rival check where there is one.
	// 0 never overturns it so.
	AgreedTail int
	// RivalMargin, above 0, acts on a transcript only when the best
	// transcript of another meaning in the search's n-best list (Rivals
	// deep) scores at least RivalMargin per frame under it
	// (fallbackrival.go); a negative margin measures without refusing
	// (Verdict.TranscriptRival), 0 is no check.
	RivalMargin float64
	Rivals      int
	// MaxAudio is the longest utterance (as decoded, trimmed) the
	// fallback transcribes: a request to a skill is short, and most of
	// what the grammar refuses, and most of its cost, is longer speech
	// no skill takes.
	MaxAudio time.Duration
}

// MaxAgreedTail bounds Fallback.AgreedTail.
const MaxAgreedTail = 20

// DefaultFallback is the fallback's choice, made on the espeak-ng tuning
// sets (docs/hearing.md).
var DefaultFallback = Fallback{Claim: 0.5, MinConfidence: 0.5, MinCoverage: 0.8, Beam: 1e-40, WordBeam: 1e-25, MaxHMMs: 10000,
	SlotConfidence: 0.5, GarbageConfidence: 0.85, AgreedTail: 2, Rivals: DefaultRivals, MaxAudio: 3 * time.Second}

// Check says what is wrong with f, if anything.
func (f Fallback) Check() error {
	in01 := func(v float64) bool { return v >= 0 && v <= 1 }
	switch {
	case !in01(f.Claim) || !in01(f.MinConfidence) || !in01(f.MinCoverage) || !in01(f.SlotConfidence) || !in01(f.GarbageConfidence):
		return fmt.Errorf("fallback: claim %g, confidence %g, coverage %g, slots' confidence %g, confidence after the garbage path %g not all in [0, 1]",
			f.Claim, f.MinConfidence, f.MinCoverage, f.SlotConfidence, f.GarbageConfidence)
	case !(f.Beam > 0 && f.Beam < 1) || !(f.WordBeam > 0 && f.WordBeam < 1) || math.IsNaN(f.Beam) || math.IsNaN(f.WordBeam):
		return fmt.Errorf("fallback: beams %g, %g not in (0, 1)", f.Beam, f.WordBeam)
	case f.MaxHMMs < 100 || f.MaxHMMs > 100_000:
		return fmt.Errorf("fallback: %d HMMs a frame not in 100..100000", f.MaxHMMs)
	case math.IsNaN(f.RivalMargin) || f.RivalMargin > MaxRivalMargin:
		return fmt.Errorf("fallback: rival margin %g over %d", f.RivalMargin, MaxRivalMargin)
	case f.RivalMargin != 0 && (f.Rivals < 2 || f.Rivals > MaxRivals):
		return fmt.Errorf("fallback: %d rivals not in 2..%d", f.Rivals, MaxRivals)
	case !(f.LanguageWeight >= 0 && f.LanguageWeight <= 100) || !(f.InsertionPenalty >= 0 && f.InsertionPenalty <= 1):
		return fmt.Errorf("fallback: language weight %g not in [0, 100] or insertion penalty %g not in [0, 1]", f.LanguageWeight, f.InsertionPenalty)
	case f.AgreedTail < 0 || f.AgreedTail > MaxAgreedTail:
		return fmt.Errorf("fallback: %d filler words after an agreed sentence not in 0..%d", f.AgreedTail, MaxAgreedTail)
	case f.NBest < 0 || f.NBest > MaxNBest:
		return fmt.Errorf("fallback: n-best %d not in 0..%d", f.NBest, MaxNBest)
	case f.MaxAudio <= 0 || f.MaxAudio > time.Duration(DefaultMaxSeconds)*time.Second:
		return fmt.Errorf("fallback: longest utterance %v not in (0, %d s]", f.MaxAudio, DefaultMaxSeconds)
	}
	return nil
}

// beams are f's beams as the decoder takes them.
func (f Fallback) beams() lmBeams {
	return lmBeams{beam: f.Beam, pbeam: f.Beam, wbeam: f.WordBeam, lpbeam: f.WordBeam, lponlybeam: f.WordBeam, maxhmmpf: f.MaxHMMs,
		lw: f.LanguageWeight, wip: f.InsertionPenalty}
}

// fallback is what is heard where the grammar's sentence was refused:
// the fallback language model's transcript of the same features, when
// its alignment passes the floors and the intent engines claim it as
// Fallback says; else nothing, and the robot asks as it would have. The features are not
// computed again, so the front end's noise estimate, which goes on to
// the next utterance, is as if the fallback had not run; pcm is the audio
// they were computed from (for the coverage).
func (r *Recognizer) fallback(ctx context.Context, d *decoder, g search, f *features, pcm []int16, v *audio.Verdict) ([]audio.Hypothesis, error) {
	fb := *r.cfg.Fallback
	if time.Duration(len(pcm))*time.Second/audio.SampleRate > fb.MaxAudio {
		v.Fallback = "too long"
		return nil, nil
	}
	best, err := d.searchFeatures(ctx, fallbackName, f)
	if err != nil {
		return nil, err
	}
	text := cleanTranscript(best.text)
	if text == "" {
		v.Fallback = "no transcript"
		return nil, nil
	}
	segs := d.align()
	_, conf := confidence(segs)
	cover := coverage(segs, pcm)
	v.Transcript, v.TranscriptConfidence, v.TranscriptCoverage = text, conf, cover
	v.TranscriptWords = wordConfidences(segs)
	minConf := fb.MinConfidence
	if v.Dropped == "garbage" {
		minConf = max(minConf, fb.GarbageConfidence)
	}
	// One n-best list for both readers: building the lattice can cost
	// more than the decoding itself.
	nbest := &nbestOnce{d: d}
	if fb.NBest > 1 {
		nbest.depth = fb.NBest + 2
	}
	if fb.RivalMargin != 0 {
		nbest.depth = max(nbest.depth, fb.Rivals)
	}
	if fb.NBest > 1 {
		v.Transcripts, v.TranscriptMargins = nextTranscripts(nbest.first(fb.NBest+2), text, fb.NBest-1, max(1, len(pcm)/floorFrame))
	}
	if conf < minConf || cover < fb.MinCoverage {
		v.Fallback = "floors"
		return nil, nil
	}
	m, err := r.cfg.Understand(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("understanding the transcript %q: %w", text, err)
	}
	score := m.Confidence * conf
	v.Claim, v.ClaimScore = m.Intent, score
	r.log.Debug("fallback", "text", text, "confidence", conf, "coverage", cover, "intent", m.Intent, "parsed", m.Parsed, "score", score)
	if m.Intent == "" {
		v.Fallback = "no claim"
		return nil, nil
	}
	sentence, err := r.agreed(ctx, g, v, m, conf)
	if err != nil {
		return nil, err
	}
	switch {
	case sentence != "":
	case !m.Parsed && !(fb.SlotGuesses && len(m.Slots) > 0):
		// The generalising tier reads intents into the junk words of a
		// transcript as readily as into a paraphrase (docs/hearing.md).
		v.Fallback = "guess"
		return nil, nil
	case score < fb.Claim:
		v.Fallback = "weak claim"
		return nil, nil
	case len(m.Slots) > 0:
		// The transcript's numbers and lengths are seldom the ones said
		// ("six" as "three", "minutes" as "me the"), and a wrong value is
		// a wrong action (docs/hearing.md): the intent's own sentences
		// say what its slots hold.
		return r.slotted(ctx, d, g, f, pcm, m, v)
	}
	if fb.RivalMargin != 0 {
		rival, margin, measured, err := r.transcriptRival(ctx, nbest.first(fb.Rivals), m, g.knows, len(pcm)/floorFrame)
		if err != nil {
			return nil, err
		}
		if measured {
			v.TranscriptRival, v.TranscriptRivalMargin = rival, &margin
		}
		if measured && fb.RivalMargin > 0 && margin < fb.RivalMargin {
			v.Fallback = "rival"
			return nil, nil
		}
	}
	if sentence != "" {
		v.Fallback = "agreed"
		return []audio.Hypothesis{{Text: sentence, Confidence: conf}}, nil
	}
	v.Fallback = "acted"
	return []audio.Hypothesis{{Text: text, Confidence: conf, Open: true}}, nil
}

// agreed is the grammar's sentence where the garbage path refused it
// for at most fb.AgreedTail filler words after it ("whats the date =they"
// for "what's the date today") and the transcript, claimed as claim at
// acoustic confidence conf, means what the sentence means: the intent
// engines parse the sentence surely as claim's intent, and both claims
// reach the fallback's claim floor. "" where they do not agree. The
// transcript is the same features decoded with another search, and
// alone it is often only a guess ("what the date day"); a sentence heard
// with a few words the grammar lacks after it is the case the two
// searches agree on. Agreement is no proof (both searches share the
// acoustic model, and can force the same wrong meaning), so the
// transcript must still pass the floors that apply after the garbage
// path, and a longer tail, speech going on beyond a sentence, is left
// refused.
//
// A guess agrees only when every word it has beyond the sentence's is
// one of the claimed intent's own sentences' words: the generalising
// tier passes over words it does not know, and a word said after a
// sentence can undo or change it ("cancel that timer, no" transcribed
// "cancel that timer know", "what time is it in london" as "what time is
// it eleven"). A claim that binds slots never agrees: the fallback's own
// check of slots (Recognizer.slotted, Fallback.KeepSlots and
// SlotGuesses) decides it.
func (r *Recognizer) agreed(ctx context.Context, g search, v *audio.Verdict, claim Meaning, conf float64) (string, error) {
	fb := r.cfg.Fallback
	if fb.AgreedTail <= 0 || v.Dropped != "garbage" || claim.Confidence*conf < fb.Claim || len(claim.Slots) > 0 {
		return "", nil
	}
	sentence, n := tailedSentence(v.Sentence)
	sentence = cleanTranscript(sentence)
	if n == 0 || n > fb.AgreedTail || sentence == "" || !g.accepts(sentence) {
		return "", nil
	}
	if !claim.Parsed && !onlyIntentWords(g, claim.Intent, sentence, v.Transcript) {
		return "", nil
	}
	m, err := r.cfg.Understand(ctx, sentence)
	if err != nil {
		return "", fmt.Errorf("understanding the sentence %q: %w", sentence, err)
	}
	if !m.Parsed || len(m.Slots) > 0 || m.Intent != claim.Intent || m.Confidence*conf < fb.Claim {
		return "", nil
	}
	r.log.Debug("fallback: the transcript agrees with the sentence before the filler words", "sentence", sentence, "transcript", v.Transcript, "intent", m.Intent)
	return sentence, nil
}

// onlyIntentWords reports whether every word of transcript that sentence
// lacks is a word of intent's own sentences; false where g cannot say
// what those are.
func onlyIntentWords(g search, intent, sentence, transcript string) bool {
	if g.intentWords == nil {
		return false
	}
	own, ok := g.intentWords(intent)
	if !ok {
		return false
	}
	said := strings.Fields(sentence)
	for _, w := range strings.Fields(cleanTranscript(transcript)) {
		if !slices.Contains(said, w) && !slices.Contains(own, w) {
			return false
		}
	}
	return true
}

// intentVocabulary is a grammar that gives the words of each intent's
// own sentences (grammar.Grammar).
type intentVocabulary interface {
	IntentWords(intent string) ([]string, bool)
}

// slotted is what is heard where the fallback's transcript was claimed
// surely by an intent with slots: the same features searched again with
// that intent's sentences alone (a grammar far smaller than the
// commands'), whose sentence is acted on when the intent engines read it
// as the same intent with the same slot values as the transcript and the
// words of its slots reach the fallback's confidence floor.
func (r *Recognizer) slotted(ctx context.Context, d *decoder, g search, f *features, pcm []int16, claim Meaning, v *audio.Verdict) ([]audio.Hypothesis, error) {
	fb := r.cfg.Fallback
	if _, ok := g.slotted[claim.Intent]; !ok || fb.KeepSlots {
		v.Fallback = "slots"
		return nil, nil
	}
	best, err := d.searchFeatures(ctx, slotSearchName(claim.Intent), f)
	if err != nil {
		return nil, err
	}
	text := cleanTranscript(best.text)
	if text == "" || !g.accepts(text) {
		v.Fallback = "slots"
		return nil, nil
	}
	segs := d.align()
	_, conf := confidence(segs)
	cover := coverage(segs, pcm)
	m, err := r.cfg.Understand(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("understanding the sentence %q: %w", text, err)
	}
	slotConf := valuesConfidence(segs, m.Slots)
	v.SlotSentence, v.SlotConfidence = text, slotConf
	r.log.Debug("fallback: the intent's own search", "text", text, "confidence", conf, "coverage", cover, "slots", slotConf, "intent", m.Intent)
	// The two searches must hear the same values: the slots' words score
	// well against the best senones whatever value the search forced
	// onto them ("six" as "one" at 0.99), so the score alone vouches for
	// nothing (docs/hearing.md).
	if m.Intent != claim.Intent || !m.Parsed || meaningKey(m.Intent, m.Slots, g.knows) != meaningKey(claim.Intent, claim.Slots, g.knows) ||
		cover < fb.MinCoverage || slotConf < fb.SlotConfidence || m.Confidence*conf < fb.Claim {
		v.Fallback = "slots"
		return nil, nil
	}
	v.Fallback = "acted"
	return []audio.Hypothesis{{Text: text, Confidence: conf, Open: true}}, nil
}

// valuesConfidence rates the words of an alignment that say the slots'
// values (slot name to its words), as confidence rates the whole: 0 when
// a value's words are not found in order among the alignment's words.
// Each value takes words no other value took, so two slots holding the
// same words need them said twice; the longer values are placed first,
// so that a value inside another ("five" in "five minutes") cannot take
// its words.
func valuesConfidence(segs []segment, slots map[string]string) float64 {
	var words []segment
	for _, s := range segs {
		if !isFiller(s.word) {
			words = append(words, s)
		}
	}
	taken := make([]bool, len(words))
	var mine []segment
	names := slices.Sorted(maps.Keys(slots))
	slices.SortStableFunc(names, func(a, b string) int {
		return len(strings.Fields(slots[b])) - len(strings.Fields(slots[a]))
	})
	for _, name := range names {
		want := strings.Fields(slots[name])
		at := -1
		for i := 0; i+len(want) <= len(words) && len(want) > 0; i++ {
			if !slices.Contains(taken[i:i+len(want)], true) &&
				slices.EqualFunc(words[i:i+len(want)], want, func(s segment, w string) bool { return baseWord(s.word) == w }) {
				at = i
				break
			}
		}
		if at < 0 {
			return 0
		}
		for i := at; i < at+len(want); i++ {
			taken[i] = true
		}
		mine = append(mine, words[at:at+len(want)]...)
	}
	if len(mine) == 0 {
		return 0
	}
	_, c := confidence(mine)
	return c
}

// wordConfidences rates each word of an alignment (fillers left out) on
// its own, as confidence rates the whole.
func wordConfidences(segs []segment) []float64 {
	var out []float64
	for _, s := range segs {
		if !isFiller(s.word) {
			_, c := confidence([]segment{s})
			out = append(out, c)
		}
	}
	return out
}

// baseWord is a dictionary word without its variant's number ("two(2)").
func baseWord(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		return w[:i]
	}
	return w
}

// slotSearchName names the search of one intent's sentences.
func slotSearchName(intent string) string { return "slots " + intent }

// intentGrammars is a grammar that gives each intent with slots a grammar
// of its own sentences (grammar.Grammar).
type intentGrammars interface {
	SlotIntents() []string
	IntentJSGF(intent string) (string, bool)
}

// slotGrammars compiles the grammars of gr's intents with slots; none
// when gr cannot give them.
func slotGrammars(gr Grammar) map[string]searchGrammar {
	ig, ok := gr.(intentGrammars)
	if !ok {
		return nil
	}
	out := map[string]searchGrammar{}
	for _, intent := range ig.SlotIntents() {
		jsgf, ok := ig.IntentJSGF(intent)
		if !ok {
			continue
		}
		sg := searchGrammar{jsgf: jsgf}
		if a, err := compileGrammar(jsgf); err == nil {
			sg.fsg = a
		}
		out[intent] = sg
	}
	return out
}
