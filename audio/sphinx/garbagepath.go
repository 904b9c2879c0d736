//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// pronounceGarbage looks up the garbage path's filler words
// (Config.Garbage) once, for every grammar to come. A word the lexicon
// cannot pronounce is left out.
func (r *Recognizer) pronounceGarbage(ctx context.Context) error {
	gb := r.cfg.Garbage
	if gb == nil || r.cfg.Wake != "" {
		return nil
	}
	prons, err := r.lex.Lookup(ctx, gb.Words)
	var missing *MissingWordsError
	if errors.As(err, &missing) {
		r.log.Debug("garbage path: filler words left out", "words", missing.Words)
	} else if err != nil {
		return fmt.Errorf("speech recognizer: garbage path: %w", err)
	}
	if len(prons) == 0 {
		return errors.New("speech recognizer: garbage path: the lexicon pronounces none of its words")
	}
	r.garbage = make(map[string][]string, len(prons))
	for w, p := range prons {
		// One pronunciation each: a variant is another tree of HMMs.
		r.garbage[garbageName(w)] = p[:1]
	}
	return nil
}

// addGarbage adds the garbage path to a grammar compiled here (not to a
// language model's search, nor to a JSGF pocketsphinx compiles).
func (r *Recognizer) addGarbage(s *search) {
	if r.garbage == nil || s.fsg == nil || s.lm != "" {
		return
	}
	gb := r.cfg.Garbage
	a, err := s.fsg.withGarbage(slices.Sorted(maps.Keys(r.garbage)), penaltyProb(gb.Entry), penaltyProb(gb.PerWord), gb.Tail, gb.Head, penaltyProb(gb.EndEntry))
	if err != nil {
		r.log.Debug("no garbage path", "why", err)
		return
	}
	if gb.Tail {
		// The twin in which a sentence's confidence is measured (see
		// Recognizer.decode).
		if s.untailed, err = s.fsg.withGarbage(slices.Sorted(maps.Keys(r.garbage)), penaltyProb(gb.Entry), penaltyProb(gb.PerWord), false, gb.Head, penaltyProb(gb.EndEntry)); err != nil {
			r.log.Debug("no garbage path", "why", err)
			return
		}
	}
	s.fsg, s.garbage = a, true
	for w, p := range r.garbage {
		s.prons[w] = p
	}
}

// viaGarbage reports whether hypothesis hyp of search s went through its
// garbage path: such a path is never a sentence heard, though the
// grammar's Accepts, which reads words without the filler words' mark,
// would take it for one.
func (s search) viaGarbage(hyp string) bool { return s.garbage && isGarbage(hyp) }

// minConfidence is the confidence floor of a sentence search g found:
// the garbage path's own where g holds it, Config.MinConfidence
// elsewhere.
func (r *Recognizer) minConfidence(g search) float64 {
	if g.garbage && r.cfg.Garbage != nil && r.cfg.Garbage.MinConfidence > 0 {
		return r.cfg.Garbage.MinConfidence
	}
	return r.cfg.MinConfidence
}

// CommonWords returns the n most frequent words of everyday English
// (the open words the domain language model mixes in, OpenWords), most
// frequent first: filler words for the garbage path.
func CommonWords(n int) ([]string, error) {
	if n < 1 || n > MaxGarbageWords {
		return nil, fmt.Errorf("common words: %d, want 1 to %d", n, MaxGarbageWords)
	}
	words, _, err := openWordList(n)
	return words, err
}
