//go:build sphinx

package sphinx

import (
	"slices"
	"strings"
)

// quietTail reports whether the path segs is a sentence followed by
// filler words that cover no one talking: none of their 10 ms frames
// within below dB of the median level of the sentence's words' frames.
// pcm is the audio the path was found in, whose frames are the
// decoder's.
//
// Why: the filler words after a sentence can stand for the breath, the
// room's noise or other talkers after the talker stopped, as well as
// for a word said beyond the sentence. Measured against the sentence's
// own level, the rule holds as well over loud noise as over none. A
// filler word that takes the end of the sentence's last word is over
// the talker's voice, and refuses: by its level that end cannot be told
// from a last word heard wrong (docs/hearing.md).
func quietTail(segs []segment, pcm []int16, below float64) bool {
	var spoken []int
	tailStart, tailEnd := -1, -1
	for _, s := range segs {
		switch {
		case isFiller(s.word):
		case strings.HasPrefix(s.word, garbagePrefix):
			if tailStart < 0 {
				tailStart = s.start
			}
			tailEnd = s.end
		case tailStart >= 0:
			return false // a sentence's word after filler words
		default:
			for f := s.start; f <= s.end; f++ {
				spoken = append(spoken, f)
			}
		}
	}
	if tailStart < 0 || len(spoken) == 0 {
		return false
	}
	db := frameLevels(pcm)
	var level []float64
	for _, f := range spoken {
		if f >= 0 && f < len(db) {
			level = append(level, db[f])
		}
	}
	if len(level) == 0 {
		return false
	}
	slices.Sort(level)
	loud := level[len(level)/2] - below
	for f := max(0, tailStart); f <= tailEnd && f < len(db); f++ {
		if db[f] >= loud {
			return false
		}
	}
	return true
}

// withoutTail is hypothesis hyp without its filler words.
func withoutTail(hyp string) string {
	words := strings.Fields(hyp)
	return strings.Join(slices.DeleteFunc(words, func(w string) bool { return strings.HasPrefix(w, garbagePrefix) }), " ")
}

// tailedSentence splits hypothesis hyp into a sentence's words and the
// number of the garbage path's filler words after them: n is 0 where hyp
// has no filler words, no sentence's words, or filler words before or
// among them.
func tailedSentence(hyp string) (sentence string, n int) {
	words := strings.Fields(hyp)
	at := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, garbagePrefix) })
	if at <= 0 {
		return "", 0
	}
	for _, w := range words[at:] {
		if !strings.HasPrefix(w, garbagePrefix) {
			return "", 0
		}
	}
	return strings.Join(words[:at], " "), len(words) - at
}
