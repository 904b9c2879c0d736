package intent

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/internal/sortx"
)

// Result is the engine's match of one intent for an utterance (DEF-11).
type Result struct {
	SkillID    string
	IntentName string
	Lang       string
	Utterance  string            // the normalised utterance that matched
	Slots      map[string]string // slot → surface text (GRM-14); never nil
	// Confidence estimates how likely the match is the intent the speaker
	// meant, in [0, 1]; see docs/intents.md for how it is calibrated.
	Confidence float64
	Why        string // how the match was made, for people
	Sample     string // the template that matched, as registered
	// Rank is the parse's score, field by field; results of one utterance
	// are ordered by it (see Rank.Compare).
	Rank Rank

	// Evidence counts the content words of the utterance the match rests
	// on: said as a literal word of the template, or inside an occurrence
	// of one of the keyword intent's phrases. Content words are those the
	// language's Lexicon does not list as filler, optional or function
	// words; without a lexicon every word is one.
	Evidence int
	// Unexplained counts the content words the match does not account for
	// at all. A keyword match leaves the words outside its phrases
	// unexplained; a template match accounts for every word (literal, slot
	// or skipped filler), so it leaves none.
	Unexplained int
	// Complete reports a template match with no open slot text and no
	// missing or extra optional word: every slot took a listed or typed
	// value and every word of the template was said.
	Complete bool

	// untyped counts the words of slots of a type the engine reads
	// (number, duration) that its parser does not read as one.
	untyped int

	words int    // utterance words
	notes []note // how a template parse was made, for Why
}

// Rank is a template parse's score (see chart for the order): counts of
// the utterance's words by how the parse took them.
type Rank struct {
	Lost      int // relaxed alignment only: words unexplained or template words not said
	Unlisted  int // words of values outside their slot's list or type (GRM-15)
	Open      int // words of free-text slots
	Skipped   int // filler words skipped
	Tolerated int // optional words missing or extra
	Multi     int // words entity values take beyond their first
	Literal   int // literal words said
}

// rankOf unpacks a packed score.
func rankOf(score int64) Rank {
	var f [7]int
	for k := range f {
		v := score & fieldMask
		if v >= 1<<(fieldBits-1) {
			v -= 1 << fieldBits
		}
		f[k] = int(v)
		score = (score - v) >> fieldBits
	}
	return Rank{Lost: -f[6], Unlisted: -f[5], Open: -f[4], Skipped: -f[3], Tolerated: -f[2], Multi: f[1], Literal: f[0]}
}

// Compare orders ranks best first: it is negative when r is better than o.
func (r Rank) Compare(o Rank) int {
	return cmp.Or(
		cmp.Compare(r.Lost, o.Lost),
		cmp.Compare(r.Unlisted, o.Unlisted),
		cmp.Compare(r.Open, o.Open),
		cmp.Compare(r.Skipped, o.Skipped),
		cmp.Compare(r.Tolerated, o.Tolerated),
		cmp.Compare(o.Multi, r.Multi),
		cmp.Compare(o.Literal, r.Literal),
	)
}

// Beats says, for people, the first field in which r is better than o,
// or "" when it is not better.
func (r Rank) Beats(o Rank) string {
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return strconv.Itoa(n) + " " + what + "s"
	}
	switch {
	case r.Lost != o.Lost:
		if r.Lost < o.Lost {
			return fmt.Sprintf("%s unaccounted for against %d", plural(r.Lost, "word"), o.Lost)
		}
	case r.Unlisted != o.Unlisted:
		if r.Unlisted < o.Unlisted {
			return fmt.Sprintf("%s outside its slot's values against %d: listed or typed values win (GRM-15)", plural(r.Unlisted, "word"), o.Unlisted)
		}
	case r.Open != o.Open:
		if r.Open < o.Open {
			return fmt.Sprintf("%s of free slot text against %d: literal words beat a slot that takes them", plural(r.Open, "word"), o.Open)
		}
	case r.Skipped != o.Skipped:
		if r.Skipped < o.Skipped {
			return fmt.Sprintf("%s skipped as fillers against %d", plural(r.Skipped, "word"), o.Skipped)
		}
	case r.Tolerated != o.Tolerated:
		if r.Tolerated < o.Tolerated {
			return fmt.Sprintf("%s missing or extra against %d", plural(r.Tolerated, "optional word"), o.Tolerated)
		}
	case r.Multi != o.Multi:
		if r.Multi > o.Multi {
			return fmt.Sprintf("entity values take %d more words together (a whole name beats covering part of it with literal words)", r.Multi-o.Multi)
		}
	case r.Literal != o.Literal:
		if r.Literal > o.Literal {
			return fmt.Sprintf("%s literal against %d", plural(r.Literal, "word"), o.Literal)
		}
	}
	return ""
}

// parsed is the best parse of one intent.
type parsed struct {
	c     *compiledIntent
	t     *ctemplate
	score int64
	bind  int32
}

// better orders parses of one utterance: score, then skill, intent and
// session ("default" first), so the winner never depends on map or
// registration order.
func (f *parsed) better(o *parsed) bool {
	if o == nil {
		return true
	}
	if f.score != o.score {
		return f.score > o.score
	}
	return tieBreak(f.c, o.c) < 0
}

func tieBreak(a, b *compiledIntent) int {
	return strings.Compare(a.order, b.order)
}

// orderKey sorts definitions by skill, intent and session, "default" first.
func orderKey(d TemplateIntent) string {
	rank := "1"
	if d.SessionID == DefaultSession {
		rank = "0"
	}
	return d.SkillID + "\x00" + d.IntentName + "\x00" + rank + d.SessionID
}

// Match returns the best enabled, unsuppressed intent for the utterance in
// the language, from the "default" scope and the session's own (REG-14),
// or nil. See Recognize.
func (e *TemplateEngine) Match(utterance, lang, sessionID string) *Result {
	rs := e.Recognize(utterance, lang, sessionID, 1)
	if len(rs) == 0 {
		return nil
	}
	return rs[0]
}

// Recognize matches the utterance (normalised first, see Normalize)
// against every enabled, unsuppressed template intent of the "default"
// scope and the session's own (REG-14) and returns the best parse of each
// intent that matches, best first, at most limit of them (all when limit
// <= 0). A template matches when every utterance word is taken by one of
// its literal words, by one of its slots (one or more words each, GRM-14),
// or is a filler the language's lexicon lets the engine skip; optional
// words of the lexicon may also be missing or extra. Parses are ranked by
// Rank.Compare. Recognize is safe for concurrent use with itself and with
// registration changes.
func (e *TemplateEngine) Recognize(utterance, lang, sessionID string, limit int) []*Result {
	return e.recognize(utterance, lang, sessionID, limit, true, nil)
}

// recognize is Recognize for the intents keep keeps (all when nil);
// without explain, Why is left empty for the caller to write with explain
// when it needs it.
func (e *TemplateEngine) recognize(utterance, lang, sessionID string, limit int, explain bool, keep func(skill, intent string) bool) []*Result {
	norm := Normalize(utterance)
	if norm == "" {
		return nil
	}
	lang = strings.ToLower(lang)
	e.mu.RLock()
	defer e.mu.RUnlock()
	pools := e.pools(lang, sessionOrDefault(sessionID))
	if len(pools) == 0 {
		return nil
	}
	c := e.charts.Get().(*chart)
	defer e.charts.Put(c)
	c.reset(norm, lexiconFor(e.opts.Lexicons, lang), lang, false)
	if c.n > MaxMatchWords {
		e.log.Debug("utterance too long to match", "words", c.n, "limit", MaxMatchWords)
		return nil
	}
	all := e.parseAll(c, pools, limit, keep)
	out := make([]*Result, len(all))
	for i := range all {
		out[i] = c.result(&all[i], lang)
		if explain {
			out[i].Why = out[i].explain()
		}
	}
	return out
}

// pools returns the scopes an utterance of the session sees: "default" and
// the session's own (REG-14). e.mu must be held.
func (e *TemplateEngine) pools(lang, sessionID string) []*scopeIndex {
	pools := make([]*scopeIndex, 0, 2)
	if s := e.scopes[scopeKey{DefaultSession, lang}]; s != nil {
		pools = append(pools, s)
	}
	if s := e.scopes[scopeKey{sessionID, lang}]; s != nil && sessionID != DefaultSession {
		pools = append(pools, s)
	}
	return pools
}

// group is the candidate templates of one intent and their best bound.
type group struct {
	ci    *compiledIntent
	cands []candidate
	bound int64
}

// candidate is a template the utterance may match, with its bound.
type candidate struct {
	t     *ctemplate
	bound int64
	pool  int
}

// candidates returns the templates of the pools the utterance can match,
// with their bounds: enabled, short enough, a word of every clause said,
// and every utterance word something the template could take. e.mu must
// be held.
func (e *TemplateEngine) candidates(c *chart, pools []*scopeIndex) []candidate {
	out := c.cands[:0]
	defer func() { c.cands = out[:0] }()
	for pi, s := range pools {
		ids, present := c.lookup(pi, s)
		consider := func(t *ctemplate) {
			if !t.intent.enabled || t.minW > c.n || (t.slotted && c.n > e.opts.MaxUtteranceWords) {
				return
			}
			for _, cl := range t.clauseIDs {
				if !anyPresent(present, cl) {
					return
				}
			}
			if !c.edges(t, ids) {
				return
			}
			if b := c.bound(t, ids); b != noBound {
				out = append(out, candidate{t, b, pi})
			}
		}
		for i, w := range c.words {
			if ids[i] < 0 || slices.Contains(ids[:i], ids[i]) {
				continue
			}
			for _, t := range s.byWord[w] {
				// A template is held under every word of its anchor clause;
				// it is considered under the first of them said.
				if firstPresent(present, t.anchorIDs) == ids[i] {
					consider(t)
				}
			}
		}
		for _, t := range s.always {
			consider(t)
		}
	}
	return out
}

func anyPresent(present bitset, ids []int32) bool {
	for _, id := range ids {
		if present.has(id) {
			return true
		}
	}
	return false
}

func firstPresent(present bitset, ids []int32) int32 {
	for _, id := range ids {
		if present.has(id) {
			return id
		}
	}
	return -1
}

// lookup numbers the utterance's words in a pool's dictionary (-1 for a
// word it has not) and returns the ids and the set of them.
func (c *chart) lookup(pi int, s *scopeIndex) ([]int32, bitset) {
	for len(c.ids) <= pi {
		c.ids = append(c.ids, nil)
		c.present = append(c.present, nil)
	}
	ids := c.ids[pi][:0]
	present := c.present[pi][:0]
	for _, w := range c.words {
		id, ok := s.dict[w]
		if !ok {
			id = -1
		}
		ids = append(ids, id)
		if ok {
			present.set(id)
		}
	}
	c.ids[pi], c.present[pi] = ids, present
	return ids, present
}

// parseAll parses the utterance with the candidate templates and returns
// the best parse of each intent, best first: at most limit of them when
// limit > 0, in which case intents and templates whose bound cannot reach
// the results kept are never parsed. e.mu must be held.
func (e *TemplateEngine) parseAll(c *chart, pools []*scopeIndex, limit int, keep func(skill, intent string) bool) []parsed {
	cands := e.candidates(c, pools)
	// Templates grouped by intent, intents by their best template's bound
	// (names break ties, as better does), templates by bound within.
	groups := c.groups[:0]
	if c.groupAt == nil {
		c.groupAt = map[*compiledIntent]int{}
	}
	at := c.groupAt
	clear(at)
	for _, cd := range cands {
		gi, ok := at[cd.t.intent]
		if !ok {
			gi = len(groups)
			at[cd.t.intent] = gi
			// The chart keeps its groups' candidate lists from utterance
			// to utterance: reused, not allocated again.
			var reuse []candidate
			if gi < cap(groups) {
				reuse = groups[:gi+1][gi].cands[:0]
			}
			groups = append(groups, group{ci: cd.t.intent, bound: cd.bound, cands: reuse})
		}
		g := &groups[gi]
		g.cands = append(g.cands, cd)
		g.bound = max(g.bound, cd.bound)
	}
	c.groups = groups
	// Groups are taken best bound first, ties in the order better breaks
	// them; the search usually stops after a few, so they are picked one
	// by one rather than sorted.
	before := func(a, b *group) bool {
		if a.bound != b.bound {
			return a.bound > b.bound
		}
		return tieBreak(a.ci, b.ci) < 0
	}
	var top []parsed
	for n := range groups {
		next := n
		for k := n + 1; k < len(groups); k++ {
			if before(&groups[k], &groups[next]) {
				next = k
			}
		}
		groups[n], groups[next] = groups[next], groups[n]
		g := &groups[n]
		// A group whose bound is no better than the worst kept can at
		// best tie it and lose.
		if limit > 0 && len(top) >= limit && g.bound <= top[len(top)-1].score {
			break
		}
		ci := g.ci
		if (keep != nil && !keep(ci.def.SkillID, ci.def.IntentName)) || c.suppressed(ci) {
			continue
		}
		sortx.Func(g.cands, func(a, b candidate) int {
			return cmp.Or(cmp.Compare(b.bound, a.bound), cmp.Compare(a.t.index, b.t.index))
		})
		c.begin(ci.nodes)
		var best parsed
		ok := false
		for _, cd := range g.cands {
			// Likewise within: a later template can at best tie and lose.
			if ok && cd.bound <= best.score {
				break
			}
			if !c.possible(cd.t.root, c.present[cd.pool], pools[cd.pool].dict) {
				continue
			}
			c.nparsed++
			score, bind, whole := c.parse(cd.t.root, ci.need)
			if whole && (!ok || score > best.score || (score == best.score && cd.t.index < best.t.index)) {
				best, ok = parsed{c: ci, t: cd.t, score: score, bind: bind}, true
			}
		}
		if !ok {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, best, func(a, b parsed) int {
			if a.better(&b) {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, at, best)
		if limit > 0 && len(top) > limit {
			top = top[:limit]
		}
	}
	return top
}

// parse returns the best parse of the whole utterance by root whose mask
// holds need.
func (c *chart) parse(root *gnode, need uint32) (int64, int32, bool) {
	var bestScore int64
	bestBind := int32(-1)
	ok := false
	for _, r := range c.eval(root, 0) {
		if r.mask&need != need {
			continue
		}
		score, bind := r.score, r.bind
		if int(r.end) < c.n {
			tail := false
			for _, o := range c.skipFrom(int(r.end)) {
				if int(o.to) == c.n {
					score += o.cost
					bind = c.skipRecord(o, int(r.end), bind)
					tail = true
					break
				}
			}
			if !tail {
				continue
			}
		}
		if !ok || score > bestScore {
			bestScore, bestBind, ok = score, bind, true
		}
	}
	return bestScore, bestBind, ok
}

// suppressed reports whether a blacklist phrase of ci occurs in the
// utterance as a contiguous run of whole words (RES-06).
func (c *chart) suppressed(ci *compiledIntent) bool {
	if ci.blacklist == nil {
		return false
	}
	for p := 0; p < c.n; p++ {
		ends := strictEnds(ci.blacklist, c.words, p)
		for e := p + 1; e <= c.n; e++ {
			if ends.has(e) {
				return true
			}
		}
	}
	return false
}

// records returns a parse's records in utterance order.
func (c *chart) records(bind int32) []pbind {
	var out []pbind
	var walk func(i int32)
	walk = func(i int32) {
		switch {
		case i < 0:
		case c.binds[i].kind == bindPair:
			walk(c.binds[i].left)
			walk(c.binds[i].right)
		default:
			out = append(out, c.binds[i])
		}
	}
	walk(bind)
	sortx.StableFunc(out, func(a, b pbind) int { return cmp.Compare(a.from, b.from) })
	return out
}

// note is one thing a parse did, for its explanation: a slot's value,
// words skipped, a template word missing.
type note struct {
	kind       uint8
	name, text string // slot name or template word; the words concerned
	typ        string // a typed slot's type
}

// result turns a parse into a Result with its slot values; its
// explanation is written when Why is asked for (explain).
func (c *chart) result(f *parsed, lang string) *Result {
	rank := rankOf(f.score)
	r := &Result{SkillID: f.c.def.SkillID, IntentName: f.c.def.IntentName, Lang: lang, Utterance: c.norm,
		Slots: map[string]string{}, Sample: f.t.src, Rank: rank, words: c.n}
	// Every word is a literal, slot text or skipped; the content words
	// taken as literals or as listed or typed slot values are the parse's
	// evidence.
	covered := c.wcov[:0]
	covered = append(covered, make([]bool, c.n)...)
	c.wcov = covered
	for _, b := range c.records(f.bind) {
		if b.kind != bindMissing && b.kind != bindLost && b.kind != bindEntity && b.kind != bindTyped {
			for i := b.from; i < b.to; i++ {
				covered[i] = true
			}
		}
		nt := note{kind: b.kind, name: b.word}
		switch b.kind {
		case bindEntity, bindTyped, bindOpen, bindUnlisted, bindBlack:
			nt.name, nt.typ = b.slot.info.name, b.slot.info.typ
			nt.text, _ = c.value(b.slot, int(b.from), int(b.to))
			if b.kind != bindBlack {
				r.Slots[nt.name] = nt.text
			}
			if b.kind == bindUnlisted && b.slot.info.parsedType() {
				r.untyped += int(b.to - b.from)
			}
		case bindSkip, bindExtra:
			if b.from < b.to {
				nt.text = c.norm[c.start[b.from]:c.end[b.to-1]]
			}
		case bindLost:
			if b.slot != nil {
				nt.name = "{" + b.slot.info.name + "}"
			}
		}
		r.notes = append(r.notes, nt)
	}
	for i := range covered {
		if !covered[i] && c.lex.isContent(c.words, i) {
			r.Evidence++
		}
	}
	r.Complete = rank.Open == 0 && rank.Unlisted == 0 && rank.Tolerated == 0 && rank.Lost == 0
	r.Confidence = templateConfidence(rank, c.n, r.Evidence, r.untyped)
	return r
}

// explain writes how a template parse was made, for people.
func (r *Result) explain() string {
	// Appended by hand rather than with fmt: a match explains itself on
	// every claim (Match.Why), and fmt was a tenth of a claim's time.
	b := make([]byte, 0, 64+len(r.Sample)+32*len(r.notes))
	b = append(b, "template "...)
	b = strconv.AppendQuote(b, r.Sample)
	b = append(b, ": "...)
	if r.Rank.Literal == r.words {
		b = append(b, "every word literal"...)
	} else {
		b = strconv.AppendInt(b, int64(r.Rank.Literal), 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, int64(r.words), 10)
		b = append(b, " words literal"...)
	}
	for _, nt := range r.notes {
		b = append(b, "; "...)
		switch nt.kind {
		case bindEntity:
			b = strconv.AppendQuote(append(append(b, nt.name...), '='), nt.text)
			b = append(b, " (entity value)"...)
		case bindTyped:
			b = strconv.AppendQuote(append(append(b, nt.name...), '='), nt.text)
			b = append(append(append(b, " ("...), nt.typ...), ')')
		case bindOpen:
			b = strconv.AppendQuote(append(append(b, nt.name...), '='), nt.text)
			b = append(b, " (open text)"...)
		case bindUnlisted:
			b = strconv.AppendQuote(append(append(b, nt.name...), '='), nt.text)
			if parsedTypeName(nt.typ) {
				b = append(append(append(b, " (not a "...), nt.typ...), ')')
			} else {
				b = append(b, " (not among its values)"...)
			}
		case bindBlack:
			b = append(append(b, nt.name...), " unresolved: "...)
			b = strconv.AppendQuote(b, nt.text)
			b = append(b, " is blacklisted for it (RES-06)"...)
		case bindSkip:
			b = strconv.AppendQuote(append(b, "skipped "...), nt.text)
		case bindMissing:
			b = strconv.AppendQuote(append(b, "missing "...), nt.name)
		case bindExtra:
			b = strconv.AppendQuote(append(b, "unexplained "...), nt.text)
		case bindLost:
			if strings.HasPrefix(nt.name, "{") {
				b = append(append(append(b, "slot "...), nt.name...), " has no words"...)
			} else {
				b = strconv.AppendQuote(append(b, "template word "...), nt.name)
				b = append(b, " not said"...)
			}
		}
	}
	return string(b)
}

// templateConfidence estimates the probability that a template parse is
// the intent meant, from how its words were taken. The coefficients come
// from the evaluation corpora (docs/intents.md): a parse whose slots took
// listed, typed or free values is nearly always right; one that put words
// outside a slot's list is right about half the time, less the more such
// words there are; free slot text, skipped and tolerated words lower it a
// little, since a free slot swallows whatever is said. A parse mostly of
// free or unlisted slot text whose literal words and listed values are all
// function words ("in" in "{name} in {area}") rests on nothing said: it is
// a guess, below the claim floor. So is a parse whose number or duration
// slot holds words its type's parser does not read ("timer please" as a
// timer of "please"), unless the rest of it is sure enough for the medium
// band: a typed slot's parser knows its values, where an entity list is
// only a hint (GRM-15), so such a parse has the intent at best, never the
// value. Sure of the intent ("set the volume to loud"), the skill says what
// it accepts; unsure, it would act on a fragment ("the timer is red").
func templateConfidence(r Rank, n, evidence, untyped int) float64 {
	if n == 0 {
		return 0
	}
	fn := float64(n)
	p := 0.97
	p -= 0.2 * float64(r.Open) / fn
	p -= 0.02 * float64(r.Skipped)
	p -= 0.06 * float64(r.Tolerated)
	if r.Unlisted > 0 {
		p = min(p, 0.8) - 0.5*float64(r.Unlisted)/fn
	}
	p -= 0.3 * float64(r.Lost) / fn
	if evidence == 0 && r.Open+r.Unlisted > r.Literal || untyped > 0 && p < MediumFloor {
		p = min(p, 0.45)
	}
	return min(0.99, max(0.01, p))
}
