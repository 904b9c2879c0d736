package intent

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Result is the engine's best match for an utterance (DEF-11).
type Result struct {
	SkillID    string
	IntentName string
	Lang       string
	Utterance  string            // the normalised utterance that matched
	Slots      map[string]string // slot → surface text (GRM-14); never nil
	Confidence float64           // in [0, 1]; 1 only for an exact sample
	Why        string            // how the match was made, for people
	Sample     string            // the normalised sample that matched

	// Evidence counts the content words of the utterance the match rests
	// on: said as a literal word of the sample, or inside an occurrence of
	// one of the keyword intent's phrases. Content words are those the
	// language's Lexicon does not list as filler, optional or function
	// words ("in", "what", "is" are no evidence for any intent); without a
	// lexicon every word is one. Open slot text is not evidence: a slot
	// takes whatever is said.
	Evidence int
	// Unexplained counts the content words the match does not account for
	// at all. A keyword match leaves the words outside its phrases
	// unexplained; a template match accounts for every word (literal, slot
	// or skipped filler), so it leaves none.
	Unexplained int
	// Complete reports a template match in which every literal word of the
	// sample was said and every slot took a value from its entity list: the
	// whole sample is in the utterance, whatever else was said around it
	// ("what can you do for me" for "what can you do"). Open slot text or a
	// missing word leaves it false.
	Complete bool
}

// Per-word scores of an alignment. A slot sample scores the mean over the
// utterance's words, so more literal words, and slot values found in the
// slot's entity list (GRM-15), mean a more specific match. A slot whose
// word carries glued literal text ("{name}s") earns a small bonus for it.
// Integers keep ties exact; a slot word never reaches a literal word's
// score, so only an exact sample reaches confidence 1.
const (
	scoreLiteral     = 20 // word matched by a literal word of the sample
	scoreEntity      = 17 // word of a slot value listed in the slot's entities
	scoreOpen        = 10 // word of any other slot value
	scoreBlacklisted = 6  // word of a value slot_blacklist forbids: slot unresolved
	scoreAffix       = 1  // once per slot with glued prefix or suffix text
)

// Scores of tolerant matching, the fallback when no sample matches as it
// stands. A skipped filler word scores below any matched word (the lowest
// is scoreBlacklisted), and a missing optional word costs, so a tolerant
// match always scores strictly below what the same sample would score on
// the utterance without the fillers or with the missing words said
// (confidence is the score over scoreLiteral per utterance word).
const (
	scoreSkipped = 5   // utterance word skipped: in a filler phrase, or an extra optional word
	scoreMissing = -10 // optional word of the sample the utterance lacks
)

// Scores used only to rank near misses (Explain): what tolerant matching
// may not do, at a cost.
const (
	scoreExtra     = 0         // utterance word the sample does not account for
	scoreLost      = -20       // literal word of the sample the utterance lacks
	scoreEmptySlot = scoreLost // slot left without words
)

// elem is one word of a compiled sample: a literal word, or a slot with the
// literal text glued to it inside the word ("{name}s" has suffix "s").
type elem struct {
	word   string
	slot   string
	prefix string
	suffix string
}

// slotSample is a compiled, normalised sample; those with slots are indexed
// by anchor word, the rest by their text.
type slotSample struct {
	intent   *compiledIntent
	text     string   // normalised, slots as {name}
	elems    []elem   // one per word
	slots    []int    // indexes of slot elems
	literals []string // distinct whole literal words
	inner    []string // distinct literal words between the first and last slot
	anchor   string   // the literal word it is indexed under, if any
	affixes  int      // slots with glued prefix or suffix text
	slotMax  int      // best score a slot word of this sample can get
	edge     edgeKey  // literal words before the first and after the last slot
	edgeLen  [2]int   // how many words each side of edge has

	// For tolerant matching (see Lexicon): content are the distinct
	// literal words outside the lexicon, which must all be said; looseKey
	// joins the literal words outside the lexicon in order.
	content  []string
	looseKey string
}

// loosen prepares the sample for tolerant matching in lex's language.
func (ss *slotSample) loosen(lex *Lexicon) {
	var b strings.Builder
	for _, e := range ss.elems {
		if e.slot != "" || lex.stop[e.word] {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.word)
	}
	ss.looseKey = b.String()
	for _, w := range ss.literals {
		if !lex.stop[w] {
			ss.content = append(ss.content, w)
		}
	}
}

// edgeKey is the literal text before a sample's first slot and after its
// last, each a run of whole words joined by spaces, possibly empty.
type edgeKey struct{ lead, trail string }

// slotMark is the first of the private-use runes that stand in for slots
// while a sample is normalised, so the words glued to a slot stay glued.
const slotMark = 0xF0000

// compileSample normalises one expanded sample (GRM-02) and splits it into
// words. It returns nil and a reason when the sample cannot be matched;
// changed reports whether normalisation altered it.
func compileSample(sample string, c *compiledIntent) (cs *slotSample, changed bool, reason string) {
	var names []string
	var b strings.Builder
	for rest := sample; rest != ""; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			writeLiteral(&b, rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}') + i
		writeLiteral(&b, rest[:i])
		b.WriteRune(rune(slotMark + len(names)))
		names = append(names, rest[i+1:j])
		rest = rest[j+1:]
	}
	isMark := func(r rune) bool { return r >= slotMark && r < slotMark+rune(len(names)) }
	norm := normalize(b.String(), isMark)
	if norm == "" {
		return nil, true, fmt.Sprintf("sample %q has no words after normalisation; skipped", sample)
	}
	cs = &slotSample{intent: c}
	hasText := false
	for _, w := range strings.Split(norm, " ") {
		at := strings.IndexFunc(w, isMark)
		if at < 0 {
			cs.elems = append(cs.elems, elem{word: w})
			if !slices.Contains(cs.literals, w) {
				cs.literals = append(cs.literals, w)
			}
			hasText = true
			continue
		}
		mark, size := rune(0), 0
		for _, r := range w[at:] {
			mark, size = r, len(string(r))
			break
		}
		if strings.IndexFunc(w[at+size:], isMark) >= 0 {
			return nil, true, fmt.Sprintf("sample %q has two slots in one word; skipped", sample)
		}
		e := elem{slot: names[mark-slotMark], prefix: w[:at], suffix: w[at+size:]}
		if n := len(cs.elems); n > 0 {
			if p := cs.elems[n-1]; p.slot != "" && p.suffix == "" && e.prefix == "" {
				return nil, true, fmt.Sprintf("sample %q has adjacent slots {%s} and {%s} after normalisation (GRM-07); skipped", sample, p.slot, e.slot)
			}
		}
		if e.prefix != "" || e.suffix != "" {
			hasText = true
			cs.affixes++
		}
		cs.slots = append(cs.slots, len(cs.elems))
		cs.elems = append(cs.elems, e)
	}
	switch {
	case !hasText:
		return nil, true, fmt.Sprintf("sample %q is only a slot and would match any utterance; skipped", sample)
	case len(cs.literals) == 0:
		// Text glued to a slot ("{name}s") is too weak an anchor: it would
		// match nearly any utterance.
		return nil, true, fmt.Sprintf("sample %q has no whole literal word and would match almost any utterance; skipped", sample)
	}
	var t strings.Builder
	for i, e := range cs.elems {
		if i > 0 {
			t.WriteByte(' ')
		}
		if e.slot == "" {
			t.WriteString(e.word)
			continue
		}
		t.WriteString(e.prefix + "{" + e.slot + "}" + e.suffix)
	}
	cs.text = t.String()
	cs.slotMax = scoreOpen
	for _, i := range cs.slots {
		if len(c.entities[cs.elems[i].slot]) > 0 {
			cs.slotMax = scoreEntity
		}
	}
	if len(cs.slots) > 0 {
		lead := cs.slots[0]
		trail := len(cs.elems) - 1 - cs.slots[len(cs.slots)-1]
		var words []string
		for _, e := range cs.elems[:lead] {
			words = append(words, e.word)
		}
		cs.edge.lead = strings.Join(words, " ")
		words = words[:0]
		for _, e := range cs.elems[len(cs.elems)-trail:] {
			words = append(words, e.word)
		}
		cs.edge.trail = strings.Join(words, " ")
		cs.edgeLen = [2]int{lead, trail}
		for _, e := range cs.elems[lead : len(cs.elems)-trail] {
			if e.slot == "" && !slices.Contains(cs.inner, e.word) {
				cs.inner = append(cs.inner, e.word)
			}
		}
	}
	return cs, cs.text != sample, ""
}

// writeLiteral copies literal sample text, turning private-use runes into
// spaces so they cannot pose as slot marks; Normalize would drop them anyway.
func writeLiteral(b *strings.Builder, s string) {
	for _, r := range s {
		if unicode.Is(unicode.Co, r) {
			r = ' '
		}
		b.WriteRune(r)
	}
}

// candidate is one way an intent matches the utterance. Slot values and
// the explanation are only worked out for the winner.
type candidate struct {
	c         *compiledIntent
	score     int // summed word scores
	words     int // utterance words
	slotWords int
	sample    string
	ss        *slotSample // nil for an exact sample
	ends      []int       // for a slot sample: where each elem's words end
	loose     *alignment  // for a tolerant match: how it aligned
}

// better orders candidates: higher confidence, then fewer slot words, then
// skill and intent name, then sample and session. The order is total, so
// the winner never depends on map or registration order.
func better(a, b *candidate) bool {
	if b == nil {
		return true
	}
	// Both cover the same utterance, so scores compare like confidences.
	if a.score != b.score {
		return a.score > b.score
	}
	if a.slotWords != b.slotWords {
		return a.slotWords < b.slotWords
	}
	return tieBreak(a.c, b.c, a.sample, b.sample) < 0
}

// tieBreak orders equally good matches by skill, intent, sample and
// session, "default" first.
func tieBreak(a, b *compiledIntent, sampleA, sampleB string) int {
	if a != b {
		if c := strings.Compare(a.def.SkillID, b.def.SkillID); c != 0 {
			return c
		}
		if c := strings.Compare(a.def.IntentName, b.def.IntentName); c != 0 {
			return c
		}
	}
	if c := strings.Compare(sampleA, sampleB); c != 0 {
		return c
	}
	return cmp.Compare(sessionRank(a.def.SessionID), sessionRank(b.def.SessionID))
}

// Match returns the best enabled, unsuppressed intent for the utterance in
// the language, from the "default" scope and the session's own (REG-14), or
// nil. The utterance is normalised first (Normalize). An exact sample scores
// 1 and beats any sample with slots. When no sample matches as it stands,
// Match tries once more tolerating the language's Lexicon: filler phrases
// said around or between the words of a sample, and optional words missing
// or extra; such a match scores strictly below what the sample scores when
// said as written, and its Why names the words skipped and missing. Match
// is safe for concurrent use with itself and with registration changes.
func (e *TemplateEngine) Match(utterance, lang, sessionID string) *Result {
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
	return e.match(newMatcher(norm), pools, lang)
}

func newMatcher(norm string) *matcher {
	return &matcher{norm: norm, words: strings.Split(norm, " ")}
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

// match runs the lookups in order: exact samples, slot samples, then
// tolerant matching. e.mu must be held.
func (e *TemplateEngine) match(m *matcher, pools []*scopeIndex, lang string) *Result {
	N := len(m.words)
	lex := lexiconFor(e.opts.Lexicons, lang)
	for _, s := range pools {
		for _, c := range s.exact[m.norm] {
			if !c.enabled || m.suppressed(c) {
				continue
			}
			cand := &candidate{c: c, score: scoreLiteral * N, words: N, sample: m.norm}
			if better(cand, m.best) {
				m.best = cand
			}
		}
	}
	if m.best != nil {
		return m.result(lang, lex)
	}
	if N > e.opts.MaxUtteranceWords {
		e.log.Debug("utterance too long for slot matching", "words", N, "limit", e.opts.MaxUtteranceWords)
		return nil
	}
	m.offsets()
	// Only samples whose literal start and end are the utterance's, or
	// whose anchor word it contains, can match. Those that pass the cheap
	// checks are aligned best bound first, so once a good match is found
	// the rest are skipped by their bound alone.
	for _, s := range pools {
		for n := range s.edgeLens {
			if lead, trail := n[0], n[1]; lead+trail < N {
				m.consider(s.edges[edgeKey{m.prefix(lead), m.suffix(trail)}])
			}
		}
		for i, w := range m.words {
			if !slices.Contains(m.words[:i], w) {
				m.consider(s.anchors[w])
			}
		}
	}
	// Equal bounds stay in any order: try skips every sample that loses the
	// tie to the best so far, so only a few of them are ever aligned.
	slices.SortFunc(m.queue, func(a, b queued) int { return cmp.Compare(b.bound, a.bound) })
	for _, q := range m.queue {
		if m.best != nil && q.bound < m.best.score {
			break
		}
		m.try(q.ss, q.bound)
	}
	if m.best == nil {
		e.tolerant(m, pools, lang)
	}
	if m.best == nil {
		return nil
	}
	return m.result(lang, lex)
}

// tolerant looks for the best sample the utterance matches when filler
// phrases may be skipped and optional words may be missing or extra (see
// Lexicon). Every literal word of the sample outside the lexicon must be
// said, in order, and no utterance word outside it may be left over, so a
// different verb, an extra content word or a negation ("dont turn on the
// light") never matches. Candidates come from the loose index: slot-free
// samples with the utterance's loose key, slot samples under a content
// word the utterance has.
func (e *TemplateEngine) tolerant(m *matcher, pools []*scopeIndex, lang string) {
	lex := lexiconFor(e.opts.Lexicons, lang)
	if lex == nil {
		return
	}
	key := lex.looseKey(m.words)
	if key == "" {
		return // nothing but fillers and optional words
	}
	m.lex = lex
	m.skip = lex.skippable(m.words, m.skip)
	m.countSkippable()
	m.queue = m.queue[:0]
	add := func(ss *slotSample) {
		if !ss.intent.enabled {
			return
		}
		if ub, ok := m.upperBound(ss, false); ok {
			m.queue = append(m.queue, queued{ss: ss, bound: int(ub)})
		}
	}
	for _, s := range pools {
		for _, ss := range s.looseExact[key] {
			add(ss)
		}
		for i, w := range m.words {
			if lex.stop[w] || slices.Contains(m.words[:i], w) {
				continue
			}
			for _, g := range s.looseSlot[w] {
				if m.saysInOrder(g.words) {
					for _, ss := range g.samples {
						add(ss)
					}
				}
			}
		}
	}
	// As in the strict lookup: best bound first, stop below the best.
	slices.SortFunc(m.queue, func(a, b queued) int { return cmp.Compare(b.bound, a.bound) })
	for _, q := range m.queue {
		if m.best != nil && q.bound < m.best.score {
			break
		}
		m.tryTolerant(q.ss)
	}
}

// saysInOrder reports whether words occur in the utterance in this order,
// not necessarily next to each other.
func (m *matcher) saysInOrder(words []string) bool {
	j := 0
	for _, w := range words {
		for j < len(m.words) && m.words[j] != w {
			j++
		}
		if j == len(m.words) {
			return false
		}
		j++
	}
	return true
}

// optional reports whether w is an optional word of the lexicon in use.
func (m *matcher) optional(w string) bool { return m.lex != nil && m.lex.optional[w] }

func (m *matcher) countSkippable() {
	m.skippable = 0
	for _, s := range m.skip {
		if s {
			m.skippable++
		}
	}
}

// upperBound returns the most an alignLoose of ss can score, or false when
// it cannot align at all: in tolerant mode, when a literal word that is not
// optional is not said in order; relaxed, when the sample shares no literal
// word with the utterance, which makes it no near miss at all. The literal
// words an alignment matches keep their order, so at most the longest
// common subsequence of the sample's literal words and the utterance's
// match; the other literal words are missing, and the other utterance
// words are skipped or taken by slots. It costs O(elems × words) without
// the alignment's map lookups, so candidates are ranked and pruned by it.
func (m *matcher) upperBound(ss *slotSample, relaxed bool) (int32, bool) {
	if relaxed {
		if !slices.ContainsFunc(ss.literals, func(w string) bool { return slices.Contains(m.words, w) }) {
			return 0, false
		}
	} else {
		// Every literal word that is not optional must be said, in order.
		j := 0
		for _, e := range ss.elems {
			if e.slot != "" || m.optional(e.word) {
				continue
			}
			for j < len(m.words) && m.words[j] != e.word {
				j++
			}
			if j == len(m.words) {
				return 0, false
			}
			j++
		}
	}
	N := len(m.words)
	// lcs[j] is the LCS of the literal words seen so far and words[:j].
	m.lcs = slices.Grow(m.lcs[:0], N+1)[:N+1]
	clear(m.lcs)
	literals, optionals := 0, 0
	for _, e := range ss.elems {
		if e.slot != "" {
			continue
		}
		literals++
		if m.optional(e.word) {
			optionals++
		}
		diag := 0 // lcs[j-1] before this row updated it
		for j := 1; j <= N; j++ {
			up := m.lcs[j]
			if m.words[j-1] == e.word {
				m.lcs[j] = diag + 1
			} else {
				m.lcs[j] = max(m.lcs[j], m.lcs[j-1])
			}
			diag = up
		}
	}
	lit := m.lcs[N]
	// Any other utterance word is skipped or, with slots, taken by one.
	rest := scoreSkipped * min(N-lit, m.skippable)
	if len(ss.slots) > 0 {
		rest = max(scoreSkipped, ss.slotMax)*(N-lit) + scoreAffix*ss.affixes
	}
	// Literal words not matched are missing: optional ones cost less.
	absent := literals - lit
	cheap := min(absent, optionals)
	return int32(scoreLiteral*lit + rest + scoreMissing*cheap + scoreLost*(absent-cheap)), true
}

// tryTolerant aligns one sample tolerantly and keeps it if it is a
// tolerant match that beats the best so far. A match needs at least one
// word skipped or missing (else it is not tolerant, and the strict lookup
// decides), and more literal words said than missing.
func (m *matcher) tryTolerant(ss *slotSample) {
	floor := int32(negInf)
	if m.best != nil {
		floor = int32(m.best.score) // a lower score cannot win
	}
	al := m.alignLoose(ss, false, floor)
	if al == nil || len(al.skipped)+len(al.missing) == 0 || len(al.missing) >= al.literals {
		return
	}
	cand := &candidate{c: ss.intent, score: int(al.score), words: len(m.words), slotWords: al.slotWords,
		sample: ss.text, ss: ss, loose: al}
	if !better(cand, m.best) || m.suppressed(ss.intent) {
		return
	}
	m.best = cand
}

// matcher holds one utterance, the best candidate so far and scratch space
// for aligning samples.
type matcher struct {
	norm       string
	words      []string
	start, end []int // byte offsets of each word in norm
	best       *candidate
	queue      []queued
	dp, next   []int32
	op         []alignOp
	checked    map[*compiledIntent]bool // intent → suppressed

	// For tolerant matching and near misses.
	lex  *Lexicon // nil: no word is skippable as a filler
	skip []bool   // per word: skippable by lex
	lcs  []int    // scratch for Explain's bounds
	// skippable counts the words skip marks, for Explain's bounds.
	skippable int
}

func (m *matcher) offsets() {
	m.start = make([]int, len(m.words))
	m.end = make([]int, len(m.words))
	off := 0
	for i, w := range m.words {
		m.start[i], m.end[i] = off, off+len(w)
		off += len(w) + 1
	}
}

// prefix returns the utterance's first n words, space-joined.
func (m *matcher) prefix(n int) string {
	if n == 0 {
		return ""
	}
	return m.norm[:m.end[n-1]]
}

// suffix returns the utterance's last n words, space-joined.
func (m *matcher) suffix(n int) string {
	if n == 0 {
		return ""
	}
	return m.norm[m.start[len(m.words)-n]:]
}

// queued is a slot sample that passed the cheap checks, with the highest
// score any alignment of it could reach.
type queued struct {
	ss    *slotSample
	bound int
}

// consider queues the samples of one list that can possibly match:
// enabled, not longer than the utterance, and with every literal word
// between their first and last slot present. The words before the first
// slot and after the last are already known to fit: they are the key the
// list was found under.
func (m *matcher) consider(list []*slotSample) {
	N := len(m.words)
next:
	for _, ss := range list {
		if !ss.intent.enabled || len(ss.elems) > N {
			continue
		}
		for _, w := range ss.inner {
			if !slices.Contains(m.words, w) {
				continue next
			}
		}
		// Every literal elem takes exactly one word, so the slot word count
		// is fixed and the score is bounded before aligning anything.
		lit := len(ss.elems) - len(ss.slots)
		m.queue = append(m.queue, queued{ss: ss, bound: lit*scoreLiteral + (N-lit)*ss.slotMax + ss.affixes*scoreAffix})
	}
}

// try aligns one queued slot sample and keeps it if it beats the best so
// far.
func (m *matcher) try(ss *slotSample, bound int) {
	N := len(m.words)
	lit := len(ss.elems) - len(ss.slots)
	if !better(&candidate{c: ss.intent, score: bound, words: N, slotWords: N - lit, sample: ss.text}, m.best) {
		return
	}
	score := m.align(ss)
	if score < 0 {
		return
	}
	cand := &candidate{c: ss.intent, score: score, words: N, slotWords: N - lit, sample: ss.text, ss: ss}
	if !better(cand, m.best) || m.suppressed(ss.intent) {
		return
	}
	// Read the alignment out of the scratch space before the next sample
	// overwrites it.
	W := N + 1
	cand.ends = make([]int, len(ss.elems))
	for i, j := 0, 0; i < len(ss.elems); i++ {
		if ss.elems[i].slot == "" {
			j++
		} else {
			j = int(m.next[i*W+j])
		}
		cand.ends[i] = j
	}
	m.best = cand
}

// result turns the best candidate into a Result, working out slot values,
// evidence (content words by lex) and the explanation.
func (m *matcher) result(lang string, lex *Lexicon) *Result {
	a := m.best
	r := &Result{
		SkillID: a.c.def.SkillID, IntentName: a.c.def.IntentName, Lang: lang, Utterance: m.norm,
		Slots:      map[string]string{},
		Confidence: float64(a.score) / float64(scoreLiteral*a.words),
		Sample:     a.sample,
	}
	if a.ss == nil {
		for j := range m.words {
			if lex.isContent(m.words, j) {
				r.Evidence++
			}
		}
		r.Complete = true
		r.Why = fmt.Sprintf("sample %q: exact match", a.sample)
		return r
	}
	var notes []string
	spans := make([][2]int, len(a.ss.elems))
	literals := len(a.ss.elems) - len(a.ss.slots)
	if a.loose != nil {
		copy(spans, a.loose.spans)
		literals = a.loose.literals
		notes = append(notes, "tolerant match")
		if len(a.loose.skipped) > 0 {
			notes = append(notes, "skipped "+m.runs(a.loose.skipped))
		}
		if len(a.loose.missing) > 0 {
			notes = append(notes, "missing "+a.ss.words(a.loose.missing))
		}
	} else {
		for i, j := 0, 0; i < len(spans); i++ {
			spans[i] = [2]int{j, a.ends[i]}
			j = a.ends[i]
		}
	}
	notes = append(notes, fmt.Sprintf("%d of %d words literal", literals, a.words))
	r.Complete = a.loose == nil || len(a.loose.missing) == 0
	for i, el := range a.ss.elems {
		if el.slot == "" {
			// A missing optional word has an empty span.
			if sp := spans[i]; sp[1] > sp[0] && lex.isContent(m.words, sp[0]) {
				r.Evidence++
			}
			continue
		}
		value, _ := m.value(spans[i][0], spans[i][1], el)
		switch a.c.wordScore(el.slot, value) {
		case scoreBlacklisted:
			r.Complete = false
			notes = append(notes, fmt.Sprintf("%s unresolved: %q is blacklisted for it (RES-06)", el.slot, value))
		case scoreEntity:
			r.Slots[el.slot] = value
			notes = append(notes, fmt.Sprintf("%s=%q (entity value)", el.slot, value))
		default:
			r.Complete = false
			r.Slots[el.slot] = value
			notes = append(notes, fmt.Sprintf("%s=%q (open text)", el.slot, value))
		}
	}
	r.Why = fmt.Sprintf("sample %q: %s", a.sample, strings.Join(notes, "; "))
	return r
}

// runs quotes the utterance words at the given sorted indexes, one quoted
// phrase per contiguous run: "can you", "please".
func (m *matcher) runs(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		k := i + 1
		for k < len(idx) && idx[k] == idx[k-1]+1 {
			k++
		}
		parts = append(parts, strconv.Quote(strings.Join(m.words[idx[i]:idx[k-1]+1], " ")))
		i = k
	}
	return strings.Join(parts, ", ")
}

// words quotes the sample's elems at the given indexes: words as written,
// slots as {name}.
func (ss *slotSample) words(idx []int) string {
	parts := make([]string, len(idx))
	for i, x := range idx {
		e := ss.elems[x]
		if e.slot != "" {
			parts[i] = e.prefix + "{" + e.slot + "}" + e.suffix
		} else {
			parts[i] = strconv.Quote(e.word)
		}
	}
	return strings.Join(parts, ", ")
}

// suppressed reports whether a blacklist phrase of c occurs in the
// utterance as a contiguous run of whole words (RES-06).
func (m *matcher) suppressed(c *compiledIntent) bool {
	if len(c.blacklist) == 0 {
		return false
	}
	if s, ok := m.checked[c]; ok {
		return s
	}
	hit := false
	for _, p := range c.blacklist {
		if containsRun(m.words, p) {
			hit = true
			break
		}
	}
	if m.checked == nil {
		m.checked = map[*compiledIntent]bool{}
	}
	m.checked[c] = hit
	return hit
}

func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// align returns the best score with which sample ss covers every utterance
// word, each literal word matching one word and each slot taking one or
// more words (GRM-14), or -1. Dynamic programming over (sample word,
// utterance word) keeps it polynomial however many ways slots could split
// the words; m.next records where each slot ends on the best path.
func (m *matcher) align(ss *slotSample) int {
	E, N := len(ss.elems), len(m.words)
	W := N + 1
	size := (E + 1) * W
	if cap(m.dp) < size {
		m.dp = make([]int32, size)
		m.next = make([]int32, size)
	}
	dp, next := m.dp[:size], m.next[:size]
	// dp[i*W+j]: highest score for elems[i:] covering words[j:], -1 if
	// impossible.
	for j := 0; j < W; j++ {
		dp[E*W+j] = -1
	}
	dp[E*W+N] = 0
	c := ss.intent
	for i := E - 1; i >= 0; i-- {
		el := ss.elems[i]
		for j := N; j >= 0; j-- {
			at := i*W + j
			dp[at] = -1
			if el.slot == "" {
				if j < N && m.words[j] == el.word && dp[at+W+1] >= 0 {
					dp[at] = scoreLiteral + dp[at+W+1]
				}
				continue
			}
			if j == N || !strings.HasPrefix(m.words[j], el.prefix) {
				continue
			}
			for k := j + 1; k <= N; k++ {
				rest := dp[(i+1)*W+k]
				if rest < 0 {
					continue
				}
				value, ok := m.value(j, k, el)
				if !ok {
					continue
				}
				per := c.wordScore(el.slot, value)
				if per == scoreBlacklisted && slices.Contains(c.required, el.slot) {
					continue // a required slot may not stay unresolved (DEF-08)
				}
				total := per*int32(k-j) + rest
				if el.prefix != "" || el.suffix != "" {
					total += scoreAffix
				}
				if total > dp[at] {
					dp[at], next[at] = total, int32(k)
				}
			}
		}
	}
	return int(dp[0])
}

// value returns the slot text for words[j:k] with the slot's glued prefix
// and suffix removed, and false if the words do not carry them or nothing
// is left.
func (m *matcher) value(j, k int, el elem) (string, bool) {
	first, last := m.words[j], m.words[k-1]
	if !strings.HasPrefix(first, el.prefix) || !strings.HasSuffix(last, el.suffix) {
		return "", false
	}
	if len(first) <= len(el.prefix) || len(last) <= len(el.suffix) {
		return "", false
	}
	from, to := m.start[j]+len(el.prefix), m.end[k-1]-len(el.suffix)
	if to <= from {
		return "", false
	}
	return m.norm[from:to], true
}

// wordScore scores each word of a slot value.
func (c *compiledIntent) wordScore(slot, value string) int32 {
	switch {
	case c.slotBlacklist[slot][value]:
		return scoreBlacklisted
	case c.entities[slot][value]:
		return scoreEntity
	default:
		return scoreOpen
	}
}

// alignOp is one step of a tolerant alignment.
type alignOp uint8

const (
	opNone    alignOp = iota // cell unreachable
	opMatch                  // literal elem matches the word
	opMissing                // elem takes no word: a missing literal or an empty slot
	opSkip                   // the word is skipped
	opSlot                   // slot elem takes words up to next[cell]
)

// negInf marks an impossible alignment; far from the int32 limits so sums
// of it stay negative without overflowing.
const negInf = -1 << 28

// alignment is how a sample covers an utterance in tolerant matching or
// near-miss ranking.
type alignment struct {
	score     int32
	spans     [][2]int // per elem: utterance words [start, end); empty when missing
	skipped   []int    // utterance words skipped as fillers or optional words
	extra     []int    // utterance words skipped that the lexicon does not allow (near misses only)
	missing   []int    // optional literal elems not said
	lost      []int    // other elems not said, slots without words (near misses only)
	literals  int      // literal elems matched
	slotWords int
}

// alignLoose aligns sample ss to the utterance allowing what tolerant
// matching allows: skipping the words m.skip marks (scoreSkipped) and
// leaving out optional literal words (scoreMissing). With relaxed, for
// ranking near misses, any word may be skipped (scoreExtra), any literal
// left out (scoreLost) and any slot left empty (scoreEmptySlot). It returns
// the best-scoring alignment, or nil when there is none or it scores below
// floor. Dynamic programming over (elem, word), as in align.
func (m *matcher) alignLoose(ss *slotSample, relaxed bool, floor int32) *alignment {
	E, N := len(ss.elems), len(m.words)
	W := N + 1
	size := (E + 1) * W
	if cap(m.dp) < size {
		m.dp = make([]int32, size)
		m.next = make([]int32, size)
	}
	if cap(m.op) < size {
		m.op = make([]alignOp, size)
	}
	dp, next, op := m.dp[:size], m.next[:size], m.op[:size]
	skipScore := func(j int) int32 {
		switch {
		case m.skip[j]:
			return scoreSkipped
		case relaxed:
			return scoreExtra
		}
		return negInf
	}
	dp[E*W+N], op[E*W+N] = 0, opNone
	for j := N - 1; j >= 0; j-- {
		at := E*W + j
		dp[at], op[at] = negInf, opNone
		if s := skipScore(j); s > negInf && dp[at+1] > negInf {
			dp[at], op[at] = s+dp[at+1], opSkip
		}
	}
	c := ss.intent
	for i := E - 1; i >= 0; i-- {
		el := ss.elems[i]
		// Looked up once per row, not per cell.
		opt := el.slot == "" && m.optional(el.word)
		ents, black := c.entities[el.slot], c.slotBlacklist[el.slot]
		for j := N; j >= 0; j-- {
			at := i*W + j
			best, bop, barg := int32(negInf), opNone, int32(0)
			if el.slot == "" {
				if j < N && m.words[j] == el.word && dp[at+W+1] > negInf {
					best, bop = scoreLiteral+dp[at+W+1], opMatch
				}
				// A word is missing only where it is not said next: a slot
				// must not swallow the word to dodge a check on its value.
				if rest := dp[at+W]; rest > negInf && (j == N || m.words[j] != el.word) {
					miss := int32(negInf)
					switch {
					case opt:
						miss = scoreMissing
					case relaxed:
						miss = scoreLost
					}
					if miss > negInf && miss+rest > best {
						best, bop = miss+rest, opMissing
					}
				}
			} else {
				if j < N && strings.HasPrefix(m.words[j], el.prefix) {
					for k := j + 1; k <= N; k++ {
						rest := dp[(i+1)*W+k]
						if rest <= negInf {
							continue
						}
						value, ok := m.value(j, k, el)
						if !ok {
							continue
						}
						per := int32(scoreOpen)
						switch {
						case black[value]:
							per = scoreBlacklisted
						case ents[value]:
							per = scoreEntity
						}
						if per == scoreBlacklisted && slices.Contains(c.required, el.slot) {
							if !relaxed {
								continue // a required slot may not stay unresolved (DEF-08)
							}
							per = scoreExtra // a near miss, and shortfall says why
						}
						total := per*int32(k-j) + rest
						if el.prefix != "" || el.suffix != "" {
							total += scoreAffix
						}
						if total > best {
							best, bop, barg = total, opSlot, int32(k)
						}
					}
				}
				if relaxed && dp[at+W] > negInf && scoreEmptySlot+dp[at+W] > best {
					best, bop = scoreEmptySlot+dp[at+W], opMissing
				}
			}
			if j < N && dp[at+1] > negInf {
				if s := skipScore(j); s > negInf && s+dp[at+1] > best {
					best, bop = s+dp[at+1], opSkip
				}
			}
			dp[at], op[at], next[at] = best, bop, barg
		}
	}
	if dp[0] <= negInf || dp[0] < floor {
		return nil
	}
	al := &alignment{score: dp[0], spans: make([][2]int, E)}
	for i, j := 0, 0; i < E || j < N; {
		at := i*W + j
		switch op[at] {
		case opSkip:
			if m.skip[j] {
				al.skipped = append(al.skipped, j)
			} else {
				al.extra = append(al.extra, j)
			}
			j++
		case opMatch:
			al.spans[i] = [2]int{j, j + 1}
			al.literals++
			i, j = i+1, j+1
		case opMissing:
			al.spans[i] = [2]int{j, j}
			if el := ss.elems[i]; el.slot == "" && m.optional(el.word) {
				al.missing = append(al.missing, i)
			} else {
				al.lost = append(al.lost, i)
			}
			i++
		case opSlot:
			k := int(next[at])
			al.spans[i] = [2]int{j, k}
			al.slotWords += k - j
			i, j = i+1, k
		default:
			return nil // unreachable: dp[0] is finite, so the path is complete
		}
	}
	return al
}
