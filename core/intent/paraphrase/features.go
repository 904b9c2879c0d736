package paraphrase

import (
	"math"
	"strings"
)

// Features: each utterance becomes a bag of hashed features, each with a
// weight of 1/sqrt(n) for n features, so long and short utterances weigh
// alike.
//
//   - word unigrams ("w|time"), the words that carry most of the meaning;
//   - word bigrams with the utterance's edges ("b|^|time", "b|the|time",
//     "b|time|$"), for word order and short phrases ("turn up" against
//     "turn down");
//   - character 4-grams within each word padded by its edges ("<tim",
//     "time", "ime>"), so inflections and spellings ("colour", "minutes",
//     "louder") share evidence with what the templates spell. They weigh
//     half a word: 3-grams as well made no difference on the development
//     set and cost a fifth more time.
const (
	featWord byte = 'w'
	featPair byte = 'b'
	featChar byte = 'c'

	charGram = 4

	wordWeight = 1
	pairWeight = 1
	charWeight = 0.5
)

// fnv-1a 64
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashStart(kind byte) uint64 {
	h := uint64(fnvOffset)
	h ^= uint64(kind)
	h *= fnvPrime
	return h
}

func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func hashSep(h uint64) uint64 {
	h ^= 0xff
	h *= fnvPrime
	return h
}

// feature is one feature occurrence: its hash and how to name it.
type feature struct {
	hash uint64
	kind byte
	a, b int // word indexes (pair: a and b, b == len for "$", a == -1 for "^"); char: word a, bytes [b, b+n)
	n    int
}

// featurize appends the features of words to out.
func featurize(words []string, out []feature) []feature {
	out = out[:0]
	for i, w := range words {
		out = append(out, feature{hash: hashString(hashStart(featWord), w), kind: featWord, a: i})
	}
	for i := -1; i < len(words); i++ {
		h := hashStart(featPair)
		if i < 0 {
			h = hashString(h, "^")
		} else {
			h = hashString(h, words[i])
		}
		h = hashSep(h)
		if i+1 < len(words) {
			h = hashString(h, words[i+1])
		} else {
			if i < 0 {
				continue // no words at all
			}
			h = hashString(h, "$")
		}
		out = append(out, feature{hash: h, kind: featPair, a: i, b: i + 1})
	}
	for i, w := range words {
		padded := len(w) + 2
		for s := 0; s+charGram <= max(padded, charGram); s++ {
			n := min(charGram, padded) // a short word is one gram: "<up>"
			h := hashStart(featChar)
			for k := s; k < s+n; k++ {
				h ^= uint64(paddedByte(w, k))
				h *= fnvPrime
			}
			out = append(out, feature{hash: h, kind: featChar, a: i, b: s, n: n})
		}
	}
	return out
}

// paddedByte is byte k of "<" + w + ">".
func paddedByte(w string, k int) byte {
	switch {
	case k == 0:
		return '<'
	case k == len(w)+1:
		return '>'
	}
	return w[k-1]
}

// name says what a feature is, for explanations.
func (f feature) name(words []string) string {
	switch f.kind {
	case featWord:
		return "word " + words[f.a]
	case featPair:
		l, r := "^", "$"
		if f.a >= 0 {
			l = words[f.a]
		}
		if f.b < len(words) {
			r = words[f.b]
		}
		return "words " + l + " " + r
	}
	var b strings.Builder
	for k := f.b; k < f.b+f.n; k++ {
		b.WriteByte(paddedByte(words[f.a], k))
	}
	return "letters " + b.String()
}

// kindWeight is how much a feature of a kind weighs before normalising.
func kindWeight(k byte) float32 {
	switch k {
	case featWord:
		return wordWeight
	case featPair:
		return pairWeight
	}
	return charWeight
}

// norm scales a bag's features so its vector has length 1.
func norm(fs []feature) float32 {
	var s float64
	for _, f := range fs {
		w := float64(kindWeight(f.kind))
		s += w * w
	}
	if s == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(s))
}
