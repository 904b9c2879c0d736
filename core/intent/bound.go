package intent

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// Before a template is parsed, a cheap optimistic bound on its score says
// whether it can do better than what was already found: each utterance
// word contributes the best it could be to the template (a literal word
// of it, a word of one of its slots' entity values, a typed value, free or
// unlisted slot text, a skipped filler or optional word), and a word it
// can be none of rules the template out. Templates are parsed best bound
// first and the search stops once no bound can reach the results kept.
// Words are numbered per scope, so the per-word tests are bit tests.

// summary is what the bound needs to know about one template.
type summary struct {
	lits []string // literal words on any path
	// ents are its slots with entity values, whose words the template
	// may take (slotInfo.entWords, entRest).
	ents    []*slotInfo
	free    bool // has a slot without entity values or a parsed type
	anySlot bool
	numeric bool // has a number or duration slot
	// first and last are the words a sample can start and end with;
	// firstSlot and lastSlot say a sample can start or end with a slot,
	// which takes any word.
	first, last         []string
	firstSlot, lastSlot bool
}

// edge is the set of words a node's samples can start (or end) with.
type edge struct {
	words map[string]bool
	slot  bool // a slot can be there
	null  bool // the node can take no words
}

// edgeOf computes the start (last false) or end (last true) words of g.
func edgeOf(g *gnode, last bool, memo map[*gnode]*edge) *edge {
	if e, ok := memo[g]; ok {
		return e
	}
	e := &edge{words: map[string]bool{}}
	switch g.kind {
	case gWord:
		e.words[g.word] = true
		e.null = g.opt
	case gTrie:
		e.null = g.null || g.opt
		if last {
			for _, w := range g.last {
				e.words[w] = true
			}
		} else {
			for w := range g.trie.next {
				e.words[w] = true
			}
		}
	case gSlot:
		e.slot = true
	case gAlt:
		e.null = g.null
		for _, k := range g.kids {
			ke := edgeOf(k, last, memo)
			for w := range ke.words {
				e.words[w] = true
			}
			e.slot = e.slot || ke.slot
			e.null = e.null || ke.null
		}
	case gSeq:
		e.null = true
		for i := range g.kids {
			k := g.kids[i]
			if last {
				k = g.kids[len(g.kids)-1-i]
			}
			ke := edgeOf(k, last, memo)
			for w := range ke.words {
				e.words[w] = true
			}
			e.slot = e.slot || ke.slot
			if !ke.null {
				e.null = false
				break
			}
		}
	}
	memo[g] = e
	return e
}

// edgeMemo keeps the start and end words of nodes shared by the templates
// of one definition.
type edgeMemo struct{ first, last map[*gnode]*edge }

func newEdgeMemo() *edgeMemo {
	return &edgeMemo{first: map[*gnode]*edge{}, last: map[*gnode]*edge{}}
}

// summarize collects a template's summary after its slots' entity values
// and types are known.
func summarize(root *gnode, em *edgeMemo) summary {
	var s summary
	seen := map[*gnode]bool{}
	lits := map[string]bool{}
	slots := map[*slotInfo]bool{}
	var walk func(g *gnode)
	walk = func(g *gnode) {
		if seen[g] {
			return
		}
		seen[g] = true
		switch g.kind {
		case gWord:
			lits[g.word] = true
		case gTrie:
			for _, w := range g.words {
				lits[w] = true
			}
		case gSlot:
			slots[g.slot.info] = true
		}
		for _, k := range g.kids {
			walk(k)
		}
	}
	walk(root)
	for info := range slots {
		s.anySlot = true
		switch {
		case parsedTypeName(info.typ):
			s.numeric = true
		case info.ent == nil:
			s.free = true
		}
		info.summarize()
		if len(info.entWords) > 0 {
			s.ents = append(s.ents, info)
		}
	}
	s.lits = sortedKeys(lits)
	fe, le := edgeOf(root, false, em.first), edgeOf(root, true, em.last)
	s.firstSlot, s.lastSlot = fe.slot, le.slot
	s.first = sortedKeys(fe.words)
	s.last = sortedKeys(le.words)
	return s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// summarize works out the slot's entity words once: every template that
// uses the slot shares them.
func (info *slotInfo) summarize() {
	if info.summarized {
		return
	}
	info.summarized = true
	if info.ent == nil {
		return
	}
	words := map[string]bool{}
	graphWords(info.ent, words, map[*gnode]bool{})
	info.entWords = sortedKeys(words)
	rest := map[string]bool{}
	entityRest(info.ent, rest)
	info.entRest = sortedKeys(rest)
}

// entityRest adds the words of an entity graph that may follow another of
// its words: those after the first of each phrase when the graph is a word
// list (a trie or one word), the common case; otherwise every word of it.
func entityRest(g *gnode, into map[string]bool) {
	switch g.kind {
	case gTrie:
		for _, p := range g.phrases {
			if i := strings.IndexByte(p, ' '); i >= 0 {
				for _, w := range strings.Fields(p[i+1:]) {
					into[w] = true
				}
			}
		}
	case gWord:
	default:
		graphWords(g, into, map[*gnode]bool{})
	}
}

func graphWords(g *gnode, into map[string]bool, seen map[*gnode]bool) {
	if seen[g] {
		return
	}
	seen[g] = true
	switch g.kind {
	case gWord:
		into[g.word] = true
	case gTrie:
		for _, w := range g.words {
			into[w] = true
		}
	}
	for _, k := range g.kids {
		graphWords(k, into, seen)
	}
}

// bitset is a set of word ids.
type bitset []uint64

func (b bitset) has(id int32) bool {
	i := int(id) >> 6
	return id >= 0 && i < len(b) && b[i]&(1<<(uint(id)&63)) != 0
}

func (b *bitset) set(id int32) {
	i := int(id) >> 6
	for len(*b) <= i {
		*b = append(*b, 0)
	}
	(*b)[i] |= 1 << (uint(id) & 63)
}

// wordID returns the scope's id of w, adding it.
func (s *scopeIndex) wordID(w string) int32 {
	if id, ok := s.dict[w]; ok {
		return id
	}
	id := int32(len(s.dict))
	s.dict[w] = id
	return id
}

// encode numbers a template's words in the scope's dictionary.
func (s *scopeIndex) encode(t *ctemplate) {
	t.litBits, t.entBits, t.restBits = nil, nil, nil
	for _, w := range t.sum.lits {
		t.litBits.set(s.wordID(w))
	}
	for _, info := range t.sum.ents {
		for _, w := range info.entWords {
			t.entBits.set(s.wordID(w))
		}
		for _, w := range info.entRest {
			t.restBits.set(s.wordID(w))
		}
	}
	t.firstBits, t.lastBits = nil, nil
	for _, w := range t.sum.first {
		t.firstBits.set(s.wordID(w))
	}
	for _, w := range t.sum.last {
		t.lastBits.set(s.wordID(w))
	}
	t.clauseIDs = t.clauseIDs[:0]
	for _, cl := range t.clauses {
		ids := make([]int32, len(cl))
		for i, w := range cl {
			ids[i] = s.wordID(w)
		}
		t.clauseIDs = append(t.clauseIDs, ids)
	}
	t.anchorIDs = nil
	for _, w := range t.anchor {
		t.anchorIDs = append(t.anchorIDs, s.wordID(w))
	}
}

// compact renumbers the dictionary when removals have left it mostly
// unused, so a scope's memory follows what is registered.
func (s *scopeIndex) compact() {
	live := 0
	for _, c := range s.intents {
		for _, t := range c.templates {
			live += len(t.sum.lits)
			for _, info := range t.sum.ents {
				live += len(info.entWords)
			}
		}
	}
	if len(s.dict) <= 1024 || len(s.dict) <= 2*live {
		return
	}
	s.dict = map[string]int32{}
	for _, c := range s.intents {
		for _, t := range c.templates {
			s.encode(t)
		}
	}
}

// numericWords may be part of a number or duration a typed slot reads.
var numericWords = map[string]bool{"a": true, "an": true, "and": true, "half": true, "quarter": true, "quarters": true,
	"percent": true, "per": true, "cent": true, "of": true, "couple": true, "dozen": true}

func isNumericWord(w string) bool {
	if _, ok := digits(w); ok {
		return true
	}
	return numericVocabulary()[w]
}

// numericVocabulary is every word isNumericWord knows, in one map: one
// lookup per utterance word instead of six.
var numericVocabulary = sync.OnceValue(func() map[string]bool {
	out := maps.Clone(numericWords)
	for _, m := range []map[string]float64{numberWords, tensWords, scaleWords, ordinalWords, durationUnits} {
		for w := range m {
			out[w] = true
		}
	}
	return out
})

// noBound marks a template the utterance cannot match.
const noBound = math.MinInt64

// wordKinds are per utterance word facts that do not depend on the
// template: whether it may be skipped as a filler or optional word, and
// whether a typed slot could read it.
func (c *chart) wordKinds() {
	n := c.n
	c.wfill, c.wopt, c.wnum = resize(c.wfill, n), resize(c.wopt, n), resize(c.wnum, n)
	for i, w := range c.words {
		c.wnum[i] = isNumericWord(w)
		if c.lex == nil {
			continue
		}
		c.wopt[i] = c.lex.optional[w]
		for _, ph := range c.lex.fillers[w] {
			if i+len(ph) <= n && equalWords(c.words[i:i+len(ph)], ph) {
				for k := i; k < i+len(ph); k++ {
					c.wfill[k] = true
				}
			}
		}
	}
}

// edges reports whether the utterance can start and end as template t's
// samples can, once the fillers and optional words around it are skipped.
func (c *chart) edges(t *ctemplate, ids []int32) bool {
	if !t.sum.firstSlot {
		ok := false
		for i := 0; i < c.n && !ok; i++ {
			ok = t.firstBits.has(ids[i])
			if !c.wfill[i] && !c.wopt[i] {
				break
			}
		}
		if !ok {
			return false
		}
	}
	if !t.sum.lastSlot {
		ok := false
		for i := c.n - 1; i >= 0 && !ok; i-- {
			ok = t.lastBits.has(ids[i])
			if !c.wfill[i] && !c.wopt[i] {
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// bound is the optimistic score of template t for the utterance whose
// words have the scope ids ids; noBound when some word can be nothing in
// it.
func (c *chart) bound(t *ctemplate, ids []int32) int64 {
	var total int64
	s := &t.sum
	for i, id := range ids {
		best := int64(noBound)
		take := func(v int64) {
			if v > best {
				best = v
			}
		}
		switch {
		case t.restBits.has(id):
			take(wMulti)
		case t.entBits.has(id):
			take(0)
		}
		if t.litBits.has(id) {
			take(wLit)
		}
		if s.numeric && c.wnum[i] {
			take(0)
		}
		switch {
		case s.free:
			take(-wOpen)
		case s.anySlot:
			take(-wUnlisted)
		}
		// A skipped word needs something after it that is not free text
		// (skip words never open it): a literal, a listed or typed value, a
		// further skip word, or the end.
		canSkip := i == 0 || i+1 == len(ids) || t.litBits.has(ids[i+1]) || t.entBits.has(ids[i+1]) ||
			(s.numeric && c.wnum[i+1]) || c.wfill[i+1] || c.wopt[i+1]
		if canSkip && c.wfill[i] {
			take(-wSkip)
		}
		if canSkip && c.wopt[i] {
			take(-wTol)
		}
		if best == noBound {
			return noBound
		}
		total += best
	}
	return total
}

// possible reports whether every literal word some path of g needs is said
// somewhere in the utterance, order aside: a cheap test that rules out most
// templates whose choices the clauses summarise too coarsely. Memoised per
// node for the definition being matched (c.begin).
func (c *chart) possible(g *gnode, present bitset, dict map[string]int32) bool {
	if int(g.id) < len(c.maybe) && c.maybe[g.id].gen == c.gen {
		return c.maybe[g.id].ok
	}
	ok := true
	switch g.kind {
	case gWord:
		ok = g.opt || c.says(g.word, present, dict)
	case gTrie:
		ok = g.null || g.opt
		for _, w := range c.words {
			if ok {
				break
			}
			_, ok = g.trie.next[w]
		}
	case gSeq:
		for _, k := range g.kids {
			if !c.possible(k, present, dict) {
				ok = false
				break
			}
		}
	case gAlt:
		ok = g.null
		for _, k := range g.kids {
			if ok {
				break
			}
			ok = c.possible(k, present, dict)
		}
	}
	if int(g.id) < len(c.maybe) {
		c.maybe[g.id] = maybeCell{gen: c.gen, ok: ok}
	}
	return ok
}

type maybeCell struct {
	gen uint32
	ok  bool
}

// says reports whether the utterance has word w.
func (c *chart) says(w string, present bitset, dict map[string]int32) bool {
	id, ok := dict[w]
	return ok && present.has(id)
}
