//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/openjibo/jibod/audio"
)

// prepareWakeAlignment readies the wake phrase's alignment search
// (AlignWake) for every decoder, where there is a garbage path whose
// filler words can stand for the command after the phrase; without one,
// or where the grammar holds the phrase itself (Config.Wake), there is
// none and AlignWake finds nothing.
func (r *Recognizer) prepareWakeAlignment(ctx context.Context) (*search, error) {
	if r.garbage == nil || r.cfg.Wake != "" {
		return nil, nil
	}
	phrase := strings.Fields(audio.WakePhrase)
	prons, err := r.lex.Lookup(ctx, phrase)
	if err != nil {
		var missing *MissingWordsError
		if errors.As(err, &missing) {
			r.log.Debug("no wake phrase alignment: the lexicon lacks its words", "words", missing.Words)
			return nil, nil
		}
		return nil, fmt.Errorf("speech recognizer: the wake phrase's alignment: %w", err)
	}
	gb := r.cfg.Garbage
	a, err := wakeAlignment(phrase, slices.Sorted(maps.Keys(r.garbage)), penaltyProb(gb.PerWord), penaltyProb(gb.PerWord))
	if err != nil {
		return nil, fmt.Errorf("speech recognizer: %w", err)
	}
	maps.Copy(prons, r.garbage)
	return &search{fsg: a, prons: prons}, nil
}

// AlignWake finds where the wake phrase ends in pcm, 16 kHz mono audio
// that starts with the phrase (the pre-roll may come before it, speech
// cut into too): the sample after the phrase's last word, as the
// acoustic model aligns it with the phrase followed by any words. ok is
// false when it finds no phrase, or the recogniser has no alignment
// search (no garbage path, or the phrase in the grammar).
func (r *Recognizer) AlignWake(ctx context.Context, pcm []int16) (end int, ok bool, err error) {
	if max := r.cfg.MaxSeconds * audio.SampleRate; len(pcm) > max {
		return 0, false, fmt.Errorf("aligning the wake phrase in %.1f s of audio: longer than %d s", float64(len(pcm))/audio.SampleRate, r.cfg.MaxSeconds)
	}
	r.mu.Lock()
	g := r.grammar
	r.mu.Unlock()
	if g.wake == nil || len(pcm) == 0 {
		return 0, false, nil
	}
	d, err := r.take(ctx)
	if err != nil {
		return 0, false, err
	}
	defer warnHistoryMismatch(r.log)
	defer warnGaussTripped(r.log)
	if d.ps == nil {
		r.give(nil)
		return 0, false, errors.New("speech recognizer: no working decoder")
	}
	if d, err = r.apply(d, g); err != nil {
		r.give(d)
		return 0, false, err
	}
	defer r.give(d)
	// Noise suppressed and a floor put under it as for recognition, but
	// nothing trimmed: the frames must count from pcm's first sample.
	in := prepareAudioAt(pcm, quietSNR(pcm), r.cfg.DenoiseBelowSNR, r.cfg.FloorBelowDB, -1)
	if len(in) != len(pcm) {
		return 0, false, errors.New("speech recognizer: aligning the wake phrase: the audio's length changed")
	}
	best, err := d.search(ctx, wakeAlignName, in)
	if err != nil {
		return 0, false, fmt.Errorf("speech recognizer: aligning the wake phrase: %w", err)
	}
	if best.text == "" {
		return 0, false, nil
	}
	last, ok := phraseEnd(d.align(), strings.Fields(audio.WakePhrase))
	if !ok {
		return 0, false, nil
	}
	const frame = audio.SampleRate / 100
	return min((last+1)*frame, len(pcm)), true, nil
}

// phraseEnd returns the last frame of the phrase's last word in an
// alignment (words as the decoder names them, "jibo(2)" for a variant),
// when the alignment holds the phrase's words in order before any
// other word.
func phraseEnd(segs []segment, phrase []string) (int, bool) {
	i := 0
	for _, s := range segs {
		if isFiller(s.word) {
			continue
		}
		w := baseWord(s.word)
		if i == 0 && isGarbage(w) {
			continue // speech before the phrase
		}
		if i >= len(phrase) || w != phrase[i] {
			return 0, false
		}
		if i++; i == len(phrase) {
			return s.end, true
		}
	}
	return 0, false
}
