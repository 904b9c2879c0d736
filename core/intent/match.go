package intent

import (
	"cmp"
	"fmt"
	"slices"
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
// 1 and beats any sample with slots. Match is safe for concurrent use with
// itself and with registration changes.
func (e *TemplateEngine) Match(utterance, lang, sessionID string) *Result {
	norm := Normalize(utterance)
	if norm == "" {
		return nil
	}
	lang = strings.ToLower(lang)
	sessionID = sessionOrDefault(sessionID)

	e.mu.RLock()
	defer e.mu.RUnlock()
	pools := make([]*scopeIndex, 0, 2)
	if s := e.scopes[scopeKey{DefaultSession, lang}]; s != nil {
		pools = append(pools, s)
	}
	if s := e.scopes[scopeKey{sessionID, lang}]; s != nil && sessionID != DefaultSession {
		pools = append(pools, s)
	}
	if len(pools) == 0 {
		return nil
	}
	m := &matcher{norm: norm, words: strings.Split(norm, " ")}
	N := len(m.words)

	for _, s := range pools {
		for _, c := range s.exact[norm] {
			if !c.enabled || m.suppressed(c) {
				continue
			}
			cand := &candidate{c: c, score: scoreLiteral * N, words: N, sample: norm}
			if better(cand, m.best) {
				m.best = cand
			}
		}
	}
	if m.best != nil {
		return m.result(lang)
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
		return nil
	}
	return m.result(lang)
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
	checked    map[*compiledIntent]bool // intent → suppressed
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

// result turns the best candidate into a Result, working out slot values
// and the explanation.
func (m *matcher) result(lang string) *Result {
	a := m.best
	r := &Result{
		SkillID: a.c.def.SkillID, IntentName: a.c.def.IntentName, Lang: lang, Utterance: m.norm,
		Slots:      map[string]string{},
		Confidence: float64(a.score) / float64(scoreLiteral*a.words),
		Sample:     a.sample,
	}
	if a.ss == nil {
		r.Why = fmt.Sprintf("sample %q: exact match", a.sample)
		return r
	}
	notes := []string{fmt.Sprintf("%d of %d words literal", len(a.ss.elems)-len(a.ss.slots), a.words)}
	j := 0
	for i, el := range a.ss.elems {
		k := a.ends[i]
		if el.slot != "" {
			value, _ := m.value(j, k, el)
			switch a.c.wordScore(el.slot, value) {
			case scoreBlacklisted:
				notes = append(notes, fmt.Sprintf("%s unresolved: %q is blacklisted for it (RES-06)", el.slot, value))
			case scoreEntity:
				r.Slots[el.slot] = value
				notes = append(notes, fmt.Sprintf("%s=%q (entity value)", el.slot, value))
			default:
				r.Slots[el.slot] = value
				notes = append(notes, fmt.Sprintf("%s=%q (open text)", el.slot, value))
			}
		}
		j = k
	}
	r.Why = fmt.Sprintf("sample %q: %s", a.sample, strings.Join(notes, "; "))
	return r
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
