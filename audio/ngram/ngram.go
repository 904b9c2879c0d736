// Package ngram builds a small back-off trigram language model in ARPA
// form from a grammar's sentences (grammar.Corpus), for a recogniser that
// transcribes rather than forces every sound onto a sentence.
//
// Slots stay slots in the corpus: a sentence "set a timer for
// <duration>" is counted with several of the slot's values in turn, each
// a share of the sentence's weight, chosen so that every word pair of
// the values (with the words around the slot) is seen somewhere. Each
// intent weighs the same however many sentences its templates expand to.
//
// Probabilities are Witten-Bell's, interpolated with the order below,
// which works with the fractional counts the shares give: a history seen
// with T kinds of next word in c counts gives them c/(c+T) of its
// probability and backs off with T/(c+T). The unigrams are mixed with the
// open words (Options.Open, common words of everyday English) so that
// speech no skill knows is transcribed as those words rather than as a
// command.
package ngram

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// Sentence marks of the ARPA format.
const (
	Start = "<s>"
	End   = "</s>"
)

// Limits and defaults.
const (
	// DefaultShares is how many values of its slots a sentence is counted
	// with (Options.Shares).
	DefaultShares = 12
	// MaxShares bounds Options.Shares.
	MaxShares = 200
	// MaxSentences bounds the corpus's sentences.
	MaxSentences = 200_000
	// MaxNGrams bounds the model's n-grams of all orders.
	MaxNGrams = 2_000_000
	// MaxWords bounds the model's vocabulary.
	MaxWords = 20_000
	// maxSentenceTokens bounds one sentence.
	maxSentenceTokens = 64
)

// Sentence is one sentence of the corpus: words, and slot references
// naming a key of Corpus.Slots.
type Sentence struct {
	Tokens []string
	// Group is the sentence's group (an intent): each group weighs the
	// same in the model.
	Group int
}

// Corpus is what a model is built from.
type Corpus struct {
	Sentences []Sentence
	// Slots are each slot's values, word sequences; a token of a
	// Sentence that names one is the slot.
	Slots map[string][][]string
}

// Options tunes Build.
type Options struct {
	// Open are words anyone may say, with their relative frequency (any
	// positive scale). They and the end of a sentence get OpenWeight of
	// the unigram probability.
	Open map[string]float64
	// OpenWeight is the open words' share of the unigrams, in [0, 1).
	OpenWeight float64
	// OpenEnd is the probability that an open word ends the sentence, in
	// the open words' unigram distribution; 0 means 0.1.
	OpenEnd float64
	// Shares is how many values of its slots a sentence with slots is
	// counted with; 0 means DefaultShares.
	Shares int
}

// Model is a built trigram model.
type Model struct {
	words []string
	// grams[n-1] maps an n-gram (words joined by spaces) to its entry.
	grams [3]map[string]entry
}

type entry struct {
	prob    float64 // log10
	backoff float64 // log10; for histories only
}

// Words returns the model's words, sorted, without the sentence marks.
func (m *Model) Words() []string { return slices.Clone(m.words) }

// NGrams returns how many n-grams of each order the model has.
func (m *Model) NGrams() [3]int {
	return [3]int{len(m.grams[0]), len(m.grams[1]), len(m.grams[2])}
}

// LogProb returns log10 P(word | history) as a back-off model reads it
// (only the last two words of history count).
func (m *Model) LogProb(history []string, word string) float64 {
	if len(history) > 2 {
		history = history[len(history)-2:]
	}
	key := strings.Join(append(slices.Clone(history), word), " ")
	if e, ok := m.grams[len(history)][key]; ok {
		return e.prob
	}
	if len(history) == 0 {
		return math.Inf(-1)
	}
	bo := m.grams[len(history)-1][strings.Join(history, " ")].backoff
	return bo + m.LogProb(history[1:], word)
}

// Build counts the corpus and makes the model.
func Build(c Corpus, o Options) (*Model, error) {
	if o.Shares == 0 {
		o.Shares = DefaultShares
	}
	if o.OpenEnd == 0 {
		o.OpenEnd = 0.1
	}
	switch {
	case o.Shares < 1 || o.Shares > MaxShares:
		return nil, fmt.Errorf("language model: %d shares per sentence not in 1..%d", o.Shares, MaxShares)
	case !(o.OpenWeight >= 0 && o.OpenWeight < 1):
		return nil, fmt.Errorf("language model: open words' weight %g not in [0, 1)", o.OpenWeight)
	case !(o.OpenEnd > 0 && o.OpenEnd < 1):
		return nil, fmt.Errorf("language model: open words' end probability %g not in (0, 1)", o.OpenEnd)
	case o.OpenWeight > 0 && len(o.Open) == 0:
		return nil, errors.New("language model: open words' weight without open words")
	case len(c.Sentences) == 0:
		return nil, errors.New("language model: no sentences")
	case len(c.Sentences) > MaxSentences:
		return nil, fmt.Errorf("language model: %d sentences, more than %d", len(c.Sentences), MaxSentences)
	}
	for w, f := range o.Open {
		if err := checkWord(w); err != nil {
			return nil, fmt.Errorf("language model: open word: %w", err)
		}
		if !(f > 0) || math.IsInf(f, 1) {
			return nil, fmt.Errorf("language model: open word %q: frequency %g not positive", w, f)
		}
	}
	for name, vals := range c.Slots {
		if len(vals) == 0 {
			return nil, fmt.Errorf("language model: slot %s has no values", name)
		}
		for _, v := range vals {
			if len(v) == 0 || len(v) > maxSentenceTokens {
				return nil, fmt.Errorf("language model: slot %s: a value of %d words", name, len(v))
			}
			for _, w := range v {
				if err := checkWord(w); err != nil {
					return nil, fmt.Errorf("language model: slot %s: %w", name, err)
				}
			}
		}
	}
	cnt, err := count(c, o.Shares)
	if err != nil {
		return nil, err
	}
	return estimate(cnt, o)
}

// checkWord refuses what cannot be a word of an ARPA model.
func checkWord(w string) error {
	if w == "" || w == Start || w == End || strings.ContainsAny(w, " \t\r\n\\") {
		return fmt.Errorf("%q is not a word", w)
	}
	return nil
}

// counts are fractional n-gram counts by order.
type counts [3]map[string]float64

func (c *counts) add(seq []string, w float64) {
	for i := range seq {
		for n := 1; n <= 3 && i-n+1 >= 0; n++ {
			gram := seq[i-n+1 : i+1]
			if n == 1 && gram[0] == Start {
				continue
			}
			c[n-1][strings.Join(gram, " ")] += w
		}
	}
}

// count counts every sentence, each group with the same weight in all, a
// sentence with slots once per share with its slots' values in turn.
func count(c Corpus, shares int) (counts, error) {
	cnt := counts{{}, {}, {}}
	perGroup := map[int]int{}
	for _, s := range c.Sentences {
		perGroup[s.Group]++
	}
	covers := map[string][][]string{}
	next := map[string]int{} // each slot's next value to use
	for _, s := range c.Sentences {
		if len(s.Tokens) == 0 || len(s.Tokens) > maxSentenceTokens {
			return cnt, fmt.Errorf("language model: a sentence of %d tokens", len(s.Tokens))
		}
		var slots []string
		for _, t := range s.Tokens {
			if _, ok := c.Slots[t]; ok {
				slots = append(slots, t)
				if covers[t] == nil {
					covers[t] = cover(c.Slots[t])
				}
			} else if err := checkWord(t); err != nil {
				return cnt, fmt.Errorf("language model: %w", err)
			}
		}
		// Each group weighs the same, together as much as the sentences
		// counted once each: counts far under one would make every
		// history look as if anything could follow it.
		weight := float64(len(c.Sentences)) / float64(len(perGroup)) / float64(perGroup[s.Group])
		n := 1
		if len(slots) > 0 {
			n = shares
			for _, sl := range slots {
				n = min(n, len(covers[sl])*len(slots))
			}
		}
		for range n {
			seq := []string{Start}
			for _, t := range s.Tokens {
				vals, ok := covers[t]
				if !ok {
					seq = append(seq, t)
					continue
				}
				seq = append(seq, vals[next[t]%len(vals)]...)
				next[t]++
			}
			seq = append(seq, End)
			cnt.add(seq, weight/float64(n))
		}
		if len(cnt[2]) > MaxNGrams {
			return cnt, fmt.Errorf("language model: more than %d trigrams", MaxNGrams)
		}
	}
	return cnt, nil
}

// cover chooses the values of a slot a sentence is counted with: the
// shortest that hold every word pair of all of them (the slot's edges
// included), shortest first. Counted with a few of them in turn, the
// turns going on from sentence to sentence, each pair is seen next to
// the words around the slot, and the plain values ("five minutes") are
// not lost among the tens of thousands of long ones.
func cover(vals [][]string) [][]string {
	sorted := slices.Clone(vals)
	slices.SortStableFunc(sorted, func(a, b []string) int { return cmp.Compare(len(a), len(b)) })
	seen := map[string]bool{}
	var out [][]string
	for _, v := range sorted {
		added := false
		prev := "|"
		for _, w := range append(slices.Clone(v), "|") {
			if p := prev + " " + w; !seen[p] {
				seen[p] = true
				added = true
			}
			prev = w
		}
		if added {
			out = append(out, v)
		}
	}
	return out
}

// estimate turns counts into the back-off model.
func estimate(cnt counts, o Options) (*Model, error) {
	m := &Model{grams: [3]map[string]entry{{}, {}, {}}}
	// Unigrams: the corpus's, mixed with the open words.
	var total float64
	for _, c := range cnt[0] {
		total += c
	}
	var openTotal float64
	for _, f := range o.Open {
		openTotal += f
	}
	uni := map[string]float64{}
	for w, c := range cnt[0] {
		uni[w] += (1 - o.OpenWeight) * c / total
	}
	if o.OpenWeight > 0 {
		for w, f := range o.Open {
			uni[w] += o.OpenWeight * (1 - o.OpenEnd) * f / openTotal
		}
		uni[End] += o.OpenWeight * o.OpenEnd
	}
	if len(uni) > MaxWords {
		return nil, fmt.Errorf("language model: %d words, more than %d", len(uni), MaxWords)
	}
	for w, p := range uni {
		m.grams[0][w] = entry{prob: math.Log10(p)}
		if w != End {
			m.words = append(m.words, w)
		}
	}
	slices.Sort(m.words)
	m.grams[0][Start] = entry{prob: -99}
	// Histories: their total count and soft number of kinds of next word.
	for n := 2; n <= 3; n++ {
		hist := map[string][2]float64{}
		for g, c := range cnt[n-1] {
			h := g[:strings.LastIndexByte(g, ' ')]
			x := hist[h]
			hist[h] = [2]float64{x[0] + c, x[1] + min(1, c)}
		}
		for h, x := range hist {
			bo := x[1] / (x[0] + x[1])
			e := m.grams[n-2][h]
			e.backoff = math.Log10(bo)
			m.grams[n-2][h] = e
		}
		for g, c := range cnt[n-1] {
			i := strings.LastIndexByte(g, ' ')
			h, w := g[:i], g[i+1:]
			x := hist[h]
			lowerHist := strings.Fields(h)[1:]
			lower := math.Pow(10, m.LogProb(lowerHist, w))
			p := (c + x[1]*lower) / (x[0] + x[1])
			m.grams[n-1][g] = entry{prob: math.Log10(p)}
		}
	}
	return m, nil
}

// WriteARPA writes the model in the ARPA text format.
func (m *Model) WriteARPA(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\\data\\\n")
	for n := range 3 {
		fmt.Fprintf(bw, "ngram %d=%d\n", n+1, len(m.grams[n]))
	}
	for n := range 3 {
		fmt.Fprintf(bw, "\n\\%d-grams:\n", n+1)
		for _, g := range slices.Sorted(maps.Keys(m.grams[n])) {
			e := m.grams[n][g]
			if n < 2 && e.backoff != 0 {
				fmt.Fprintf(bw, "%.5f\t%s\t%.5f\n", e.prob, g, e.backoff)
			} else {
				fmt.Fprintf(bw, "%.5f\t%s\n", e.prob, g)
			}
		}
	}
	fmt.Fprintf(bw, "\n\\end\\\n")
	return bw.Flush()
}
