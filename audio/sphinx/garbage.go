package sphinx

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// The garbage path: speech the grammar does not hold is forced onto the
// sentence that fits it least badly, and that sentence can fit well
// enough to pass every floor ("tell me the time" as "delete timer").
// With a garbage path the grammar's own search has another way through
// the utterance: from the start state to the final one, a loop over
// filler words that can stand for any speech (common short English
// words), each word and the branch itself at a cost. Speech the grammar
// holds fits its sentence about as well as it fits the filler words, so
// the cost keeps it on the sentence; speech it does not hold fits the
// fillers better by more than the cost, and the search ends in garbage:
// the recogniser refuses, as for a sentence under the floors. It is one
// search, not a second pass: the fillers compete with the sentences
// frame by frame.

// Limits of the garbage path (Garbage).
const (
	// MaxGarbageWords bounds Garbage.Words: each is a tree of HMMs the
	// search may keep active in every frame.
	MaxGarbageWords = 1000
	// MaxGarbagePenalty bounds Garbage.Entry, Garbage.PerWord and
	// Garbage.EndEntry (the
	// decoder's log units): a larger one never lets the branch win, and
	// its probability would underflow.
	MaxGarbagePenalty = 5000
	// MaxQuietTail bounds Garbage.QuietTail (dB).
	MaxQuietTail = 60
	// garbagePrefix marks a filler word of the garbage path in the
	// decoder's dictionary and its hypotheses: checkWord refuses it in
	// a grammar's or the lexicon's words, so a filler word is never a
	// word of a sentence.
	garbagePrefix = "="
)

// Garbage configures the garbage path (Config.Garbage).
type Garbage struct {
	// Words are the filler words, as the lexicon spells them; each is
	// searched with its first pronunciation.
	Words []string
	// Entry is what taking the garbage branch costs, PerWord what each
	// filler word costs on top, in the decoder's log units (those of
	// Config.RivalMargin per frame: the score pocketsphinx keeps, the
	// logarithm in base 1.0001 shifted right by 10 bits).
	Entry, PerWord float64
	// MinConfidence replaces Config.MinConfidence for a search that holds
	// the garbage path, and only there (0 keeps Config.MinConfidence):
	// the filler words are searched beside the sentences, so each frame's
	// best senone, which a sentence's confidence is measured against, can
	// be a better one, and a sentence said scores lower than in a search
	// without them.
	MinConfidence float64
	// Tail lets filler words follow a sentence, and Head precede one,
	// each word at PerWord: a path that takes them went through the
	// garbage path and is refused. A word said beyond what the sentence
	// holds ("put the volume on six", where the grammar holds "put the
	// volume on please") is otherwise stretched onto the sentence's
	// words, and a sentence of another meaning that differs from the
	// one said only in a short last word wins. A sentence found without
	// them that falls under MinConfidence is measured again by the
	// search without them, as the floor was chosen.
	Tail, Head bool
	// EndEntry is what entering the filler words after or before a
	// sentence costs, on top of PerWord a word (before one, on top of
	// Entry too).
	EndEntry float64
	// QuietTail, when over 0, keeps a sentence whose filler words after
	// it (Tail) cover no one talking: none of their 10 ms frames within
	// QuietTail dB of the median level of the sentence's own frames (a
	// breath, the room, other talkers well under the talker). Such a
	// sentence is measured by the search without them, which must find
	// it too, as one under MinConfidence is. 0 refuses every path with
	// filler words.
	QuietTail float64
}

// Check reports what is wrong with g, nil when nothing is.
func (g Garbage) Check() error {
	switch {
	case len(g.Words) == 0 || len(g.Words) > MaxGarbageWords:
		return fmt.Errorf("garbage path: %d filler words, want 1 to %d", len(g.Words), MaxGarbageWords)
	case !(g.Entry >= 0 && g.Entry <= MaxGarbagePenalty): // NaN too
		return fmt.Errorf("garbage path: entry penalty %g not in 0..%d", g.Entry, MaxGarbagePenalty)
	case !(g.PerWord >= 0 && g.PerWord <= MaxGarbagePenalty):
		return fmt.Errorf("garbage path: penalty per word %g not in 0..%d", g.PerWord, MaxGarbagePenalty)
	case !(g.EndEntry >= 0 && g.EndEntry <= MaxGarbagePenalty):
		return fmt.Errorf("garbage path: entry penalty at a sentence's ends %g not in 0..%d", g.EndEntry, MaxGarbagePenalty)
	case !(g.QuietTail >= 0 && g.QuietTail <= MaxQuietTail):
		return fmt.Errorf("garbage path: quiet tail %g dB not in 0..%d", g.QuietTail, MaxQuietTail)
	case !(g.MinConfidence >= 0 && g.MinConfidence <= 1):
		return fmt.Errorf("garbage path: minimum confidence %g not in [0, 1]", g.MinConfidence)
	}
	for _, w := range g.Words {
		if err := checkWord(w); err != nil {
			return fmt.Errorf("garbage path: %w", err)
		}
	}
	return nil
}

// garbageName is the decoder's name of filler word w.
func garbageName(w string) string { return garbagePrefix + w }

// isGarbage reports whether a hypothesis went through the garbage path:
// it holds a filler word.
func isGarbage(hyp string) bool {
	for _, w := range strings.Fields(hyp) {
		if strings.HasPrefix(w, garbagePrefix) {
			return true
		}
	}
	return false
}

// penaltyProb is the transition probability that costs units of the
// decoder's scores: pocketsphinx adds a transition's log probability
// (base 1.0001) to a path's score shifted right by 10 bits
// (SENSCR_SHIFT), not scaled by the language weight.
func penaltyProb(units float64) float64 {
	return math.Exp(-units * 1024 * math.Log(1.0001))
}

// withGarbage returns a copy of a with the garbage path added: a state
// the start state reaches by a null transition of probability entry,
// from which each of words (the decoder's names) leads, at probability
// perWord, to a state that goes on to the final state, or back for
// another word, by null transitions. One state holds the words' arcs,
// so the search builds one tree of their HMMs; a path through it holds
// a word at least. With ends, the path's words may also come after a
// sentence (tail: from the final state back into the loop) or before
// one (head: from the loop's exit to the start), entered at endEntry.
func (a *automaton) withGarbage(words []string, entry, perWord float64, tail, head bool, endEntry float64) (*automaton, error) {
	if len(words) == 0 {
		return nil, errors.New("garbage path: no filler words")
	}
	if a.start == a.final {
		return nil, errors.New("garbage path: the grammar's start is its end")
	}
	loop, after := a.states, a.states+1
	g := &automaton{states: a.states + 2, start: a.start, final: a.final,
		arcs: make([]fsgArc, 0, len(a.arcs)+len(words)+3)}
	g.arcs = append(g.arcs, a.arcs...)
	g.arcs = append(g.arcs, fsgArc{from: a.start, to: loop, prob: entry})
	for _, w := range words {
		g.arcs = append(g.arcs, fsgArc{from: loop, to: after, word: w, prob: perWord})
	}
	g.arcs = append(g.arcs,
		fsgArc{from: after, to: loop, prob: 1},
		fsgArc{from: after, to: a.final, prob: 1})
	if tail {
		g.arcs = append(g.arcs, fsgArc{from: a.final, to: loop, prob: endEntry})
	}
	if head {
		g.arcs = append(g.arcs, fsgArc{from: after, to: a.start, prob: endEntry})
	}
	return g, nil
}
