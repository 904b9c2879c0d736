//go:build sphinx

package sphinx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// framesAt returns audio whose 10 ms frames have the levels db (dB over
// one LSB RMS, as frameLevels measures them).
func framesAt(db ...float64) []int16 {
	out := make([]int16, 0, len(db)*floorFrame)
	for _, d := range db {
		a := int16(math.Round(math.Pow(10, d/20)))
		for i := range floorFrame {
			if i%2 == 0 {
				out = append(out, a)
			} else {
				out = append(out, -a)
			}
		}
	}
	return out
}

// repeat is n frames at level db.
func repeat(db float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = db
	}
	return out
}

// TestQuietTail: filler words after a sentence keep it only where they
// cover no one talking. After silence, the sentence's words are at 60 dB
// (their median; a closure is quieter), the room at 30; the rule is 6
// dB under the sentence.
func TestQuietTail(t *testing.T) {
	var sentence []float64
	for _, part := range [][]float64{repeat(30, 5), repeat(60, 25), repeat(45, 5), repeat(62, 20)} {
		sentence = append(sentence, part...)
	}
	levels := func(tail ...[]float64) []float64 {
		out := append([]float64(nil), sentence...)
		for _, t := range tail {
			out = append(out, t...)
		}
		return out
	}
	words := []segment{{word: "<sil>", start: 0, end: 4}, {word: "stop", start: 5, end: 24}, {word: "my", start: 25, end: 34}, {word: "timer", start: 35, end: 54}}
	tailed := func(end int) []segment {
		return append(append([]segment(nil), words...), segment{word: "=it", start: 55, end: end})
	}
	tests := []struct {
		name   string
		segs   []segment
		levels []float64
		want   bool
	}{
		{"the room after the sentence", tailed(74), levels(repeat(30, 20)), true},
		{"the last word's end, then the room", tailed(74), levels(repeat(60, 5), repeat(30, 15)), false},
		{"a breath well under the sentence", tailed(74), levels(repeat(30, 5), repeat(50, 5), repeat(30, 10)), true},
		{"a word after the sentence", tailed(74), levels(repeat(60, 20)), false},
		{"a word after the sentence's end", tailed(74), levels(repeat(60, 5), repeat(30, 5), repeat(58, 10)), false},
		{"a word after a pause", tailed(74), levels(repeat(30, 10), repeat(55, 10)), false},
		{"just under the rule", tailed(74), levels(repeat(30, 5), repeat(53.5, 5), repeat(30, 10)), true},
		{"just over it", tailed(74), levels(repeat(30, 5), repeat(54.5, 5), repeat(30, 10)), false},
		{"no filler words", words, levels(repeat(30, 20)), false},
		{"filler words before the sentence", append([]segment{{word: "=the", start: 0, end: 4}}, tailed(74)[1:]...), levels(repeat(30, 20)), false},
		{"filler words within it", append(append([]segment(nil), words[:2]...), segment{word: "=a", start: 25, end: 34}, words[3], segment{word: "=it", start: 55, end: 74}), levels(repeat(30, 20)), false},
		{"filler words alone", []segment{{word: "<sil>", start: 0, end: 4}, {word: "=it", start: 5, end: 74}}, levels(repeat(30, 20)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, quietTail(tt.segs, framesAt(tt.levels...), 6))
		})
	}
}

// TestWithoutTail: a hypothesis's words without its filler words.
func TestWithoutTail(t *testing.T) {
	assert.Equal(t, "stop my timer", withoutTail("stop my timer =it =the"))
	assert.Equal(t, "stop my timer", withoutTail("stop my timer"))
	assert.Equal(t, "", withoutTail("=it"))
}

// TestTailedSentence: a sentence's words and the filler words after
// them, and nothing where the hypothesis is not shaped so.
func TestTailedSentence(t *testing.T) {
	for _, tt := range []struct {
		hyp, sentence string
		n             int
	}{
		{"whats the date =they", "whats the date", 1},
		{"whats the date =it's =the =they", "whats the date", 3},
		{"whats the date", "", 0},
		{"=do =we =but", "", 0},
		{"=the whats the date", "", 0},
		{"whats =the date =they", "", 0},
		{"", "", 0},
	} {
		s, n := tailedSentence(tt.hyp)
		assert.Equal(t, tt.sentence, s, tt.hyp)
		assert.Equal(t, tt.n, n, tt.hyp)
	}
}
