package paraphrase

import (
	"context"
	"slices"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// SlotAligner finds an intent's slot values in an utterance by aligning it
// with the intent's template structure, as registered for a session and
// language; ok is false when the utterance cannot be aligned with the
// intent. The template engine is the tier's (TemplateEngine.AlignSlots).
type SlotAligner interface {
	Align(ctx context.Context, sessionID, skillID, intentName, lang, utterance string) (slots map[string]string, ok bool)
}

// engineAligner aligns with the template engine's structure.
type engineAligner struct{ e *intent.TemplateEngine }

func (a engineAligner) Align(_ context.Context, sessionID, skillID, intentName, lang, utterance string) (map[string]string, bool) {
	r := a.e.AlignSlots(sessionID, skillID, intentName, lang, utterance)
	if r == nil {
		return nil, false
	}
	return r.Slots, true
}

// Slots finds the values of an intent's slots in an utterance without the
// template engine: a typed slot takes the longest value of its type
// (durations, numbers), a slot with an entity list the longest listed
// value said, and an open slot the words that sit where the slot sits in
// the best-aligned sample of the intent's templates. Slots it cannot find
// are left out.
func (m *Model) Slots(l Label, utterance string) map[string]string {
	c := slices.Index(m.labels, l)
	if c <= 0 {
		return nil
	}
	words := strings.Fields(intent.Normalize(utterance))
	out := map[string]string{}
	for s, sp := range m.slotSpans(m.infos[c], words) {
		out[s] = strings.Join(words[sp[0]:sp[1]], " ")
	}
	return out
}

// slotSpans finds each slot's value as a span of words. A slot of a type
// the language reads (durations, numbers) takes the longest value of its
// type, else the longest listed value, never other words. Any other slot
// takes the longest listed value, else (its list is a hint, GRM-15) the
// words that sit where the slot sits in the best-aligned sample, never a
// blacklisted value: "off" is no volume level.
func (m *Model) slotSpans(info *intentInfo, words []string) map[string][2]int {
	return m.spans(info, words, true)
}

// spans is slotSpans; without open, a slot takes only typed and listed
// values, never the words that merely sit where it sits.
func (m *Model) spans(info *intentInfo, words []string, open bool) map[string][2]int {
	used := make([]bool, len(words))
	out := map[string][2]int{}
	// Typed and listed values first, the longest of them first, so "five
	// minutes" is a duration before "five" can be a number.
	pending := slices.Clone(info.slots)
	for {
		best, bi, bn := "", 0, 0
		for _, s := range pending {
			if find := m.lang.find[info.types[s]]; find != nil {
				if i, n := longest(words, used, find); n > bn {
					best, bi, bn = s, i, n
				}
			}
			if vals := info.entities[s]; len(vals) > 0 {
				if i, n := longest(words, used, func(ws []string, i int) int { return listed(ws, i, vals) }); n > bn {
					best, bi, bn = s, i, n
				}
			}
		}
		if bn == 0 {
			break
		}
		out[best] = [2]int{bi, bi + bn}
		mark(used, bi, bn)
		pending = slices.DeleteFunc(pending, func(s string) bool { return s == best })
	}
	for _, s := range pending {
		if !open {
			break
		}
		if m.lang.find[info.types[s]] != nil {
			continue // a slot of a type the language reads takes only that type or its list
		}
		if lo, hi := m.alignOpen(info, s, words, used); hi > lo {
			out[s] = [2]int{lo, hi}
			mark(used, lo, hi-lo)
		}
	}
	return out
}

func mark(used []bool, i, n int) {
	for j := i; j < i+n; j++ {
		used[j] = true
	}
}

// longest returns the longest span of unused words that find accepts.
func longest(words []string, used []bool, find func([]string, int) int) (int, int) {
	bi, bn := 0, 0
	for i := range words {
		if used[i] {
			continue
		}
		n := find(words, i)
		for k := i; k < i+n; k++ {
			if used[k] {
				n = 0
				break
			}
		}
		if n > bn {
			bi, bn = i, n
		}
	}
	return bi, bn
}

// listed returns the length of the longest listed value at words[i:].
func listed(words []string, i int, vals [][]string) int {
	best := 0
	for _, v := range vals {
		if len(v) > best && i+len(v) <= len(words) && slices.Equal(words[i:i+len(v)], v) {
			best = len(v)
		}
	}
	return best
}

// alignOpen finds an open slot's value: the utterance words between the
// literal words that surround the slot in the sample that aligns best.
func (m *Model) alignOpen(info *intentInfo, slot string, words []string, used []bool) (int, int) {
	bestLo, bestHi, bestScore := 0, 0, -1<<30
	for _, sk := range info.skeletons {
		at := slices.IndexFunc(sk, func(t token) bool { return t.slot == slot })
		if at < 0 {
			continue
		}
		pairs := alignWords(sk, words)
		// The slot's span runs from just after the last literal aligned
		// before it to just before the first literal aligned after it.
		lo, hi := 0, len(words)
		aligned := 0
		for _, p := range pairs {
			aligned++
			if p[0] < at {
				lo = max(lo, p[1]+1)
			} else if p[0] > at {
				hi = min(hi, p[1])
			}
		}
		if lo >= hi {
			continue
		}
		free := true
		for k := lo; k < hi; k++ {
			free = free && !used[k]
		}
		tlo, thi := m.trim(words, lo, hi)
		if !free || tlo >= thi || info.blacklist[slot][strings.Join(words[tlo:thi], " ")] {
			continue
		}
		literals := 0
		for _, t := range sk {
			if t.slot == "" {
				literals++
			}
		}
		// Aligned literals count for the sample; literals it has that were
		// not said, and words said outside the slot that it does not
		// have, count against it.
		score := 2*aligned - (literals - aligned) - (len(words) - (hi - lo) - aligned)
		if score > bestScore {
			bestLo, bestHi, bestScore = tlo, thi, score
		}
	}
	return bestLo, bestHi
}

// trim drops function words from the edges of an open slot value ("to
// sing" → "sing", "the rain please" → "rain").
func (m *Model) trim(words []string, lo, hi int) (int, int) {
	for lo < hi && m.lang.isFunction(words[lo]) {
		lo++
	}
	for hi > lo && m.lang.isFunction(words[hi-1]) {
		hi--
	}
	return lo, hi
}

// alignWords aligns a skeleton's literal words with the utterance's words
// in order (longest common subsequence) and returns the aligned pairs
// (skeleton index, word index).
func alignWords(sk skeleton, words []string) [][2]int {
	n, w := len(sk), len(words)
	dp := make([]int, (n+1)*(w+1))
	at := func(i, j int) *int { return &dp[i*(w+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := w - 1; j >= 0; j-- {
			if sk[i].slot == "" && sk[i].text == words[j] {
				*at(i, j) = 1 + *at(i+1, j+1)
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < w; {
		switch {
		case sk[i].slot == "" && sk[i].text == words[j]:
			out = append(out, [2]int{i, j})
			i++
			j++
		case *at(i+1, j) >= *at(i, j+1):
			i++
		default:
			j++
		}
	}
	return out
}
