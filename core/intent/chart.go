package intent

import (
	"strings"
)

// A parse's score is a vector compared field by field, most significant
// first; it is packed into one int64 (fieldBits per field, signed
// contributions) so that comparing and adding stay one instruction.
// Every field is a count below 256 (utterances are at most MaxMatchWords
// words), so fields never carry into each other. From most to least significant:
//
//	lost     (relaxed alignment only) utterance words left unexplained and
//	         template words not said: fewer is better
//	unlisted words of values outside their slot's entity list or type
//	         (GRM-15: hints, not allow lists): fewer is better, so a parse
//	         that binds listed values beats one that binds other text
//	open     words of slots without a list or type (free text): fewer is
//	         better, so literal words beat a slot that swallows them
//	skip   filler words skipped ("please", "can you", "um"): fewer is better
//	tol    optional words missing or extra ("the", "my"): fewer is better
//	multi  words an entity value takes beyond its first: more is better, so
//	       a whole multi-word name ("bedroom lamp") beats covering part of
//	       it with literal words ("{area} lamp")
//	lit    literal words said: more is better
const (
	fieldBits       = 9
	wLit      int64 = 1
	wMulti    int64 = 1 << (1 * fieldBits)
	wTol      int64 = 1 << (2 * fieldBits)
	wSkip     int64 = 1 << (3 * fieldBits)
	wOpen     int64 = 1 << (4 * fieldBits)
	wUnlisted int64 = 1 << (5 * fieldBits)
	wLost     int64 = 1 << (6 * fieldBits)
	fieldMask int64 = 1<<fieldBits - 1
)

// Mask bits of a partial parse: bitLit once a whole literal word is taken
// (a parse needs one), and one bit per required slot bound (DEF-08).
// bitFree marks a slot's result whose value is free text or outside its
// list, and bitMissed a sequence whose last element was an optional word
// not said: a sequence refuses the two together.
const (
	bitLit    uint32 = 1
	bitMissed uint32 = 1 << 30
	bitFree   uint32 = 1 << 31
)

// Kinds of what a parse records besides its score: slot values, and the
// words skipped or missing, for explanations.
const (
	bindEntity   uint8 = iota + 1 // slot value from the slot's entity values
	bindTyped                     // slot value its type's parser reads
	bindUnlisted                  // value of a listed or typed slot that is neither
	bindOpen                      // value of a slot without list or type
	bindBlack                     // value the slot may not take: left unresolved (RES-06)
	bindSkip                      // filler words skipped
	bindMissing                   // optional template word not said
	bindExtra                     // relaxed: words nothing explains
	bindLost                      // relaxed: template word or slot not said
	bindPair                      // not a record: the records of left and right
)

// pres is one way a node matches from a position: where it ends, the mask
// and score of what it took, and its records (a list in chart.binds).
type pres struct {
	end   int32
	mask  uint32
	score int64
	bind  int32
}

// pcand is a pres whose records are still two lists to join, so only
// survivors are joined.
type pcand struct {
	end    int32
	mask   uint32
	score  int64
	lb, rb int32
}

// pbind is one record of a parse, or a pair of record sets: a parse's
// records are a tree in chart.binds, so joining two is one step.
type pbind struct {
	slot        *gslot
	word        string // bindMissing, bindLost: the template word
	from, to    int32  // utterance words
	kind        uint8
	left, right int32 // bindPair
}

type memoCell struct {
	gen      uint32
	off, cnt int32
}

type skipOpt struct {
	to   int32
	cost int64
	kind uint8 // bindSkip, or bindExtra when the words include some no lexicon skips; 0 for none
}

// chart matches one utterance against compiled templates: a memoised
// top-down parse over (node, position) that keeps, per end position and
// mask, the best-scoring way each node matches. Because the score is a
// sum and its order is lexicographic, the best parse of a sequence is made
// of its children's best parses, so nothing is ever enumerated: the work is
// bounded by nodes × positions², whatever the number of samples.
type chart struct {
	norm       string
	words      []string
	start, end []int
	n          int
	lex        *Lexicon
	relaxed    bool
	tp         typedParser

	skips   [][]skipOpt
	skipSet []bool
	memo    []memoCell
	maybe   []maybeCell
	gen     uint32
	res     []pres
	binds   []pbind
	scratch []pcand

	// ends caches where a slot's entity values (or blacklisted ones) can
	// end from each position, per definition (c.begin); typed where its
	// type's parser can.
	ends  []endsCell
	typed [2][]typedCell
	best  []int64 // scratch for skipFrom

	// Per word facts for the bound, and the words' ids per pool.
	wfill, wopt, wnum []bool
	wcov              []bool
	ids               [][]int32
	present           []bitset
	cands             []candidate
	groups            []group
	groupAt           map[*compiledIntent]int
	nparsed           int
	nevals, nadds     int
}

type endsCell struct {
	gen uint32
	set posSet
}

type typedCell struct {
	done bool
	set  posSet
}

// reset prepares the chart for one utterance (already normalised).
func (c *chart) reset(norm string, lex *Lexicon, lang string, relaxed bool) {
	c.norm = norm
	c.words = c.words[:0]
	c.start, c.end = c.start[:0], c.end[:0]
	if norm != "" {
		off := 0
		for _, w := range strings.Split(norm, " ") {
			c.words = append(c.words, w)
			c.start = append(c.start, off)
			c.end = append(c.end, off+len(w))
			off += len(w) + 1
		}
	}
	c.n = len(c.words)
	c.lex = lex
	c.relaxed = relaxed
	c.tp = typedParser{words: c.words, english: strings.HasPrefix(lang, "en")}
	if cap(c.skips) < c.n+1 {
		c.skips = make([][]skipOpt, c.n+1)
		c.skipSet = make([]bool, c.n+1)
	}
	c.skips, c.skipSet = c.skips[:c.n+1], c.skipSet[:c.n+1]
	clear(c.skipSet)
	c.res, c.binds = c.res[:0], c.binds[:0]
	c.wordKinds()
	for i := range c.typed {
		c.typed[i] = resize(c.typed[i], c.n+1)
	}
}

// begin starts matching one definition's graph, whose node ids run below
// nodes: memo cells of earlier definitions are left stale by the new
// generation rather than cleared.
func (c *chart) begin(nodes int32) {
	size := int(nodes) * (c.n + 1)
	if len(c.memo) < size || len(c.maybe) < int(nodes) || len(c.ends) < 2*size {
		c.memo = make([]memoCell, size+size/2)
		c.maybe = make([]maybeCell, int(nodes)+int(nodes)/2)
		c.ends = make([]endsCell, 2*size+size)
		c.gen = 0
	}
	c.gen++
	if c.gen == 0 {
		clear(c.memo)
		clear(c.maybe)
		clear(c.ends)
		c.gen = 1
	}
}

// skipFrom returns the positions reachable from p by skipping words the
// language's lexicon allows to skip: filler phrases (at the skip cost) and
// optional words said but not in the template (at the tolerance cost).
// Relaxed, any word may be skipped at the lost cost. p itself comes
// first, at no cost.
func (c *chart) skipFrom(p int) []skipOpt {
	if c.skipSet[p] {
		return c.skips[p]
	}
	c.skipSet[p] = true
	opts := append(c.skips[p][:0], skipOpt{to: int32(p)})
	if c.lex == nil && !c.relaxed {
		c.skips[p] = opts
		return opts
	}
	if !c.relaxed && (p == c.n || !c.wfill[p] && !c.wopt[p]) {
		c.skips[p] = opts // nothing to skip here: the common case
		return opts
	}
	const none = int64(-1) << 62
	c.best = resize(c.best, c.n+1)
	best := c.best
	for i := range best {
		best[i] = none
	}
	best[p] = 0
	for q := p; q < c.n; q++ {
		if best[q] == none {
			continue
		}
		relax := func(to int, cost int64) {
			if v := best[q] + cost; v > best[to] {
				best[to] = v
			}
		}
		if c.lex != nil {
			w := c.words[q]
			for _, ph := range c.lex.fillers[w] {
				if q+len(ph) <= c.n && equalWords(c.words[q:q+len(ph)], ph) {
					relax(q+len(ph), -wSkip*int64(len(ph)))
				}
			}
			if c.lex.optional[w] {
				relax(q+1, -wTol)
			}
		}
		if c.relaxed {
			relax(q+1, -wLost)
		}
	}
	for q := p + 1; q <= c.n; q++ {
		if best[q] != none {
			kind := bindSkip
			if rankOf(best[q]).Lost > 0 {
				kind = bindExtra
			}
			opts = append(opts, skipOpt{to: int32(q), cost: best[q], kind: kind})
		}
	}
	c.skips[p] = opts
	return opts
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// add keeps the best candidate per (end, mask) among scratch[mark:]; the
// first of equals stays, so results never depend on anything but the
// graph's order.
func (c *chart) add(mark int, x pcand) {
	c.nadds++
	for i := mark; i < len(c.scratch); i++ {
		if c.scratch[i].end == x.end && c.scratch[i].mask == x.mask {
			if x.score > c.scratch[i].score {
				c.scratch[i] = x
			}
			return
		}
	}
	c.scratch = append(c.scratch, x)
}

// record adds a record to the set list (-1: none) and returns the new set.
func (c *chart) record(b pbind, list int32) int32 {
	c.binds = append(c.binds, b)
	return c.join(int32(len(c.binds)-1), list)
}

// join returns the set holding the records of both sets.
func (c *chart) join(l, r int32) int32 {
	if r < 0 {
		return l
	}
	if l < 0 {
		return r
	}
	c.binds = append(c.binds, pbind{kind: bindPair, left: l, right: r})
	return int32(len(c.binds) - 1)
}

// skipRecord records skipped words, when they are worth a record.
func (c *chart) skipRecord(o skipOpt, from int, list int32) int32 {
	if o.kind == 0 {
		return list
	}
	return c.record(pbind{kind: o.kind, from: int32(from), to: o.to}, list)
}

// eval returns every best way g matches from p.
func (c *chart) eval(g *gnode, p int) []pres {
	idx := int(g.id)*(c.n+1) + p
	if cell := c.memo[idx]; cell.gen == c.gen {
		return c.res[cell.off : cell.off+cell.cnt]
	}
	mark := len(c.scratch)
	c.nevals++
	switch g.kind {
	case gWord:
		c.evalWord(g, p)
	case gTrie:
		c.evalTrie(g, p)
	case gSlot:
		c.evalSlot(g, p)
	case gAlt:
		for _, k := range g.kids {
			for _, r := range c.eval(k, p) {
				c.add(mark, pcand{r.end, r.mask, r.score, -1, r.bind})
			}
		}
		if g.null {
			c.add(mark, pcand{end: int32(p), lb: -1, rb: -1})
		}
	case gSeq:
		return c.evalSeq(g, p, idx)
	}
	return c.store(idx, mark)
}

// store moves the candidates above mark in scratch into the result slab as
// the memoised answer for idx.
func (c *chart) store(idx, mark int) []pres {
	off := len(c.res)
	for _, x := range c.scratch[mark:] {
		c.res = append(c.res, pres{end: x.end, mask: x.mask, score: x.score, bind: c.join(x.lb, x.rb)})
	}
	c.scratch = c.scratch[:mark]
	c.memo[idx] = memoCell{gen: c.gen, off: int32(off), cnt: int32(len(c.res) - off)}
	return c.res[off:]
}

func (c *chart) evalSeq(g *gnode, p, idx int) []pres {
	mark := len(c.scratch)
	c.scratch = append(c.scratch, pcand{end: int32(p), lb: -1, rb: -1})
	front := mark // candidates of the prefix so far: scratch[front:]
	rest := g.minW
	for _, k := range g.kids {
		rest -= k.minW
		next := len(c.scratch)
		for i := front; i < next; i++ {
			f := c.scratch[i]
			if int(f.end)+k.minW+rest > c.n && !c.relaxed {
				continue // the remaining children cannot fit
			}
			if k.kind == gWord && !c.relaxed {
				// Inline: a literal word is the commonest child, and too
				// cheap to memoise.
				pos := int(f.end)
				for _, o := range c.skipFrom(pos) {
					if q := int(o.to); q < c.n && c.words[q] == k.word {
						c.add(next, pcand{int32(q + 1), f.mask&^bitMissed | bitLit, f.score + o.cost + wLit, c.join(f.lb, f.rb), c.skipRecord(o, pos, -1)})
					}
				}
				if k.opt {
					c.add(next, pcand{int32(pos), f.mask | bitMissed, f.score - wTol, c.join(f.lb, f.rb),
						c.record(pbind{kind: bindMissing, word: k.word, from: int32(pos), to: int32(pos)}, -1)})
				}
				continue
			}
			// Joined now: the prefix's own records are needed below.
			fb := c.join(f.lb, f.rb)
			for _, r := range c.eval(k, int(f.end)) {
				if f.mask&bitMissed != 0 && r.mask&bitFree != 0 {
					// A word that introduces free text must be said:
					// "timer for {duration}" is not "timer app is broken".
					continue
				}
				c.add(next, pcand{r.end, f.mask&^bitMissed | r.mask&^bitFree, f.score + r.score, fb, r.bind})
			}
		}
		n := copy(c.scratch[mark:], c.scratch[next:])
		c.scratch = c.scratch[:mark+n]
		front = mark
		if n == 0 {
			break
		}
	}
	return c.store(idx, mark)
}

func (c *chart) evalWord(g *gnode, p int) {
	mark := len(c.scratch)
	for _, o := range c.skipFrom(p) {
		q := int(o.to)
		if q < c.n && c.words[q] == g.word {
			c.add(mark, pcand{int32(q + 1), bitLit, o.cost + wLit, -1, c.skipRecord(o, p, -1)})
		}
	}
	switch {
	case g.opt:
		c.add(mark, pcand{int32(p), bitMissed, -wTol, -1, c.record(pbind{kind: bindMissing, word: g.word, from: int32(p), to: int32(p)}, -1)})
	case c.relaxed:
		c.add(mark, pcand{int32(p), 0, -wLost, -1, c.record(pbind{kind: bindLost, word: g.word, from: int32(p), to: int32(p)}, -1)})
	}
}

func (c *chart) evalTrie(g *gnode, p int) {
	mark := len(c.scratch)
	for _, o := range c.skipFrom(p) {
		q := int(o.to)
		t := g.trie
		for i := q; i < c.n; i++ {
			t = t.next[c.words[i]]
			if t == nil {
				break
			}
			if t.end {
				c.add(mark, pcand{int32(i + 1), bitLit, o.cost + wLit*int64(i+1-q), -1, c.skipRecord(o, p, -1)})
			}
		}
	}
	switch {
	case g.null:
		c.add(mark, pcand{end: int32(p), lb: -1, rb: -1})
	case g.opt:
		c.add(mark, pcand{int32(p), bitMissed, -wTol, -1, c.record(pbind{kind: bindMissing, word: g.word, from: int32(p), to: int32(p)}, -1)})
	case c.relaxed:
		c.add(mark, pcand{int32(p), 0, -wLost, -1, c.record(pbind{kind: bindLost, word: g.phrases[0], from: int32(p), to: int32(p)}, -1)})
	}
}

func (c *chart) evalSlot(g *gnode, p int) {
	mark := len(c.scratch)
	s := g.slot
	info := s.info
	for _, o := range c.skipFrom(p) {
		q := int(o.to)
		if q >= c.n {
			continue
		}
		if s.prefix != "" && !strings.HasPrefix(c.words[q], s.prefix) {
			continue
		}
		for e := q + 1; e <= c.n; e++ {
			kind, ok := c.classify(s, q, e)
			if !ok {
				continue
			}
			if q > p && p > 0 && (kind == bindOpen || kind == bindUnlisted) && !c.relaxed {
				// Free text starts where the words before it end: "play
				// just the way you are" is not "just" skipped. Only at the
				// start of the utterance may fillers go before it.
				continue
			}
			score, mask := o.cost, info.bit
			switch kind {
			case bindEntity:
				score += wMulti * int64(e-q-1)
			case bindTyped:
			case bindUnlisted:
				score -= wUnlisted * int64(e-q)
				mask |= bitFree
				if c.relaxed {
					// Aligning, words outside a list are as unexplained
					// as words left over: the slot gets a listed value
					// when one is there.
					score -= wLost * int64(e-q)
				}
			case bindOpen:
				score -= wOpen * int64(e-q)
				mask |= bitFree
			case bindBlack:
				score -= wUnlisted * int64(e-q)
				mask = bitFree // unresolved: it cannot satisfy a required slot
			}
			list := c.record(pbind{kind: kind, slot: s, from: int32(q), to: int32(e)}, c.skipRecord(o, p, -1))
			c.add(mark, pcand{int32(e), mask, score, -1, list})
		}
	}
	if c.relaxed {
		c.add(mark, pcand{int32(p), 0, -wLost, -1, c.record(pbind{kind: bindLost, slot: s, from: int32(p), to: int32(p)}, -1)})
	}
}

// classify says what kind of value words[q:e] are for slot s, and false
// when they cannot be its value (glued text missing, nothing left).
func (c *chart) classify(s *gslot, q, e int) (uint8, bool) {
	info := s.info
	if s.prefix == "" && s.suffix == "" {
		switch {
		case info.black != nil && c.strictEnds(info.black, 1, q).has(e):
			return bindBlack, true
		case info.ent != nil && c.strictEnds(info.ent, 0, q).has(e):
			return bindEntity, true
		case info.typ != "" && c.typedEnds(info.typ, q).has(e):
			return bindTyped, true
		}
		return info.freeKind(), true
	}
	value, ok := c.value(s, q, e)
	if !ok {
		return 0, false
	}
	words := strings.Split(value, " ")
	switch {
	case info.black != nil && strictEnds(info.black, words, 0).has(len(words)):
		return bindBlack, true
	case info.ent != nil && strictEnds(info.ent, words, 0).has(len(words)):
		return bindEntity, true
	}
	return info.freeKind(), true
}

// value returns the slot text for words[q:e] with the slot's glued text
// removed, and false if the words do not carry it or nothing is left.
func (c *chart) value(s *gslot, q, e int) (string, bool) {
	first, last := c.words[q], c.words[e-1]
	if !strings.HasPrefix(first, s.prefix) || !strings.HasSuffix(last, s.suffix) {
		return "", false
	}
	from, to := c.start[q]+len(s.prefix), c.end[e-1]-len(s.suffix)
	if to <= from || (q == e-1 && len(first) <= len(s.prefix)+len(s.suffix)) {
		return "", false
	}
	v := c.norm[from:to]
	if strings.HasPrefix(v, " ") || strings.HasSuffix(v, " ") {
		return "", false
	}
	return v, true
}

// strictEnds caches strictEnds of an entity (which 0) or slot blacklist
// (which 1) graph from p in the utterance, for the definition being
// matched.
func (c *chart) strictEnds(g *gnode, which, p int) posSet {
	i := (2*int(g.id)+which)*(c.n+1) + p
	if cell := c.ends[i]; cell.gen == c.gen {
		return cell.set
	}
	s := strictEnds(g, c.words, p)
	c.ends[i] = endsCell{gen: c.gen, set: s}
	return s
}

func (c *chart) typedEnds(typ string, p int) posSet {
	k := 0
	if typ == "duration" {
		k = 1
	} else if typ != "number" {
		return posSet{}
	}
	cell := &c.typed[k][p]
	if !cell.done {
		if k == 0 {
			cell.set = c.tp.numberEnds(p)
		} else {
			cell.set = c.tp.durationEnds(p)
		}
		cell.done = true
	}
	return cell.set
}

// strictEnds returns where g, matched exactly (no skipping, no tolerance),
// can end when it starts at p in words. Entity values and blacklists are
// word lists or small templates, so it is not memoised.
func strictEnds(g *gnode, words []string, p int) posSet {
	var out posSet
	switch g.kind {
	case gWord:
		if p < len(words) && words[p] == g.word {
			out.add(p + 1)
		}
	case gTrie:
		if g.null {
			out.add(p)
		}
		t := g.trie
		for i := p; i < len(words); i++ {
			if t = t.next[words[i]]; t == nil {
				break
			}
			if t.end {
				out.add(i + 1)
			}
		}
	case gAlt:
		if g.null {
			out.add(p)
		}
		for _, k := range g.kids {
			out.union(strictEnds(k, words, p))
		}
	case gSeq:
		var front posSet
		front.add(p)
		for _, k := range g.kids {
			var next posSet
			for i := 0; i <= len(words); i++ {
				if front.has(i) {
					next.union(strictEnds(k, words, i))
				}
			}
			front = next
			if front.empty() {
				break
			}
		}
		out = front
	}
	return out
}

// freeKind is the kind of a value neither listed nor typed: unlisted for
// a slot with a list or a parsed type, open for a free-text slot.
func (s *slotInfo) freeKind() uint8 {
	if s.ent != nil || s.parsedType() {
		return bindUnlisted
	}
	return bindOpen
}

// parsedType reports whether the engine reads the slot's type itself
// (typedEnds): its parser then says what is a value of the slot.
func (s *slotInfo) parsedType() bool { return parsedTypeName(s.typ) }

// parsedTypeName reports whether typ is a slot type the engine parses
// itself (number, duration).
func parsedTypeName(typ string) bool { return typ == "number" || typ == "duration" }

// resize returns s with length n, zeroed, reusing its storage.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
