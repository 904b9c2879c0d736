package sphinx

import "errors"

// The wake phrase's alignment (Recognizer.AlignWake): where a command
// runs on from "hey jibo" without a pause, the wake word detector's
// estimate of the phrase's end can fall a good part of a syllable off,
// and a cut there clips the command's first sound or leaves the
// phrase's tail in front of it. A search of the utterance's start with
// a grammar of the phrase followed by anything (the garbage path's
// filler words) lets the acoustic model place the end of the phrase's
// last word; the command grammar is not touched.

// wakeAlignment returns the alignment's automaton: optional filler words
// (speech cut into before the phrase), each at lead; the phrase's words;
// then any number of filler words, each at perWord, or none.
func wakeAlignment(phrase, fillers []string, lead, perWord float64) (*automaton, error) {
	if len(phrase) == 0 || len(fillers) == 0 {
		return nil, errors.New("wake alignment: no phrase or no filler words")
	}
	// States: 0 start, 1 the loop before the phrase, 2 after a filler
	// word there, 3 the phrase's first word's start, then one state per
	// phrase word, then the loop after the phrase and its word's end,
	// then the final state.
	p := 3 + len(phrase) // after the phrase
	loop, after, final := p+1, p+2, p+3
	a := &automaton{states: final + 1, start: 0, final: final}
	a.arcs = append(a.arcs, fsgArc{from: 0, to: 3, prob: 1}, fsgArc{from: 0, to: 1, prob: 1},
		fsgArc{from: 2, to: 1, prob: 1}, fsgArc{from: 2, to: 3, prob: 1})
	for _, w := range fillers {
		a.arcs = append(a.arcs, fsgArc{from: 1, to: 2, word: w, prob: lead})
	}
	for i, w := range phrase {
		a.arcs = append(a.arcs, fsgArc{from: 3 + i, to: 4 + i, word: w, prob: 1})
	}
	a.arcs = append(a.arcs, fsgArc{from: p, to: final, prob: 1}, fsgArc{from: p, to: loop, prob: 1},
		fsgArc{from: after, to: loop, prob: 1}, fsgArc{from: after, to: final, prob: 1})
	for _, w := range fillers {
		a.arcs = append(a.arcs, fsgArc{from: loop, to: after, word: w, prob: perWord})
	}
	return a, nil
}
