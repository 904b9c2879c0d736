package intent

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Near-miss limits for Explain.
const (
	// DefaultNearMisses is how many near misses Explain returns when asked
	// for n <= 0.
	DefaultNearMisses = 3
	// MaxNearMisses caps how many near misses Explain returns.
	MaxNearMisses = 50
)

// NearMiss is an intent that did not win an utterance, with how close its
// nearest sample came and why it fell short.
type NearMiss struct {
	SkillID    string
	IntentName string
	Sample     string  // the intent's sample that came closest, normalised
	Score      float64 // in [0, 1]: how well the sample accounts for the utterance's words
	Reason     string  // why it fell short, for people
}

// Explanation is what Explain found: the match, if any, and the intents
// that came closest besides it.
type Explanation struct {
	Utterance  string     // normalised
	Match      *Result    // as Match returns it; nil when nothing matched
	NearMisses []NearMiss // best first; never the matched intent
}

// Explain matches the utterance as Match does and also ranks the other
// enabled or disabled intents of the scopes the session sees by how close
// their nearest sample comes, returning the best n (DefaultNearMisses when
// n <= 0, at most MaxNearMisses) with the reason each fell short: words the
// sample lacks or has in excess, slots left empty, a blacklist phrase
// (RES-06), a disabled intent (REG-10), or a lower score than the match.
// Closeness is scored like a match, except that any word may be skipped
// (scoring nothing) and any sample word missed (at a cost). It looks at
// every sample that shares a word with the utterance, so it is slower than
// Match and meant for tools. Utterances over MaxUtteranceWords get no near
// misses.
func (e *TemplateEngine) Explain(utterance, lang, sessionID string, n int) Explanation {
	norm := Normalize(utterance)
	ex := Explanation{Utterance: norm}
	if norm == "" {
		return ex
	}
	if n <= 0 {
		n = DefaultNearMisses
	}
	n = min(n, MaxNearMisses)
	lang = strings.ToLower(lang)
	e.mu.RLock()
	defer e.mu.RUnlock()
	pools := e.pools(lang, sessionOrDefault(sessionID))
	if len(pools) == 0 {
		return ex
	}
	m := newMatcher(norm)
	ex.Match = e.match(m, pools, lang)
	N := len(m.words)
	if N > e.opts.MaxUtteranceWords {
		return ex
	}
	m.offsets()
	m.lex = lexiconFor(e.opts.Lexicons, lang)
	if m.lex != nil {
		m.skip = m.lex.skippable(m.words, m.skip)
	} else {
		m.skip = make([]bool, N)
	}
	m.countSkippable()

	// Rank every sample sharing a word with the utterance, best bound
	// first; once n intents score above what a sample could reach, the
	// rest are skipped unaligned. The result is what aligning them all
	// would give.
	type cand struct {
		c  *compiledIntent
		ss *slotSample
		ub int32
	}
	var cands []cand
	for _, s := range pools {
		for _, c := range s.intents {
			if ex.Match != nil && c.def.SkillID == ex.Match.SkillID && c.def.IntentName == ex.Match.IntentName {
				continue
			}
			for _, list := range [][]*slotSample{c.plain, c.slotted} {
				for _, ss := range list {
					if ub, ok := m.upperBound(ss, true); ok {
						cands = append(cands, cand{c, ss, ub})
					}
				}
			}
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(b.ub, a.ub) })
	type near struct {
		c  *compiledIntent
		ss *slotSample
		al *alignment
	}
	order := func(a, b near) int {
		return cmp.Or(cmp.Compare(b.al.score, a.al.score), tieBreak(a.c, b.c, a.ss.text, b.ss.text))
	}
	best := map[*compiledIntent]near{}
	var top []near // the best n intents so far, in order
	for _, cd := range cands {
		if len(top) == n {
			last := top[n-1]
			if cd.ub < last.al.score {
				break
			}
			if cd.ub == last.al.score && tieBreak(cd.c, last.c, cd.ss.text, last.ss.text) > 0 {
				continue // at best a tie it would lose
			}
		}
		b, seen := best[cd.c]
		if seen && cd.ub < b.al.score {
			continue
		}
		floor := int32(negInf)
		if len(top) == n {
			floor = top[n-1].al.score // below it, no way in
		}
		al := m.alignLoose(cd.ss, true, floor)
		if al == nil || al.literals == 0 {
			continue
		}
		if seen && (al.score < b.al.score || (al.score == b.al.score && cd.ss.text > b.ss.text)) {
			continue
		}
		nb := near{cd.c, cd.ss, al}
		best[cd.c] = nb
		top = slices.DeleteFunc(top, func(x near) bool { return x.c == cd.c })
		top = append(top, nb)
		slices.SortFunc(top, order)
		top = top[:min(n, len(top))]
	}
	for _, x := range top {
		ex.NearMisses = append(ex.NearMisses, NearMiss{
			SkillID: x.c.def.SkillID, IntentName: x.c.def.IntentName, Sample: x.ss.text,
			Score: x.al.similarity(N), Reason: m.shortfall(x.c, x.ss, x.al, ex.Match),
		})
	}
	return ex
}

// similarity scores an alignment to an utterance of n words in [0, 1]:
// what its words earned, over what they would earn if every utterance word
// were literal and every sample word said. It equals the confidence of a
// strict match, and of a tolerant one without missing words.
func (al *alignment) similarity(n int) float64 {
	earned := al.score - scoreExtra*int32(len(al.extra)) - scoreMissing*int32(len(al.missing))
	for range al.lost {
		earned -= scoreLost // both lost words and empty slots cost scoreLost
	}
	most := scoreLiteral*(n+len(al.lost)) - scoreMissing*len(al.missing)
	return min(1, max(0, float64(earned)/float64(most)))
}

// shortfall says why sample ss of intent c, aligned as al, did not win.
func (m *matcher) shortfall(c *compiledIntent, ss *slotSample, al *alignment, match *Result) string {
	var why []string
	if !c.enabled {
		why = append(why, "disabled (REG-10)")
	}
	if m.suppressed(c) {
		for _, p := range c.blacklist {
			if containsRun(m.words, p) {
				why = append(why, fmt.Sprintf("suppressed by its blacklist phrase %q (RES-06)", strings.Join(p, " ")))
				break
			}
		}
	}
	if len(al.extra) > 0 {
		why = append(why, "words not in the sample: "+m.runs(al.extra))
	}
	var lostWords, emptySlots []int
	for _, i := range al.lost {
		if ss.elems[i].slot == "" {
			lostWords = append(lostWords, i)
		} else {
			emptySlots = append(emptySlots, i)
		}
	}
	if len(lostWords) > 0 {
		why = append(why, "sample words not said: "+ss.words(lostWords))
	}
	for i, el := range ss.elems {
		if sp := al.spans[i]; el.slot != "" && sp[1] > sp[0] && slices.Contains(c.required, el.slot) {
			if value, ok := m.value(sp[0], sp[1], el); ok && c.slotBlacklist[el.slot][value] {
				why = append(why, fmt.Sprintf("slot {%s}: %q is blacklisted for it (RES-06) and the slot is required (DEF-08)", el.slot, value))
			}
		}
	}
	for _, i := range emptySlots {
		el := ss.elems[i]
		note := fmt.Sprintf("slot {%s} has no words", el.slot)
		if slices.Contains(c.required, el.slot) {
			note += " and is required (DEF-08)"
		}
		why = append(why, note)
	}
	if len(why) > 0 {
		return strings.Join(why, "; ")
	}
	// The alignment is one tolerant or strict matching allows.
	score := float64(al.score) / float64(scoreLiteral*len(m.words))
	tolerated := len(al.skipped)+len(al.missing) > 0
	switch {
	case match != nil && !tolerated:
		return fmt.Sprintf("matches too, at %.2f, but %s:%s scored %.2f", score, match.SkillID, match.IntentName, match.Confidence)
	case len(al.missing) >= al.literals:
		return fmt.Sprintf("too little of the sample said: %d optional words missing, %d literal words said", len(al.missing), al.literals)
	case len(ss.content) == 0:
		return "every literal word of the sample is a filler or optional word, so it never matches tolerantly"
	case match != nil && match.Confidence == 1:
		return fmt.Sprintf("would match tolerantly at %.2f, but %s:%s matched exactly", score, match.SkillID, match.IntentName)
	case match != nil:
		return fmt.Sprintf("would match tolerantly at %.2f, but %s:%s scored %.2f", score, match.SkillID, match.IntentName, match.Confidence)
	}
	return fmt.Sprintf("aligns at %.2f, yet did not match", score)
}
