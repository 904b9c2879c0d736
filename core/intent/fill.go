package intent

import (
	"context"
	"maps"
	"slices"
	"strings"
)

// Fill is an intent an utterance completes as the value of one slot.
type Fill struct {
	SkillID, IntentName string
	// Slot is the slot the utterance is a value of; Value the utterance
	// as normalised.
	Slot, Value string
}

// Fills finds the intents that keep admits whose requests are about a
// slot the utterance, said alone, is a value of: a typed slot (number,
// duration) its parser reads whole ("five minutes"), or a value its
// entity list spells whole, never a blacklisted one. An intent counts
// only when most of its templates declare that slot: the value is what
// its requests are for ("set a timer for five minutes"), not a detail one
// of them may add ("cancel the five minute timer"). Open slots are never
// filled: any words would do. It serves a question that named a skill's
// topic, whose answer is a bare value ("the timer?" … "five minutes").
func (e *TemplateEngine) Fills(utterance, lang, sessionID string, keep func(skillID, intentName string) bool) []Fill {
	tag, err := NormalizeLang(lang)
	if err != nil {
		return nil
	}
	norm := Normalize(utterance)
	words := strings.Fields(norm)
	if len(words) == 0 || len(words) > MaxMatchWords {
		return nil
	}
	tp := typedParser{words: words, english: strings.HasPrefix(tag, "en")}
	whole := func(s *slotInfo) bool {
		n := len(words)
		switch {
		case s.black != nil && strictEnds(s.black, words, 0).has(n):
			return false
		case s.ent != nil && strictEnds(s.ent, words, 0).has(n):
			return true
		case s.typ == "duration":
			return tp.durationEnds(0).has(n)
		case s.typ == "number":
			return tp.numberEnds(0).has(n)
		}
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []Fill
	for _, p := range e.pools(tag, sessionOrDefault(sessionID)) {
		for k, c := range p.intents {
			if !c.enabled || keep != nil && !keep(k.skill, k.intent) {
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(c.slots)) {
				if s := c.slots[name]; whole(s) && declaredByMost(c.def.Samples, name) {
					out = append(out, Fill{SkillID: k.skill, IntentName: k.intent, Slot: name, Value: norm})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Fill) int {
		return strings.Compare(a.SkillID+":"+a.IntentName+":"+a.Slot, b.SkillID+":"+b.IntentName+":"+b.Slot)
	})
	return out
}

// declaredByMost reports whether more than half of the templates declare
// slot.
func declaredByMost(templates []string, slot string) bool {
	n := 0
	for _, src := range templates {
		if t, err := Parse(src); err == nil && slices.Contains(t.SlotNames(), slot) {
			n++
		}
	}
	return 2*n > len(templates)
}

// Fills is TemplateEngine.Fills over the intents the query may dispatch:
// its skill's only, when it names one, and those the session and the
// context rules admit.
func (s *Stack) Fills(ctx context.Context, q Query) []Fill {
	if ctx.Err() != nil || len(q.Hypotheses) == 0 {
		return nil
	}
	return s.Templates.Fills(q.Hypotheses[0].Text, q.Lang, q.Session.ID(), s.keeper(q))
}
