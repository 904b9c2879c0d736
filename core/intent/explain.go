package intent

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/openjibo/jibod/internal/sortx"
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
// nearest template came and why it fell short.
type NearMiss struct {
	SkillID    string
	IntentName string
	Sample     string  // the intent's template that came closest
	Score      float64 // in [0, 1]: the share of the utterance's words it accounts for
	Reason     string  // why it fell short, for people
	Rank       Rank
}

// Explanation is what Explain found: the match, if any, why it beat the
// runner-up, and the intents that came closest besides it.
type Explanation struct {
	Utterance string  // normalised
	Match     *Result // as Match returns it; nil when nothing matched
	// RunnerUp is the best match of another intent, nil when none matched.
	RunnerUp *Result
	// Won says why Match ranks above RunnerUp, "" without both.
	Won        string
	NearMisses []NearMiss // best first; never the matched intent
}

// Explain matches the utterance as Match does, says why the winner beat
// the runner-up, and ranks the other intents of the scopes the session
// sees by how close their nearest template comes, returning the best n
// (DefaultNearMisses when n <= 0, at most MaxNearMisses) with the reason
// each fell short: words a template lacks or has in excess, slots left
// empty, a blacklist phrase (RES-06), a disabled intent (REG-10), or a
// lower rank than the match. Closeness is a relaxed parse (AlignSlots):
// any word may be left unexplained and any template word unsaid, at a
// cost. It looks at every intent that shares a word with the utterance, so
// it is slower than Match and meant for tools.
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
	ranked := e.Recognize(utterance, lang, sessionID, 0)
	if len(ranked) > 0 {
		ex.Match = ranked[0]
	}
	if len(ranked) > 1 {
		ex.RunnerUp = ranked[1]
		ex.Won = won(ranked[0], ranked[1])
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	pools := e.pools(lang, sessionOrDefault(sessionID))
	c := e.charts.Get().(*chart)
	defer e.charts.Put(c)
	c.reset(norm, lexiconFor(e.opts.Lexicons, lang), lang, true)
	if c.n > e.opts.MaxUtteranceWords {
		return ex
	}
	matched := map[nameKey]*Result{}
	for _, r := range ranked {
		matched[nameKey{r.SkillID, r.IntentName}] = r
	}
	var near []NearMiss
	for _, s := range pools {
		for _, ci := range s.intents {
			nk := nameKey{ci.def.SkillID, ci.def.IntentName}
			if ex.Match != nil && nk == (nameKey{ex.Match.SkillID, ex.Match.IntentName}) {
				continue
			}
			if r, ok := matched[nk]; ok {
				near = append(near, NearMiss{SkillID: r.SkillID, IntentName: r.IntentName, Sample: r.Sample,
					Score: r.Rank.share(c.n), Rank: r.Rank,
					Reason: fmt.Sprintf("matches too, ranked below %s:%s: it has %s", ex.Match.SkillID, ex.Match.IntentName, ex.Match.Rank.Beats(r.Rank))})
				continue
			}
			if !c.sharesWord(ci) {
				continue
			}
			f, ok := c.align(ci, ci.templates)
			if !ok {
				continue
			}
			r := c.result(&f, lang)
			r.Why = r.explain()
			near = append(near, NearMiss{SkillID: r.SkillID, IntentName: r.IntentName, Sample: r.Sample,
				Score: r.Rank.share(c.n), Rank: r.Rank, Reason: c.shortfall(ci, r)})
		}
	}
	sortx.Func(near, func(a, b NearMiss) int {
		return cmp.Or(a.Rank.Compare(b.Rank), strings.Compare(a.SkillID, b.SkillID), strings.Compare(a.IntentName, b.IntentName))
	})
	if len(near) > n {
		near = near[:n]
	}
	ex.NearMisses = near
	return ex
}

// won says why a beat b.
func won(a, b *Result) string {
	if w := a.Rank.Beats(b.Rank); w != "" {
		return fmt.Sprintf("%s:%s beat %s:%s: %s", a.SkillID, a.IntentName, b.SkillID, b.IntentName, w)
	}
	return fmt.Sprintf("%s:%s and %s:%s parse equally well; the tie goes to the skill and intent name that sort first",
		a.SkillID, a.IntentName, b.SkillID, b.IntentName)
}

// share is the part of an utterance of n words a parse accounts for
// without open text or loss.
func (r Rank) share(n int) float64 {
	if n == 0 {
		return 0
	}
	return min(1, max(0, float64(n-r.Lost-r.Open-r.Unlisted)/float64(n+r.Lost)))
}

// sharesWord reports whether the utterance says a literal word of any of
// ci's templates.
func (c *chart) sharesWord(ci *compiledIntent) bool {
	for _, t := range ci.templates {
		for _, w := range c.words {
			if _, ok := slices.BinarySearch(t.sum.lits, w); ok {
				return true
			}
		}
	}
	return false
}

// align is parseIntent for a relaxed chart: it ignores the blacklist and
// the enabled state, which shortfall reports.
func (c *chart) align(ci *compiledIntent, ts []*ctemplate) (parsed, bool) {
	c.begin(ci.nodes)
	var best parsed
	ok := false
	for _, t := range ts {
		score, bind, whole := c.parse(t.root, bitLit)
		if whole && (!ok || score > best.score) {
			best, ok = parsed{c: ci, t: t, score: score, bind: bind}, true
		}
	}
	return best, ok
}

// shortfall says why an intent's relaxed alignment r is not a match.
func (c *chart) shortfall(ci *compiledIntent, r *Result) string {
	var why []string
	if !ci.enabled {
		why = append(why, "disabled (REG-10)")
	}
	if c.suppressed(ci) {
		why = append(why, "suppressed by its blacklist (RES-06)")
	}
	for _, q := range ci.required {
		if _, ok := r.Slots[q]; !ok {
			why = append(why, fmt.Sprintf("required slot {%s} unbound (DEF-08)", q))
		}
	}
	if len(why) == 0 && r.Rank.Lost == 0 {
		return "aligns, yet does not match: " + r.Why
	}
	return strings.Join(append(why, r.Why), "; ")
}

// AlignSlots aligns the utterance with the templates of one intent under
// relaxed rules and returns the best alignment, or nil when the intent is
// unknown or no template shares a literal word with it. Words the
// templates cannot place are left unexplained and template words not said
// are skipped, each at a cost counted in Rank.Lost; slots take what
// aligns with them, preferring listed and typed values as Match does. A
// classifier that only knows which intent was meant (a paraphrase tier)
// uses it to find the slot values. The intent's enabled state and
// blacklist are not applied.
func (e *TemplateEngine) AlignSlots(sessionID, skillID, intentName, lang, utterance string) *Result {
	norm := Normalize(utterance)
	if norm == "" {
		return nil
	}
	lang = strings.ToLower(lang)
	e.mu.RLock()
	defer e.mu.RUnlock()
	var ci *compiledIntent
	for _, s := range e.pools(lang, sessionOrDefault(sessionID)) {
		if x := s.intents[nameKey{skillID, intentName}]; x != nil && (ci == nil || x.def.SessionID != DefaultSession) {
			ci = x
		}
	}
	if ci == nil {
		return nil
	}
	c := e.charts.Get().(*chart)
	defer e.charts.Put(c)
	c.reset(norm, lexiconFor(e.opts.Lexicons, lang), lang, true)
	if c.n > e.opts.MaxUtteranceWords {
		return nil
	}
	f, ok := c.align(ci, ci.templates)
	if !ok {
		return nil
	}
	r := c.result(&f, lang)
	if r.untyped > 0 {
		// A number or duration its parser does not read is no value: the
		// relaxed parse puts any word where the slot sits ("no make it
		// please" gives no duration "please").
		for _, nt := range r.notes {
			if nt.kind == bindUnlisted && parsedTypeName(nt.typ) {
				delete(r.Slots, nt.name)
			}
		}
	}
	r.Why = r.explain()
	return r
}
