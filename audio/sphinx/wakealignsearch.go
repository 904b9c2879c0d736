//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/openjibo/jibod/audio"
)

// wakeAlignName is the alignment's search.
const wakeAlignName = "wake-align"

// startWakeAligner starts the wake phrase's alignment (AlignWake) where
// there is a garbage path whose filler words can stand for the command
// after the phrase; without one, or where the grammar holds the phrase
// itself (Config.Wake), there is none and AlignWake finds nothing. The
// alignment has a decoder of its own: a search on a command decoder
// would leave that decoder's front end (its noise estimate, which
// carries from one utterance to the next) where the alignment's audio
// ended, not where the utterance before ended, and change what the
// command's own search hears. Its own noise estimate starts afresh on
// every alignment, whatever Config.ResetNoise says: the alignment before
// may have been hours earlier, in another room, and each alignment
// depends only on its own audio (usually the room before the phrase).
func (r *Recognizer) startWakeAligner(ctx context.Context) error {
	if r.garbage == nil || r.cfg.Wake != "" {
		return nil
	}
	phrase := strings.Fields(audio.WakePhrase)
	prons, err := r.lex.Lookup(ctx, phrase)
	if err != nil {
		var missing *MissingWordsError
		if errors.As(err, &missing) {
			r.log.Debug("no wake phrase alignment: the lexicon lacks its words", "words", missing.Words)
			return nil
		}
		return fmt.Errorf("speech recognizer: the wake phrase's alignment: %w", err)
	}
	gb := r.cfg.Garbage
	a, err := wakeAlignment(phrase, slices.Sorted(maps.Keys(r.garbage)), penaltyProb(gb.PerWord), penaltyProb(gb.PerWord))
	if err != nil {
		return fmt.Errorf("speech recognizer: %w", err)
	}
	maps.Copy(prons, r.garbage)
	dict, err := writeDict(prons)
	if err != nil {
		return fmt.Errorf("speech recognizer: the wake phrase's alignment: %w", err)
	}
	defer os.Remove(dict)
	d, err := newDecoder(r.cfg.ModelDir, dict, r.cfg.Args)
	if err != nil {
		return fmt.Errorf("speech recognizer: the wake phrase's alignment: %w", err)
	}
	d.resetNoise = true
	if err := d.addGrammar(wakeAlignName, searchGrammar{fsg: a}, 0); err != nil {
		d.close()
		return fmt.Errorf("speech recognizer: the wake phrase's alignment: %w", err)
	}
	r.aligner = make(chan *decoder, 1)
	r.aligner <- d
	return nil
}

// closeWakeAligner frees the alignment's decoder, waiting for an
// alignment in progress; a nil one takes its place, for AlignWake to
// refuse.
func (r *Recognizer) closeWakeAligner() {
	if r.aligner == nil {
		return
	}
	if d := <-r.aligner; d != nil {
		d.close()
	}
	r.aligner <- nil
}

// AlignWake finds where the wake phrase ends in pcm, 16 kHz mono audio
// that starts with the phrase (the pre-roll may come before it, speech
// cut into too): the sample after the phrase's last word, as the
// acoustic model aligns it with the phrase followed by any words. ok is
// false when it finds no phrase, or the recogniser has no alignment
// (no garbage path, or the phrase in the grammar).
func (r *Recognizer) AlignWake(ctx context.Context, pcm []int16) (end int, ok bool, err error) {
	if limit := r.cfg.MaxSeconds * audio.SampleRate; len(pcm) > limit {
		return 0, false, fmt.Errorf("speech recognizer: aligning the wake phrase in %.1f s of audio: longer than %d s", float64(len(pcm))/audio.SampleRate, r.cfg.MaxSeconds)
	}
	if r.aligner == nil || len(pcm) == 0 {
		return 0, false, nil
	}
	var d *decoder
	select {
	case d = <-r.aligner:
	case <-ctx.Done():
		return 0, false, fmt.Errorf("speech recognizer: aligning the wake phrase: %w", ctx.Err())
	}
	defer func() { r.aligner <- d }()
	if d == nil {
		return 0, false, errors.New("speech recognizer: closed")
	}
	// The aligner's searches are not reported with an utterance's
	// decisions: forget them, or the list grows with every alignment.
	d.searched = d.searched[:0]
	defer warnHistoryMismatch(r.log)
	defer warnGaussTripped(r.log)
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
