package grammar

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Limits of Prompts.
const (
	// MaxPrompts bounds how many prompts one call makes.
	MaxPrompts = 5000
	// promptCandidates is how many random sentences are drawn per prompt
	// asked for, to choose the one that says the most unsaid words from
	// (20 said 156 words in 100 sentences, 100 say 185).
	promptCandidates = 100
	// maxPromptDepth bounds rule references followed in one sentence.
	maxPromptDepth = 8
)

// Prompt is one sentence to be said for acoustic model adaptation
// (enrollment): a sentence of the grammar and the intent it belongs to.
type Prompt struct {
	// Text is the sentence, normalised as the grammar's words are; it
	// starts with the wake phrase when Wake is true.
	Text string
	// Intent is "<skill>:<intent>", "" for the wake phrase alone.
	Intent string
	Wake   bool
}

// Prompts draws n sentences of the grammar for people to read aloud so
// the acoustic model can be adapted to their voices. Each sentence is the
// one of many drawn at random that says the most words not yet said, so
// the words come round quickly (with the built-in skills, 100 sentences
// say 185 of the grammar's 194 words); intents take turns; every other
// sentence starts with the wake phrase, and the first is the wake phrase
// alone. Open slots are left out: they
// take any known word, so a sentence through one is seldom one a person
// would say. The same seed gives the same prompts.
func (g *Grammar) Prompts(n int, seed uint64) ([]Prompt, error) {
	if n < 1 || n > MaxPrompts {
		return nil, fmt.Errorf("grammar prompts: %d prompts not in 1..%d", n, MaxPrompts)
	}
	if len(g.command) == 0 {
		if len(g.wake) == 0 {
			return nil, errors.New("grammar prompts: the grammar has no sentence")
		}
		out := make([]Prompt, n)
		for i := range out {
			out[i] = Prompt{Text: strings.Join(g.wake, " "), Wake: true}
		}
		return out, nil
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	said := map[string]bool{}
	var out []Prompt
	if len(g.wake) > 0 {
		out = append(out, Prompt{Text: strings.Join(g.wake, " "), Wake: true})
		for _, w := range g.wake {
			said[w] = true
		}
	}
	// Each round draws candidates from the intents in turn and keeps the
	// one that says the most words not yet said.
	for next := 0; len(out) < n; next++ {
		var best []string
		bestIntent, bestNew := "", -1
		f := &freshness{g: g, said: said, memo: map[*node]bool{}}
		for c := 0; c < promptCandidates; c++ {
			r := g.command[(next+c)%len(g.command)]
			words, ok := g.sample(rng, f, r.root, 0)
			if !ok || len(words) == 0 {
				continue
			}
			fresh := 0
			for _, w := range words {
				if !said[w] {
					fresh++
				}
			}
			// The round's own intent wins ties, so intents take turns
			// once every word has been said.
			if fresh > bestNew || (fresh == bestNew && c == 0) {
				best, bestIntent, bestNew = words, r.comment, fresh
			}
		}
		if best == nil {
			if next >= len(g.command)*promptCandidates {
				return nil, errors.New("grammar prompts: no sentence without an open slot")
			}
			continue
		}
		for _, w := range best {
			said[w] = true
		}
		p := Prompt{Text: strings.Join(best, " "), Intent: bestIntent}
		if len(g.wake) > 0 && len(out)%2 == 1 {
			p.Text = strings.Join(g.wake, " ") + " " + p.Text
			p.Wake = true
		}
		out = append(out, p)
	}
	return out, nil
}

// sample walks one random sentence from n; ok is false when the walk
// met an open slot or went too deep.
func (g *Grammar) sample(rng *rand.Rand, f *freshness, n *node, depth int) (_ []string, ok bool) {
	if depth > maxPromptDepth {
		return nil, false
	}
	var words []string
	for {
		edges := sortedLabels(n)
		// Stop where a sentence may end with a chance that grows with the
		// choices left, so long and short sentences both come up.
		if len(edges) == 0 || (n.end && rng.IntN(len(edges)+1) == 0) {
			return words, true
		}
		l := f.pick(rng, n, edges)
		switch {
		case l.rule == "":
			words = append(words, l.word)
		case g.open != nil && l.rule == g.open.name:
			return nil, false
		default:
			r := g.rules[l.rule]
			if r == nil {
				return nil, false
			}
			sub, ok := g.sample(rng, f, r.root, depth+1)
			if !ok {
				return nil, false
			}
			words = append(words, sub...)
		}
		n = n.next[l]
	}
}

// freshWeight is how much likelier a branch is drawn when it can still say
// a word no prompt has said: a word deep in one alternative of many is
// otherwise seldom reached, and enrollment must hear every word.
const freshWeight = 4

// freshness knows which branches of the grammar lead to a word not yet
// said, for one round of drawing.
type freshness struct {
	g    *Grammar
	said map[string]bool
	memo map[*node]bool
}

// pick draws one of n's edges, favouring those that lead to a fresh word.
func (f *freshness) pick(rng *rand.Rand, n *node, edges []label) label {
	weights := make([]int, len(edges))
	total := 0
	for i, l := range edges {
		weights[i] = 1
		if f.edge(l, n.next[l]) {
			weights[i] = freshWeight
		}
		total += weights[i]
	}
	x := rng.IntN(total)
	for i, w := range weights {
		if x < w {
			return edges[i]
		}
		x -= w
	}
	return edges[len(edges)-1]
}

// node reports whether a sentence going on from n can say a fresh word.
func (f *freshness) node(n *node) bool {
	if v, ok := f.memo[n]; ok {
		return v
	}
	f.memo[n] = false // a rule reached again through itself adds nothing
	v := false
	for l, c := range n.next {
		if f.edge(l, c) {
			v = true
			break
		}
	}
	f.memo[n] = v
	return v
}

// edge reports whether taking l (then going on from c) can say a fresh
// word. An open slot is never drawn, so nothing past it counts.
func (f *freshness) edge(l label, c *node) bool {
	switch {
	case l.rule == "":
		if !f.said[l.word] {
			return true
		}
	case f.g.open != nil && l.rule == f.g.open.name:
		return false
	default:
		if r := f.g.rules[l.rule]; r != nil && f.node(r.root) {
			return true
		}
	}
	return f.node(c)
}
