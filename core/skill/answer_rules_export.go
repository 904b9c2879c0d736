package skill

import "github.com/openjibo/jibod/core/intent"

// AnswerRules lists the answer rules' intents of every owner the host
// knows (the runtime's own and its skills'), sorted by rule, skill,
// intent and language: the sentences a spoken answer to a question can
// be. The speech recogniser builds its answer grammar from them, used
// only while a question waits, so the answers never compete with the
// wake phrase. Each definition is a copy.
func (h *Host) AnswerRules() []intent.TemplateIntent { return h.rules.intents() }

// intents lists every rule's intent definitions, in the order of names.
func (b *ruleBook) intents() []intent.TemplateIntent {
	var out []intent.TemplateIntent
	for _, name := range b.names() {
		b.mu.RLock()
		eng := b.rules[name]
		b.mu.RUnlock()
		if eng == nil {
			continue // removed meanwhile
		}
		for _, r := range eng.Registrations("") {
			out = append(out, r.Definition)
		}
	}
	return out
}
