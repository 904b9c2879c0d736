package paraphrase

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// Sampling limits.
const (
	// maxVocabDepth bounds how deep vocabulary references may nest while
	// sampling; deeper is a cycle or close enough to one.
	maxVocabDepth = 8
	// slotOpen and slotClose bracket a slot marker in rendered text. They
	// are control characters, which Normalize never keeps, so no literal
	// text can forge one.
	slotOpen  = '\x01'
	slotClose = '\x02'
)

// token is one word of a sample: literal text, or the slot it fills.
type token struct {
	text string // normalised word; "" for a slot marker
	slot string // slot name, "" for a literal word
	typ  string // slot type, for a marker
}

// skeleton is a sample whose slots are still markers.
type skeleton []token

// grammar holds one intent's parsed templates and what fills its slots.
type grammar struct {
	lines     [][]elem
	vocab     map[string][][]elem // vocabulary → its parsed templates
	entities  map[string][][]elem // slot → parsed value templates
	blacklist map[string][][]elem // slot → parsed templates of values that never fill it
	types     map[string]string   // slot → type, from SlotTypes and {type:name}
}

func newGrammar(in Intent) (*grammar, error) {
	g := &grammar{vocab: map[string][][]elem{}, entities: map[string][][]elem{}, blacklist: map[string][][]elem{},
		types: map[string]string{}}
	for name, ts := range in.Vocab {
		for _, t := range ts {
			seq, err := parseTemplate(t)
			if err != nil {
				return nil, fmt.Errorf("vocabulary <%s>: %w", name, err)
			}
			g.vocab[name] = append(g.vocab[name], seq)
		}
	}
	for slot, ts := range in.Entities {
		for _, t := range ts {
			seq, err := parseTemplate(t)
			if err != nil {
				return nil, fmt.Errorf("entity of {%s}: %w", slot, err)
			}
			g.entities[slot] = append(g.entities[slot], seq)
		}
	}
	for slot, ts := range in.SlotBlacklist {
		for _, t := range ts {
			seq, err := parseTemplate(t)
			if err != nil {
				return nil, fmt.Errorf("blacklist of {%s}: %w", slot, err)
			}
			g.blacklist[slot] = append(g.blacklist[slot], seq)
		}
	}
	for k, v := range in.SlotTypes {
		g.types[k] = v
	}
	for _, t := range in.Templates {
		seq, err := parseTemplate(t)
		if err != nil {
			return nil, err
		}
		g.lines = append(g.lines, seq)
		walkSlots(seq, func(e elem) {
			if e.typ != "" && g.types[e.name] == "" {
				g.types[e.name] = e.typ
			}
		})
	}
	if len(g.lines) == 0 {
		return nil, fmt.Errorf("no templates")
	}
	return g, nil
}

func walkSlots(seq []elem, fn func(elem)) {
	for _, e := range seq {
		switch e.kind {
		case kSlot:
			fn(e)
		case kGroup:
			for _, b := range e.branches {
				walkSlots(b, fn)
			}
		}
	}
}

// count returns how many strings seq expands to, saturating just above
// limit; a vocabulary it cannot resolve counts as one.
func (g *grammar) count(seq []elem, limit, depth int) int {
	total := 1
	for _, e := range seq {
		c := 1
		switch e.kind {
		case kVocab:
			c = 0
			if depth < maxVocabDepth {
				for _, v := range g.vocab[e.name] {
					c += g.count(v, limit, depth+1)
					if c > limit {
						break
					}
				}
			}
			c = max(c, 1)
		case kGroup:
			c = 0
			for _, b := range e.branches {
				c += g.count(b, limit, depth)
				if c > limit {
					break
				}
			}
		}
		if c > limit || total > limit/max(c, 1) {
			return limit + 1
		}
		total *= c
	}
	return total
}

// enumerate renders every expansion of seq; the caller has checked the
// count.
func (g *grammar) enumerate(seq []elem, depth int) []string {
	out := []string{""}
	for _, e := range seq {
		var alts []string
		switch e.kind {
		case kText:
			alts = []string{e.text}
		case kSlot:
			alts = []string{marker(e)}
		case kVocab:
			if depth < maxVocabDepth {
				for _, v := range g.vocab[e.name] {
					alts = append(alts, g.enumerate(v, depth+1)...)
				}
			}
		case kGroup:
			for _, b := range e.branches {
				alts = append(alts, g.enumerate(b, depth)...)
			}
		}
		if len(alts) == 0 {
			continue
		}
		next := make([]string, 0, len(out)*len(alts))
		for _, h := range out {
			for _, a := range alts {
				next = append(next, h+a)
			}
		}
		out = next
	}
	return out
}

// draw renders one random expansion of seq: each group takes one branch,
// uniformly.
func (g *grammar) draw(rng *rand.Rand, seq []elem, depth int, b *strings.Builder) {
	for _, e := range seq {
		switch e.kind {
		case kText:
			b.WriteString(e.text)
		case kSlot:
			b.WriteString(marker(e))
		case kVocab:
			if vs := g.vocab[e.name]; len(vs) > 0 && depth < maxVocabDepth {
				g.draw(rng, vs[rng.IntN(len(vs))], depth+1, b)
			}
		case kGroup:
			g.draw(rng, e.branches[rng.IntN(len(e.branches))], depth, b)
		}
	}
}

// articles open an open slot's value now and then: "do you like the rain".
var articles = []string{"the", "a", "some", "my"}

func marker(e elem) string {
	return " " + string(slotOpen) + e.name + ":" + e.typ + string(slotClose) + " "
}

// tokens splits rendered text into normalised words and slot markers.
func tokens(rendered string) skeleton {
	var out skeleton
	for _, f := range strings.Fields(rendered) {
		if f[0] == slotOpen && f[len(f)-1] == slotClose {
			name, typ, _ := strings.Cut(f[1:len(f)-1], ":")
			out = append(out, token{slot: name, typ: typ})
			continue
		}
		for _, w := range strings.Fields(intent.Normalize(f)) {
			out = append(out, token{text: w})
		}
	}
	return out
}

func (s skeleton) key() string {
	var b strings.Builder
	for _, t := range s {
		if t.slot != "" {
			b.WriteString("{" + t.slot + "}")
		} else {
			b.WriteString(t.text)
		}
		b.WriteByte(' ')
	}
	return b.String()
}

func (s skeleton) hasSlot() bool {
	return slices.ContainsFunc(s, func(t token) bool { return t.slot != "" })
}

// skeletons returns about budget distinct expansions of the template
// lines, slots left as markers. Each line gets a share of the budget by
// the square root of its size, so a line with many phrasings is sampled
// more without drowning the others; a line with no more expansions than
// its share is expanded whole, the rest drawn at random with the seeded
// rng. A huge template is never expanded whole.
func (g *grammar) skeletons(rng *rand.Rand, budget int) []skeleton {
	seen := map[string]bool{}
	var out []skeleton
	add := func(r string) bool {
		sk := tokens(r)
		if len(sk) == 0 {
			return false
		}
		k := sk.key()
		if seen[k] {
			return false
		}
		seen[k] = true
		out = append(out, sk)
		return true
	}
	counts := make([]int, len(g.lines))
	weights := make([]float64, len(g.lines))
	var total float64
	for i, line := range g.lines {
		counts[i] = g.count(line, budget, 0)
		weights[i] = math.Sqrt(float64(counts[i]))
		total += weights[i]
	}
	for i, line := range g.lines {
		share := max(int(math.Round(float64(budget)*weights[i]/total)), 4)
		if counts[i] <= share {
			for _, r := range g.enumerate(line, 0) {
				add(r)
			}
			continue
		}
		// Draws repeat; a few extra tries per wanted sample find most of
		// the distinct ones without any bound on the template's size.
		got := 0
		for try := 0; try < 4*share && got < share; try++ {
			var b strings.Builder
			g.draw(rng, line, 0, &b)
			if add(b.String()) {
				got++
			}
		}
	}
	return out
}

// fill returns a value for a slot: a value of its entity list, a spoken
// value of its type, or for an open slot a neutral phrase.
func (g *grammar) fill(rng *rand.Rand, lang *Language, t token) []string {
	typ := t.typ
	if typ == "" {
		typ = g.types[t.slot]
	}
	if typ == "" && len(lang.openWords) > 0 && rng.IntN(3) == 0 {
		// An untyped slot's list is a hint (GRM-15): any words may fill
		// it, everyday ones included, and they say nothing against the
		// intent.
		var out []string
		if rng.IntN(3) == 0 {
			out = append(out, articles[rng.IntN(len(articles))])
		}
		for range 1 + rng.IntN(2) {
			out = append(out, lang.openWords[rng.IntN(len(lang.openWords))])
		}
		return out
	}
	if es := g.entities[t.slot]; len(es) > 0 {
		var b strings.Builder
		g.draw(rng, es[rng.IntN(len(es))], 0, &b)
		if ws := strings.Fields(intent.Normalize(b.String())); len(ws) > 0 {
			for i, w := range ws {
				// A number is said in words and typed in digits.
				if v, ok := numberValue[w]; ok && rng.IntN(2) == 0 {
					ws[i] = strconv.Itoa(v)
				}
			}
			return ws
		}
	}
	if gen := lang.typed[typ]; len(gen) > 0 {
		return strings.Fields(gen[rng.IntN(len(gen))])
	}
	return strings.Fields(lang.openValues[rng.IntN(len(lang.openValues))])
}
