package grammar

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Corpus is a grammar's command sentences as text for a statistical
// language model (audio/ngram): each sentence of every intent with its
// slots left as references, and every value of every slot.
type Corpus struct {
	// Sentences are the command sentences; a token "<name>" refers to
	// Slots[name].
	Sentences []CorpusSentence
	// Slots are the values of every slot rule the sentences refer to,
	// each a sequence of words. The open slot's values are its words,
	// one each.
	Slots map[string][][]string
}

// CorpusSentence is one sentence of a Corpus and the intent it says.
type CorpusSentence struct {
	Tokens []string
	// Intent is the index of the sentence's intent: the sentences of one
	// intent share it.
	Intent int
}

// ErrCorpusTooLarge is returned by Corpus when the sentences or a slot's
// values pass the bound asked for.
var ErrCorpusTooLarge = errors.New("grammar: corpus larger than asked for")

// SlotToken is the token a Corpus sentence has for a reference to the
// slot rule name.
func SlotToken(name string) string { return "<" + name + ">" }

// Corpus lists the grammar's command sentences (not the wake phrase nor
// its decoys), at most maxSentences of them, and the values of the slots
// they refer to, at most maxValues per slot. With wrappers, sentences
// wrapped in them are added in the room the sentences leave under
// maxSentences: they never make a corpus too large.
func (g *Grammar) Corpus(maxSentences, maxValues int) (Corpus, error) {
	c := Corpus{Slots: map[string][][]string{}}
	var plain []CorpusSentence
	for i, r := range g.command {
		err := g.walkShallow(r.root, nil, func(tokens []string) error {
			if len(plain) == maxSentences {
				return fmt.Errorf("more than %d sentences: %w", maxSentences, ErrCorpusTooLarge)
			}
			plain = append(plain, CorpusSentence{Tokens: tokens, Intent: i})
			return nil
		})
		if err != nil {
			return Corpus{}, err
		}
	}
	before, after := g.wrapperPhrases(g.before), g.wrapperPhrases(g.after)
	room := maxSentences - len(plain)
	turn := 0
	for j, s := range plain {
		c.Sentences = append(c.Sentences, s)
		// Each sentence also once wrapped, the wrappers taking turns
		// (before, after, both), so the model has every wrapper next to
		// the sentences' first and last words without a copy of every
		// sentence per wrapper; where the room is short, the copies are
		// spread evenly over the sentences.
		if len(before) == 0 && len(after) == 0 || !spreadWrapped(j, room, len(plain)) {
			continue
		}
		turn++
		var pre, post []string
		switch k := turn % 3; {
		case len(after) == 0 || k == 0 && len(before) > 0:
			pre = before[turn/3%len(before)]
		case len(before) == 0 || k == 1:
			post = after[turn/3%len(after)]
		default:
			pre, post = before[turn/3%len(before)], after[turn/3%len(after)]
		}
		c.Sentences = append(c.Sentences, CorpusSentence{Tokens: slices.Concat(pre, s.Tokens, post), Intent: s.Intent})
	}
	for _, s := range c.Sentences {
		for _, t := range s.Tokens {
			name, ok := strings.CutPrefix(t, "<")
			if !ok {
				continue
			}
			name = strings.TrimSuffix(name, ">")
			if _, done := c.Slots[name]; done {
				continue
			}
			vals, err := g.ruleValues(name, maxValues)
			if err != nil {
				return Corpus{}, err
			}
			c.Slots[name] = vals
		}
	}
	return c, nil
}

// ruleValues lists every sentence of the rule name, at most max.
func (g *Grammar) ruleValues(name string, max int) ([][]string, error) {
	if o := g.open; o != nil && name == o.name {
		var out [][]string
		for _, w := range slices.Sorted(maps.Keys(o.vocab)) {
			out = append(out, []string{w})
		}
		return out, nil
	}
	r := g.rules[name]
	if r == nil {
		return nil, fmt.Errorf("grammar: no rule %q", name)
	}
	var out [][]string
	err := g.walk(r.root, nil, func(done []string) error {
		if len(out) == max {
			return fmt.Errorf("slot %s: more than %d values: %w", name, max, ErrCorpusTooLarge)
		}
		out = append(out, slices.Clone(done))
		return nil
	})
	return out, err
}

// walkShallow calls emit with every sentence of n's tree after the
// tokens done, leaving rule references as tokens.
func (g *Grammar) walkShallow(n *node, done []string, emit func([]string) error) error {
	if n.end {
		if err := emit(slices.Clone(done)); err != nil {
			return err
		}
	}
	for _, l := range sortedLabels(n) {
		t := l.word
		if l.rule != "" {
			t = SlotToken(l.rule)
		}
		if err := g.walkShallow(n.next[l], append(slices.Clip(done), t), emit); err != nil {
			return err
		}
	}
	return nil
}

// wrapperPhrases lists the sentences of a wrapper tree; none for nil.
func (g *Grammar) wrapperPhrases(n *node) [][]string {
	if n == nil {
		return nil
	}
	var out [][]string
	_ = g.walk(n, nil, func(done []string) error {
		if len(done) > 0 {
			out = append(out, slices.Clone(done))
		}
		return nil
	})
	return out
}

// spreadWrapped says whether sentence j of n gets a wrapped copy when
// there is room for only room copies: they are spread evenly. The
// products are worked in 64 bits, as they pass an int's range on 32-bit
// ARM for large corpora.
func spreadWrapped(j, room, n int) bool {
	if room >= n {
		return true
	}
	r := int64(max(room, 0))
	return (int64(j)+1)*r/int64(n) != int64(j)*r/int64(n)
}
