package grammar

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Wrappers are the words people put around a request without changing
// it: "could you set a timer for seven minutes please", "turn it down a
// bit", "what time is it now". Each is a template of the template
// language. The grammar holds them as two optional rules shared by every
// command sentence, so they cost a few states of the decoder's automaton
// rather than a copy of every sentence; the intent engines skip them as
// fillers (core/intent/lexicon).
type Wrappers struct {
	// Before are said before a command, After after it.
	Before, After []string
}

// MaxWrappers bounds the wrappers' sentences on each side.
const MaxWrappers = 500

// englishWrappers are the words English speakers put around a request:
// polite and hedging words, a small general set rather than any test
// sentence (docs/hearing.md). Each is one of the fillers the intent
// engines skip (core/intent/lexicon/en.fillers), which the hearing
// layer's tests check.
var englishWrappers = Wrappers{
	Before: []string{
		"please",
		"(can|could|would|will) you [please]",
		"(i want|id like|i would like) you to",
	},
	After: []string{"please", "thanks", "thank you"},
}

// WrappersFor returns the wrappers of a language (a BCP-47 tag): the
// English ones for English, none for the others. The result is the
// caller's own.
func WrappersFor(lang string) Wrappers {
	if sameLanguage(lang, "en") {
		return Wrappers{Before: slices.Clone(englishWrappers.Before), After: slices.Clone(englishWrappers.After)}
	}
	return Wrappers{}
}

// wrapperTree expands the wrapper templates of one side into a word tree;
// nil when there are none.
func (b *builder) wrapperTree(side string, templates []string) (*node, error) {
	if len(templates) == 0 {
		return nil, nil
	}
	root := &node{}
	n := 0
	for _, tpl := range templates {
		samples, err := b.opts.TemplateLanguage.Expand(tpl, nil)
		if err != nil {
			return nil, fmt.Errorf("grammar: wrapper %q: %w", tpl, err)
		}
		for _, s := range samples {
			if strings.TrimSpace(s) == "" {
				continue // the wrapper left out: the rule is optional anyway
			}
			if strings.ContainsAny(s, "{}") {
				return nil, fmt.Errorf("grammar: wrapper %q has a slot", tpl)
			}
			seq, why, err := b.literal(s)
			if err != nil {
				return nil, err
			}
			if why != "" {
				b.g.dropped = append(b.g.dropped, Dropped{Skill: "wrapper", Intent: side, Sample: s, Why: why})
				continue
			}
			if n++; n > MaxWrappers {
				return nil, fmt.Errorf("grammar: more than %d wrappers %s a command", MaxWrappers, side)
			}
			b.keep(seq)
			root.add(seq)
		}
	}
	if root.next == nil {
		return nil, nil
	}
	return root, nil
}

// Wrapped reports whether the grammar has wrappers around its commands.
func (g *Grammar) Wrapped() bool { return g.before != nil || g.after != nil }

// The rules of the commands: the commands alone, or wrapped.
const (
	commandsRule = "command"
	beforeRule   = "before"
	afterRule    = "after"
	innerRule    = "intent"
)

// renderCommand writes the rule of the commands, with the wrappers
// around them when there are any.
func (g *Grammar) renderCommand(sb *strings.Builder) {
	refs := make([]string, len(g.command))
	for i, r := range g.command {
		refs[i] = "<" + r.name + ">"
	}
	if !g.Wrapped() {
		fmt.Fprintf(sb, "<%s> = %s;\n", commandsRule, strings.Join(refs, " | "))
		return
	}
	fmt.Fprintf(sb, "<%s> = %s;\n<%s> = %s;\n", commandsRule, g.wrap("<"+innerRule+">"), innerRule, strings.Join(refs, " | "))
	g.renderWrappers(sb)
}

// wrap returns the rule expansion of inner with the optional wrappers
// around it.
func (g *Grammar) wrap(inner string) string {
	parts := []string{inner}
	if g.before != nil {
		parts = append([]string{"[<" + beforeRule + ">]"}, parts...)
	}
	if g.after != nil {
		parts = append(parts, "[<"+afterRule+">]")
	}
	return strings.Join(parts, " ")
}

// renderWrappers writes the wrappers' rules that wrap refers to.
func (g *Grammar) renderWrappers(sb *strings.Builder) {
	if g.before != nil {
		fmt.Fprintf(sb, "<%s> = %s;\n", beforeRule, body(g.before))
	}
	if g.after != nil {
		fmt.Fprintf(sb, "<%s> = %s;\n", afterRule, body(g.after))
	}
}

// command0 reports whether w is a command sentence, wrapped or not.
func (g *Grammar) command0(w []string) bool {
	starts := []int{0}
	if g.before != nil {
		starts = append(starts, g.ends(g.before, w, 0)...)
	}
	for _, i := range starts {
		for _, r := range g.command {
			for _, j := range g.ends(r.root, w, i) {
				if j == len(w) || g.after != nil && slices.Contains(g.ends(g.after, w, j), len(w)) {
					return true
				}
			}
		}
	}
	return false
}

// SlotIntents lists the intents ("skill:intent") whose sentences have
// slots, sorted.
func (g *Grammar) SlotIntents() []string {
	var out []string
	for _, r := range g.command {
		if len(g.slots[r.comment]) > 0 {
			out = append(out, r.comment)
		}
	}
	slices.Sort(out)
	return out
}

// IntentWords returns the distinct words of one intent's sentences
// ("skill:intent"), sorted, without its slots' values or the wrappers:
// the words only that intent's requests are said with. ok is false when
// the grammar has no such intent.
func (g *Grammar) IntentWords(intent string) (_ []string, ok bool) {
	i := slices.IndexFunc(g.command, func(r *rule) bool { return r.comment == intent })
	if i < 0 {
		return nil, false
	}
	seen := map[string]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		for l, c := range n.next {
			if l.word != "" {
				seen[l.word] = true
			}
			walk(c)
		}
	}
	walk(g.command[i].root)
	return slices.Sorted(maps.Keys(seen)), true
}

// IntentJSGF returns a grammar of one intent's sentences ("skill:intent"),
// wrapped as the commands are, without the wake phrase: a search of it
// hears what that intent's slots hold in speech already taken for the
// intent. ok is false when the grammar has no such intent.
func (g *Grammar) IntentJSGF(intent string) (_ string, ok bool) {
	i := slices.IndexFunc(g.command, func(r *rule) bool { return r.comment == intent })
	if i < 0 {
		return "", false
	}
	r := g.command[i]
	var sb strings.Builder
	sb.WriteString("#JSGF V1.0;\ngrammar jibo;\n\n")
	fmt.Fprintf(&sb, "public <utterance> = %s;\n", g.wrap("<"+r.name+">"))
	g.renderWrappers(&sb)
	// The rules the intent's sentences reach, each once.
	seen := map[string]bool{}
	var reach func(n *node)
	reach = func(n *node) {
		for l, c := range n.next {
			if l.rule != "" && !seen[l.rule] {
				seen[l.rule] = true
				if sub := g.rules[l.rule]; sub != nil {
					reach(sub.root)
				}
			}
			reach(c)
		}
	}
	seen[r.name] = true
	reach(r.root)
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		if sub := g.rules[name]; sub != nil {
			fmt.Fprintf(&sb, "<%s> = %s;\n", name, ruleBody(sub.root))
		}
	}
	if o := g.open; o != nil && seen[o.name] {
		words := slices.Sorted(maps.Keys(o.vocab))
		fmt.Fprintf(&sb, "<%s_word> = %s;\n<%s> = %s;\n", o.name, strings.Join(words, " | "), o.name, openBody(o.name+"_word", o.max))
	}
	return sb.String(), true
}
