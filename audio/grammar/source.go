package grammar

import (
	"strconv"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// FromTemplates returns the enabled template intents registered in the
// default session: what the robot's own ear may hear. Entities the
// registration service attached to a definition come along.
func FromTemplates(regs []intent.Registration) []Intent {
	var out []Intent
	for _, r := range regs {
		if !r.Enabled || r.SessionID != intent.DefaultSession {
			continue
		}
		out = append(out, FromDefinition(r.Definition))
	}
	return out
}

// FromDefinition returns one template intent definition's sentences (a
// skill's answer rule, for instance).
func FromDefinition(d intent.TemplateIntent) Intent {
	return Intent{Skill: d.SkillID, Name: d.IntentName, Lang: d.Lang, Templates: d.Samples,
		Vocab: d.Vocab, Entities: d.Entities, SlotTypes: d.SlotTypes}
}

// FromKeywords returns the enabled keyword intents of the default
// session as sentences. A keyword intent matches its vocabularies in any
// order among other words; a grammar cannot say that compactly, so its
// sentence is the optional vocabularies first, then the required ones and
// one of each one-of group, in the order registered: "turn on the light"
// from optional "turn", required "on" and "light" gives "[turn] on light"
// with the words each vocabulary lists. Said in another order, it is not
// heard.
func FromKeywords(regs []intent.KeywordRegistration) []Intent {
	var out []Intent
	for _, r := range regs {
		if !r.Enabled || r.SessionID != intent.DefaultSession {
			continue
		}
		d := r.Definition
		vocab := map[string][]string{}
		tpl := ""
		ref := func(v intent.KeywordVocab, optional bool) {
			name := "k" + strconv.Itoa(len(vocab))
			vocab[name] = v.Samples
			if optional {
				tpl += "[<" + name + ">] "
			} else {
				tpl += "<" + name + "> "
			}
		}
		for _, v := range d.Optional {
			ref(v, true)
		}
		for _, v := range d.Required {
			ref(v, false)
		}
		for _, group := range d.OneOf {
			if len(group) == 0 {
				continue
			}
			var alts []string
			for _, v := range group {
				name := "k" + strconv.Itoa(len(vocab))
				vocab[name] = v.Samples
				alts = append(alts, "<"+name+">")
			}
			tpl += "(" + strings.Join(alts, "|") + ") "
		}
		if tpl == "" {
			continue
		}
		out = append(out, Intent{Skill: d.SkillID, Name: d.IntentName, Lang: d.Lang, Templates: []string{tpl}, Vocab: vocab})
	}
	return out
}
