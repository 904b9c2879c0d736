package hearing

import (
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/core/intent"
)

// IntentTemplates is core/intent's template language, as the speech
// grammar takes it (grammar.TemplateLanguage).
type IntentTemplates struct{}

// Expand is intent.Expand with the default limits; its warnings are the
// intent engines' to report, not the grammar's.
func (IntentTemplates) Expand(template string, vocab map[string][]string) ([]string, error) {
	samples, _, err := intent.Expand(template, vocab, intent.ExpandOptions{})
	return samples, err
}

// Normalize is intent.Normalize.
func (IntentTemplates) Normalize(text string) string { return intent.Normalize(text) }

// CommandGrammar builds the speech grammar, with the wake phrase, of
// what the stack's skills registered, without the recogniser's
// pronunciation check (NewRecognizer's grammars have it).
func CommandGrammar(s *intent.Stack, lang string) (*grammar.Grammar, error) {
	return grammar.Build(GrammarIntents(s), grammar.Options{TemplateLanguage: IntentTemplates{}, Lang: lang, Wake: audio.WakePhrase})
}

// GrammarIntents lists the stack's template and keyword intents as the
// speech grammar reads them.
func GrammarIntents(s *intent.Stack) []grammar.Intent {
	intents := templateIntents(s.Templates.Registrations(""))
	return append(intents, keywordIntents(s.Keywords.Registrations(""))...)
}

// templateIntents returns the enabled template intents registered in the
// default session: what the robot's own ear may hear. Entities the
// registration service attached to a definition come along.
func templateIntents(regs []intent.Registration) []grammar.Intent {
	var out []grammar.Intent
	for _, r := range regs {
		if !r.Enabled || r.SessionID != intent.DefaultSession {
			continue
		}
		out = append(out, definitionIntent(r.Definition))
	}
	return out
}

// definitionIntent returns one template intent definition's sentences (a
// skill's answer rule, for instance).
func definitionIntent(d intent.TemplateIntent) grammar.Intent {
	return grammar.Intent{Skill: d.SkillID, Name: d.IntentName, Lang: d.Lang, Templates: d.Samples,
		Vocab: d.Vocab, Entities: d.Entities, SlotTypes: d.SlotTypes}
}

// keywordIntents returns the enabled keyword intents of the default
// session as sentences. A keyword intent matches its vocabularies in any
// order among other words; a grammar cannot say that compactly, so its
// sentence is the optional vocabularies first, then the required ones and
// one of each one-of group, in the order registered: "turn on the light"
// from optional "turn", required "on" and "light" gives "[turn] on light"
// with the words each vocabulary lists. Said in another order, it is not
// heard.
func keywordIntents(regs []intent.KeywordRegistration) []grammar.Intent {
	var out []grammar.Intent
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
		out = append(out, grammar.Intent{Skill: d.SkillID, Name: d.IntentName, Lang: d.Lang, Templates: []string{tpl}, Vocab: vocab})
	}
	return out
}
