//go:build sphinx

package sphinx

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/openjibo/jibod/audio"
)

// Fallback configures what happens where the grammar's sentence is
// refused, with a ModelFallback language model (docs/hearing.md): the
// model transcribes the utterance's features, and the transcript is acted
// on only when its own alignment passes these floors and the intent
// engines parse it surely (Meaning.Parsed: a guess of the generalising
// tier is not enough) as an intent without slots, scoring at least
// Claim. Every field is taken as it is: a floor of 0 is no floor.
// DefaultFallback is the measured choice.
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
	// MaxAudio is the longest utterance (as decoded, trimmed) the
	// fallback transcribes: a request to a skill is short, and most of
	// what the grammar refuses, and most of its cost, is longer speech
	// no skill takes.
	MaxAudio time.Duration
}

// DefaultFallback is the fallback's choice, made on the espeak-ng tuning
// sets (docs/hearing.md).
var DefaultFallback = Fallback{Claim: 0.5, MinConfidence: 0.5, MinCoverage: 0.8, Beam: 1e-40, WordBeam: 1e-25, MaxHMMs: 10000,
	MaxAudio: 3 * time.Second}

// Check says what is wrong with f, if anything.
func (f Fallback) Check() error {
	in01 := func(v float64) bool { return v >= 0 && v <= 1 }
	switch {
	case !in01(f.Claim) || !in01(f.MinConfidence) || !in01(f.MinCoverage):
		return fmt.Errorf("fallback: claim %g, confidence %g, coverage %g not all in [0, 1]", f.Claim, f.MinConfidence, f.MinCoverage)
	case !(f.Beam > 0 && f.Beam < 1) || !(f.WordBeam > 0 && f.WordBeam < 1) || math.IsNaN(f.Beam) || math.IsNaN(f.WordBeam):
		return fmt.Errorf("fallback: beams %g, %g not in (0, 1)", f.Beam, f.WordBeam)
	case f.MaxHMMs < 100 || f.MaxHMMs > 100_000:
		return fmt.Errorf("fallback: %d HMMs a frame not in 100..100000", f.MaxHMMs)
	case f.MaxAudio <= 0 || f.MaxAudio > time.Duration(DefaultMaxSeconds)*time.Second:
		return fmt.Errorf("fallback: longest utterance %v not in (0, %d s]", f.MaxAudio, DefaultMaxSeconds)
	}
	return nil
}

// beams are f's beams as the decoder takes them.
func (f Fallback) beams() lmBeams {
	return lmBeams{beam: f.Beam, pbeam: f.Beam, wbeam: f.WordBeam, lpbeam: f.WordBeam, lponlybeam: f.WordBeam, maxhmmpf: f.MaxHMMs}
}

// fallback is what is heard where the grammar's sentence was refused:
// the fallback language model's transcript of the same features, when
// its alignment passes the floors and the intent engines parse it
// surely; else
// nothing, and the robot asks as it would have. The features are not
// computed again, so the front end's noise estimate, which goes on to
// the next utterance, is as if the fallback had not run; pcm is the audio
// they were computed from (for the coverage).
func (r *Recognizer) fallback(ctx context.Context, d *decoder, f *features, pcm []int16, v *audio.Verdict) ([]audio.Hypothesis, error) {
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
	if conf < fb.MinConfidence || cover < fb.MinCoverage {
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
	switch {
	case m.Intent == "":
		v.Fallback = "no claim"
		return nil, nil
	case !m.Parsed:
		// The generalising tier reads intents into the junk words of a
		// transcript as readily as into a paraphrase (docs/hearing.md).
		v.Fallback = "guess"
		return nil, nil
	case m.Slots > 0:
		// The transcript's numbers and lengths are seldom the ones said
		// ("six" as "three", "minutes" as "me the"), and a wrong value is
		// a wrong action (docs/hearing.md).
		v.Fallback = "slots"
		return nil, nil
	case score < fb.Claim:
		v.Fallback = "weak claim"
		return nil, nil
	}
	v.Fallback = "acted"
	return []audio.Hypothesis{{Text: text, Confidence: conf, Open: true}}, nil
}
