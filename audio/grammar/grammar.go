// Package grammar turns the intents skills have registered into a JSGF
// grammar for a grammar-constrained speech recogniser, so the robot only
// ever hears sentences it can act on.
//
// Every template (INTENT-1) is expanded with core/intent's expander, but
// the grammar holds a bounded choice of the samples (Options.Sentences):
// each template's plainest sentence and that sentence with one group
// changed at a time, so every word is heard while the recogniser's search
// stays small (see choices). The sentences of each intent are merged into
// a word tree that becomes one JSGF rule. The utterance rule is
//
//	public <utterance> = [<wake>] <command> | <wake>;
//
// so "hey jibo" alone, "hey jibo, <command>" and (for the listener's
// command window) a bare command are all sentences, and the wake phrase is
// recognised as part of the sentence it starts. With wake decoys
// (Options.Decoys) the <wake> before a command becomes <wake_or_decoy>.
//
// Slots become rules of their own, chosen in this order:
//
//  1. the slot's .entity values (GRM-15), when the intent has any: said
//     aloud, a value must be one of them;
//  2. a built-in class by the slot's type ({number:x}) or, failing that,
//     its name when that names a type (less a "_2" suffix, since a
//     template may not repeat a slot): number takes the numbers zero to
//     one hundred; duration and length take the lengths of time a timer
//     takes ("five minutes", "an hour and a half", one second to a day);
//     see [Classes]. A slot's name is no guess at its values: a volume
//     {level} runs 0 to 10 where a {number} runs to a hundred, so such a
//     slot says what it takes with a .entity of its skill's;
//  3. otherwise an open slot: one to Options.OpenWords (default 3) words
//     from the grammar's own vocabulary (every word of every sample,
//     entity value and class) plus Options.OpenVocabulary. The recogniser
//     cannot hear a word it has never been given, so an open slot only
//     catches words the robot already knows.
//
// Samples with words the recogniser cannot say (Options.Unknown, or digits,
// which a speaker says as words) are left out and reported in
// [Grammar.Dropped].
package grammar

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// TemplateLanguage is the sentence template language the intent engines
// read: the grammar hears a sentence only as the engines would match it,
// so it expands templates and splits text into words as they do
// (core/runtime/hearing.IntentTemplates is core/intent's).
type TemplateLanguage interface {
	// Expand returns a template's samples, sorted, unique, normalised,
	// each slot written as a bare {name}; vocab maps a vocabulary name
	// to its templates, for <name> references. A malformed template is
	// an error.
	Expand(template string, vocab map[string][]string) ([]string, error)
	// Normalize returns text as the engines match it: lowercase words
	// separated by single spaces, punctuation gone.
	Normalize(text string) string
}

// Limits and defaults.
const (
	// DefaultOpenWords is how many words an open slot takes at most.
	DefaultOpenWords = 3
	// MaxOpenWords bounds Options.OpenWords.
	MaxOpenWords = 6
	// DefaultMaxSamples bounds the expanded samples of the whole grammar.
	DefaultMaxSamples = 200_000
	// DefaultMaxBytes bounds the JSGF text.
	DefaultMaxBytes = 2 << 20
	// MaxWords bounds the grammar's vocabulary.
	MaxWords = 20_000
	// MaxIntents bounds the intents of one grammar.
	MaxIntents = 5_000
	// MaxAcceptWords bounds the sentences Accepts checks.
	MaxAcceptWords = 64
)

// Intent is one intent's sentences as a skill registered them.
type Intent struct {
	Skill string // skill id (bus id)
	Name  string // intent name
	Lang  string // BCP-47 tag
	// Templates are the intent's samples in the template grammar.
	Templates []string
	// Vocab maps a vocabulary name to its templates, for <name>.
	Vocab map[string][]string
	// Entities maps a slot name to its value templates (.entity).
	Entities map[string][]string
	// SlotTypes maps a slot name to its type ({number:x}).
	SlotTypes map[string]string
}

// Options tunes Build.
type Options struct {
	// TemplateLanguage is the language the intents' templates are
	// written in; required.
	TemplateLanguage TemplateLanguage
	// Lang keeps the intents whose language has the same primary subtag
	// ("en" for "en-US"); "" keeps every intent.
	Lang string
	// Wake is the wake phrase; "" builds a grammar of commands only.
	Wake string
	// Decoys are phrases that sound like the wake phrase but are not it
	// ("hey jay"): they compete with it before a command, so speech
	// addressed to someone else is heard as a decoy rather than forced
	// onto the wake phrase. A decoy alone is a sentence only in a grammar
	// without commands: in one with them it would also compete with the
	// commands that start as it does ("hey there"). A sentence starting
	// with a decoy is a sentence of the grammar (Accepts) that Decoyed
	// reports; the recogniser drops it. Their words stay out of open
	// slots. Ignored without a wake phrase.
	Decoys []string
	// DecoyWeight is the decoys' prior against the wake phrase's 1 (a
	// JSGF weight): under 1, a decoy wins only where it fits the speech
	// clearly better. 0 means 1.
	DecoyWeight float64
	// OpenWords is the most words an open slot takes; 0 means
	// DefaultOpenWords, -1 leaves samples with open slots out.
	OpenWords int
	// OpenVocabulary are extra words open slots may take.
	OpenVocabulary []string
	// Classes are the slot classes by type or name; nil means Classes.
	Classes map[string][]string
	// Unknown are words the recogniser cannot pronounce: samples needing
	// them are left out.
	Unknown map[string]bool
	// Wrappers are the words people put around a request ("could you
	// …", "… please"): optional before and after every command
	// sentence. The zero value has none.
	Wrappers Wrappers
	// Sentences is how many sentences one intent gets at most, chosen
	// from its templates' expansions by a rule that keeps every word and
	// slot (see representative); 0 means DefaultSentences, -1 every
	// expansion.
	Sentences int
	// MaxSamples bounds the expanded samples and MaxBytes the JSGF text;
	// 0 means the defaults.
	MaxSamples int
	MaxBytes   int
}

// Dropped is a sample, or a whole intent, left out of the grammar.
type Dropped struct {
	Skill, Intent string
	Sample        string // "" for the whole intent
	Why           string
}

func (d Dropped) String() string {
	if d.Sample == "" {
		return fmt.Sprintf("%s:%s: %s", d.Skill, d.Intent, d.Why)
	}
	return fmt.Sprintf("%s:%s %q: %s", d.Skill, d.Intent, d.Sample, d.Why)
}

// Grammar is a built grammar: its JSGF text, its words, what was left out,
// and a matcher for its sentences.
type Grammar struct {
	jsgf    string
	words   []string
	dropped []Dropped
	intents int
	samples int

	tpl     TemplateLanguage
	wake    []string
	decoys  [][]string
	command []*rule // one per intent
	// before and after are the wrappers' word trees; nil for none.
	before, after *node
	rules         map[string]*rule
	open          *openRule
	// slots maps "<skill>:<intent>" and a slot's name to the rule it
	// takes.
	slots map[string]map[string]string
}

// JSGF returns the grammar's JSGF text.
func (g *Grammar) JSGF() string { return g.jsgf }

// Words returns the grammar's distinct words, sorted.
func (g *Grammar) Words() []string { return slices.Clone(g.words) }

// Dropped lists what was left out and why.
func (g *Grammar) Dropped() []Dropped { return slices.Clone(g.dropped) }

// Intents is how many intents the grammar has sentences for.
func (g *Grammar) Intents() int { return g.intents }

// Samples is how many sentences (each slot one rule) went into the
// grammar.
func (g *Grammar) Samples() int { return g.samples }

// label is one edge of a word tree: a word, or a reference to a rule.
type label struct {
	word string
	rule string
}

func (l label) jsgf() string {
	if l.rule != "" {
		return "<" + l.rule + ">"
	}
	return l.word
}

// node is a word tree node: the edges out of it, and whether a sentence
// may end here.
type node struct {
	next map[label]*node
	end  bool
}

func (n *node) add(seq []label) {
	for _, l := range seq {
		if n.next == nil {
			n.next = map[label]*node{}
		}
		c := n.next[l]
		if c == nil {
			c = &node{}
			n.next[l] = c
		}
		n = c
	}
	n.end = true
}

// rule is a named word tree.
type rule struct {
	name    string
	comment string
	root    *node
}

// openRule is the open slot: 1..max words of vocab.
type openRule struct {
	name  string
	max   int
	vocab map[string]bool
}

// Classes are the built-in slot classes, by slot type or name, in the
// template grammar; a class may use another through a slot of its name.
// Written for English: other languages get open slots.
var Classes = map[string][]string{
	"number": {
		"(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)",
		"(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety) [one|two|three|four|five|six|seven|eight|nine]",
		"(a|one) hundred",
	},
	// Lengths run from a second to a day, as a timer takes them (the
	// timer skill's ParseDuration: "zero seconds" and "twenty four and a
	// half hours" are refused there, so they are no sentence here). Hours
	// go to a day and the second part of a compound under sixty: "fifty
	// eight hours seventy seven minutes" is no length anyone says, and
	// every such path is one more way to hear everyday speech as a timer.
	"count":       {"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)", "(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety) [one|two|three|four|five|six|seven|eight|nine]", "(a|one) hundred"},
	"hour_count":  {"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)", "twenty (one|two|three|four)"},
	"hour_part":   {"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)", "twenty (one|two|three)"},
	"under_sixty": {"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)", "(twenty|thirty|forty|fifty) [one|two|three|four|five|six|seven|eight|nine]"},
	"duration": {
		"{count} (second|seconds|minute|minutes)",
		"{hour_count} (hour|hours)",
		"{hour_part} (hour|hours) [and] {under_sixty} (minute|minutes)",
		"{under_sixty} (minute|minutes) [and] {under_sixty_2} (second|seconds)",
		"{number} and a half minutes",
		"{hour_part} and a half hours",
		"(a|one) (second|minute)",
		"(an|one) hour",
		"a minute and a half",
		"an hour and a half",
		"half (a minute|an hour)",
		"a (half|quarter) hour",
		"[a] quarter of an hour",
	},
}

// classAliases maps slot names to the class they take: the names of
// types and amounts only. A name that says what is counted ("level",
// "volume") is no type: a volume level runs 0 to 10, a percentage to a
// hundred, and the grammar offered "volume forty one" to a skill that
// refuses it.
var classAliases = map[string]string{
	"number": "number", "num": "number", "amount": "number", "quantity": "number",
	"duration": "duration", "length": "duration",
}

var errTooLarge = errors.New("grammar too large")

// builder holds the state of one Build.
type builder struct {
	opts    Options
	classes map[string][]string
	g       *Grammar
	vocab   map[string]bool
	// entity rules by content, so intents sharing values share a rule.
	entityRules map[string]string
	// slotValues are the current intent's entity slots expanded, by slot:
	// every sample through a slot reads the same values.
	slotValues map[string]expandedValues
	classRules map[string]string
	building   []string // classes being built, for cycles
	usesOpen   bool
	expanded   int // samples expanded, kept or not
}

// Build makes the grammar of intents. It fails only when the grammar would
// have no sentence or exceed its limits; samples it cannot use are
// reported in Dropped.
func Build(intents []Intent, opts Options) (*Grammar, error) {
	if opts.TemplateLanguage == nil {
		return nil, errors.New("grammar: no template language (Options.TemplateLanguage)")
	}
	if opts.OpenWords == 0 {
		opts.OpenWords = DefaultOpenWords
	}
	if opts.OpenWords < -1 || opts.OpenWords > MaxOpenWords {
		return nil, fmt.Errorf("grammar: open slot length %d not in 1..%d (or -1)", opts.OpenWords, MaxOpenWords)
	}
	if opts.MaxSamples <= 0 {
		opts.MaxSamples = DefaultMaxSamples
	}
	if opts.Sentences == 0 {
		opts.Sentences = DefaultSentences
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if len(intents) > MaxIntents {
		return nil, fmt.Errorf("grammar: %d intents, more than %d", len(intents), MaxIntents)
	}
	classes := opts.Classes
	if classes == nil {
		classes = Classes
	}
	b := &builder{opts: opts, classes: classes, vocab: map[string]bool{},
		entityRules: map[string]string{}, classRules: map[string]string{},
		g: &Grammar{tpl: opts.TemplateLanguage, rules: map[string]*rule{}, slots: map[string]map[string]string{}}}
	if opts.Wake != "" {
		b.g.wake = strings.Fields(b.opts.TemplateLanguage.Normalize(opts.Wake))
		for _, w := range b.g.wake {
			if why := b.unusable(w); why != "" {
				return nil, fmt.Errorf("grammar: wake phrase %q: %s", opts.Wake, why)
			}
			b.vocab[w] = true
		}
	}
	sorted := slices.Clone(intents)
	sort.Slice(sorted, func(i, j int) bool {
		a, c := sorted[i], sorted[j]
		return cmp.Or(cmp.Compare(a.Skill, c.Skill), cmp.Compare(a.Name, c.Name), cmp.Compare(a.Lang, c.Lang)) < 0
	})
	for _, in := range sorted {
		if !sameLanguage(in.Lang, opts.Lang) {
			continue
		}
		if err := b.addIntent(in); err != nil {
			return nil, err
		}
	}
	if len(b.g.command) == 0 && len(b.g.wake) == 0 {
		return nil, errors.New("grammar: no sentence to recognise (no usable intent and no wake phrase)")
	}
	if b.usesOpen {
		if b.opts.OpenWords < 1 {
			return nil, errors.New("grammar: open slot used while open slots are off") // unreachable: addIntent drops them
		}
		for _, w := range opts.OpenVocabulary {
			for _, x := range strings.Fields(b.opts.TemplateLanguage.Normalize(w)) {
				if b.unusable(x) == "" {
					b.vocab[x] = true
				}
			}
		}
		b.g.open = &openRule{name: "open", max: opts.OpenWords, vocab: maps.Clone(b.vocab)}
	}
	if err := b.addDecoys(); err != nil {
		return nil, err
	}
	if len(b.g.command) > 0 {
		// After the open slots took their words, as the decoys do: an
		// open slot hears what a skill's sentences say, not a wrapper.
		var err error
		if b.g.before, err = b.wrapperTree("before", opts.Wrappers.Before); err != nil {
			return nil, err
		}
		if b.g.after, err = b.wrapperTree("after", opts.Wrappers.After); err != nil {
			return nil, err
		}
	}
	if len(b.vocab) > MaxWords {
		return nil, fmt.Errorf("grammar: %d words, more than %d: %w", len(b.vocab), MaxWords, errTooLarge)
	}
	b.g.words = slices.Sorted(maps.Keys(b.vocab))
	if err := b.render(); err != nil {
		return nil, err
	}
	return b.g, nil
}

// MaxDecoys bounds Options.Decoys.
const MaxDecoys = 500

// addDecoys checks the decoy phrases and adds their words to the
// grammar's (after the open slots took theirs, so no slot hears one).
func (b *builder) addDecoys() error {
	if len(b.g.wake) == 0 || len(b.opts.Decoys) == 0 {
		return nil
	}
	if w := b.opts.DecoyWeight; w < 0 || w > 1 || math.IsNaN(w) {
		return fmt.Errorf("grammar: wake decoy weight %g not in (0, 1]", w)
	}
	if len(b.opts.Decoys) > MaxDecoys {
		return fmt.Errorf("grammar: %d wake decoys, more than %d", len(b.opts.Decoys), MaxDecoys)
	}
	for _, d := range b.opts.Decoys {
		seq, why, _ := b.literal(d)
		if why != "" {
			return fmt.Errorf("grammar: wake decoy %q: %s", d, why)
		}
		words := make([]string, len(seq))
		for i, l := range seq {
			words[i] = l.word
		}
		if slices.Equal(words, b.g.wake) {
			return fmt.Errorf("grammar: wake decoy %q is the wake phrase", d)
		}
		if !slices.ContainsFunc(b.g.decoys, func(x []string) bool { return slices.Equal(x, words) }) {
			b.g.decoys = append(b.g.decoys, words)
		}
	}
	for _, d := range b.g.decoys {
		for _, w := range d {
			b.vocab[w] = true
		}
	}
	return nil
}

// wakeOrDecoy is the body of the rule that starts a command: the wake
// phrase or one of its decoys, weighted. pocketsphinx normalises the
// weights of a rule's alternatives and applies them to the transition of
// each one's first word (a weight on a rule reference is lost), so the
// phrase and the decoys are alternatives of one rule, each starting with
// a word. The decoys are a word tree, so those sharing a first word have
// it once: the decoder spends time on every word that can start a
// sentence all through the silence before it.
func (b *builder) wakeOrDecoy() string {
	wake := strings.Join(b.g.wake, " ")
	if len(b.g.decoys) == 0 {
		return wake
	}
	w := b.opts.DecoyWeight
	if w == 0 {
		w = 1
	}
	weight := "/" + strconv.FormatFloat(w, 'g', -1, 64) + "/ "
	root := &node{}
	for _, d := range b.g.decoys {
		seq := make([]label, len(d))
		for i, word := range d {
			seq[i] = label{word: word}
		}
		root.add(seq)
	}
	alts := []string{"/1/ " + wake}
	for _, l := range sortedLabels(root) {
		alts = append(alts, weight+body(&node{next: map[label]*node{l: root.next[l]}}))
	}
	return strings.Join(alts, " | ")
}

// sameLanguage reports whether tag has want's primary subtag.
func sameLanguage(tag, want string) bool {
	if want == "" {
		return true
	}
	p := func(s string) string {
		s = strings.ToLower(s)
		if i := strings.IndexAny(s, "-_"); i >= 0 {
			s = s[:i]
		}
		return s
	}
	return p(tag) == p(want)
}

// unusable says why a word cannot be in the grammar, or "".
func (b *builder) unusable(w string) string {
	if b.opts.Unknown[w] {
		return fmt.Sprintf("the recogniser cannot pronounce %q", w)
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsMark(r) {
			return fmt.Sprintf("%q is not a spoken word (digits or symbols)", w)
		}
	}
	return ""
}

// addIntent expands an intent's templates into its rule. (One tree
// shared by every intent's samples was no faster to decode: pocketsphinx
// merges common prefixes itself.)
func (b *builder) addIntent(in Intent) error {
	root := &node{}
	n := 0
	drop := func(sample, why string) {
		b.g.dropped = append(b.g.dropped, Dropped{Skill: in.Skill, Intent: in.Name, Sample: sample, Why: why})
	}
	b.slotValues = map[string]expandedValues{}
	var usable []string          // templates that expand
	var usableSamples [][]string // and their samples
	for _, tpl := range in.Templates {
		samples, err := b.opts.TemplateLanguage.Expand(tpl, in.Vocab)
		if err != nil {
			drop(tpl, err.Error())
			continue
		}
		if b.expanded += len(samples); b.expanded > b.opts.MaxSamples {
			return fmt.Errorf("grammar: more than %d samples: %w", b.opts.MaxSamples, errTooLarge)
		}
		usable = append(usable, tpl)
		usableSamples = append(usableSamples, samples)
	}
	texts := usable // every sample of every template
	if b.opts.Sentences > 0 {
		texts = choices(usable)
	}
	seen := map[string]bool{}
	for i, text := range texts {
		var samples []string
		if b.opts.Sentences > 0 {
			var err error
			if samples, err = b.opts.TemplateLanguage.Expand(text, in.Vocab); err != nil {
				drop(text, err.Error())
				continue
			}
		} else {
			samples = usableSamples[i]
		}
		for _, s := range samples {
			if seen[s] || (b.opts.Sentences > 0 && n >= b.opts.Sentences) {
				continue
			}
			seen[s] = true
			seq, why, err := b.sequence(in, s)
			if err != nil {
				return err
			}
			if why != "" {
				drop(s, why)
				continue
			}
			b.g.samples++
			b.keep(seq)
			root.add(seq)
			n++
		}
	}
	if n == 0 {
		drop("", "no usable sample")
		return nil
	}
	b.g.intents++
	r := &rule{name: fmt.Sprintf("i%d", len(b.g.command)), comment: in.Skill + ":" + in.Name, root: root}
	b.g.command = append(b.g.command, r)
	b.g.rules[r.name] = r
	return nil
}

// sequence turns one expanded sample into labels; why is non-empty when
// the sample cannot be used.
func (b *builder) sequence(in Intent, sample string) (_ []label, why string, _ error) {
	var seq []label
	for _, part := range splitSlots(sample) {
		if part.slot == "" {
			for _, w := range strings.Fields(b.opts.TemplateLanguage.Normalize(part.text)) {
				if why := b.unusable(w); why != "" {
					return nil, why, nil
				}
				seq = append(seq, label{word: w})
			}
			continue
		}
		name, why, err := b.slotRule(in, part.slot)
		if err != nil || why != "" {
			return nil, why, err
		}
		key := in.Skill + ":" + in.Name
		if b.g.slots[key] == nil {
			b.g.slots[key] = map[string]string{}
		}
		b.g.slots[key][part.slot] = name
		if n := len(seq); n > 0 && articles[seq[n-1].word] {
			if name = b.withoutArticle(name); name == "" {
				return nil, fmt.Sprintf("every value of {%s} starts with an article, as the word before it", part.slot), nil
			}
		}
		seq = append(seq, label{rule: name})
	}
	if len(seq) == 0 {
		return nil, "no words", nil
	}
	return seq, "", nil
}

// articles are the words no value may start with after one of them:
// "make a {duration} timer" is no "make a a minute timer" (a path the
// recogniser would otherwise take for speech).
var articles = map[string]bool{"a": true, "an": true, "the": true}

// withoutArticle returns the rule of name's values that do not start
// with an article, made once (name itself when none does; "" when every
// one does). Only the first words differ, so the new tree shares the
// rest of name's.
func (b *builder) withoutArticle(name string) string {
	r := b.g.rules[name]
	if r == nil { // the open slot: any known word
		return name
	}
	derived := name + "_na"
	if _, ok := b.g.rules[derived]; ok {
		return derived
	}
	root := &node{end: r.root.end}
	changed := false
	for l, c := range r.root.next {
		switch {
		case l.rule == "" && articles[l.word]:
			changed = true
			continue
		case l.rule != "":
			inner := b.withoutArticle(l.rule)
			if inner != l.rule {
				changed = true
			}
			if inner == "" {
				continue
			}
			l = label{rule: inner}
		}
		if root.next == nil {
			root.next = map[label]*node{}
		}
		root.next[l] = c
	}
	switch {
	case !changed:
		return name
	case root.next == nil && !root.end:
		return ""
	}
	b.g.rules[derived] = &rule{name: derived, comment: r.comment + ", no article first", root: root}
	return derived
}

type part struct{ text, slot string }

// splitSlots splits an expanded sample into text and {slot} parts.
func splitSlots(s string) []part {
	var out []part
	for s != "" {
		i := strings.IndexByte(s, '{')
		j := strings.IndexByte(s, '}')
		if i < 0 || j < i {
			out = append(out, part{text: s})
			break
		}
		if i > 0 {
			out = append(out, part{text: s[:i]})
		}
		out = append(out, part{slot: s[i+1 : j]})
		s = s[j+1:]
	}
	return out
}

// slotRule returns the rule a slot of in takes (see the package comment).
func (b *builder) slotRule(in Intent, slot string) (string, string, error) {
	if vals := in.Entities[slot]; len(vals) > 0 {
		return b.entityRule(in, slot, vals)
	}
	class := ""
	if t := in.SlotTypes[slot]; t != "" {
		if _, ok := b.classes[t]; ok {
			class = t
		}
	}
	if class == "" {
		// A template may not repeat a slot, so a second number is
		// {number_2}: the suffix is not part of the class name.
		base := strings.TrimRight(slot, "0123456789")
		if base != slot && strings.HasSuffix(base, "_") {
			base = strings.TrimSuffix(base, "_")
		} else {
			base = slot
		}
		if _, ok := b.classes[base]; ok {
			class = base
		} else if a, ok := classAliases[base]; ok {
			if _, ok := b.classes[a]; ok {
				class = a
			}
		}
	}
	if class != "" {
		name, err := b.classRule(class)
		return name, "", err
	}
	if b.opts.OpenWords < 1 {
		return "", fmt.Sprintf("open slot {%s} (open slots are off)", slot), nil
	}
	b.usesOpen = true
	return "open", "", nil
}

// expandedValues are an entity slot's values expanded: the samples,
// sorted and unique, joined as the key of their rule, and the values that
// did not expand.
type expandedValues struct {
	samples []string
	key     string
	dropped []Dropped
}

// values expands the values of in's entity slot once per intent.
func (b *builder) values(in Intent, slot string, vals []string) expandedValues {
	if ev, ok := b.slotValues[slot]; ok {
		return ev
	}
	var ev expandedValues
	for _, v := range vals {
		s, err := b.opts.TemplateLanguage.Expand(v, in.Vocab)
		if err != nil {
			ev.dropped = append(ev.dropped, Dropped{Skill: in.Skill, Intent: in.Name, Sample: v, Why: "entity value: " + err.Error()})
			continue
		}
		ev.samples = append(ev.samples, s...)
	}
	slices.Sort(ev.samples)
	ev.samples = slices.Compact(ev.samples)
	ev.key = strings.Join(ev.samples, "\n")
	b.slotValues[slot] = ev
	return ev
}

// entityRule builds (or reuses) the rule of an entity's values. A value
// that does not expand is reported for every sample through the slot.
func (b *builder) entityRule(in Intent, slot string, vals []string) (string, string, error) {
	ev := b.values(in, slot, vals)
	b.g.dropped = append(b.g.dropped, ev.dropped...)
	samples, key := ev.samples, ev.key
	if name, ok := b.entityRules[key]; ok {
		return name, "", nil
	}
	root := &node{}
	for _, s := range samples {
		seq, why, err := b.literal(s)
		if err != nil {
			return "", "", err
		}
		if why != "" {
			b.g.dropped = append(b.g.dropped, Dropped{Skill: in.Skill, Intent: in.Name, Sample: s, Why: "entity value: " + why})
			continue
		}
		b.keep(seq)
		root.add(seq)
	}
	if root.next == nil {
		return "", fmt.Sprintf("no usable value for slot {%s}", slot), nil
	}
	name := fmt.Sprintf("e%d", len(b.entityRules))
	b.entityRules[key] = name
	b.g.rules[name] = &rule{name: name, comment: fmt.Sprintf("%s {%s}", in.Skill, slot), root: root}
	return name, "", nil
}

// keep adds a used sequence's words to the vocabulary.
func (b *builder) keep(seq []label) {
	for _, l := range seq {
		if l.word != "" {
			b.vocab[l.word] = true
		}
	}
}

// literal turns slot-free text into word labels.
func (b *builder) literal(s string) ([]label, string, error) {
	var seq []label
	for _, w := range strings.Fields(b.opts.TemplateLanguage.Normalize(s)) {
		if why := b.unusable(w); why != "" {
			return nil, why, nil
		}
		seq = append(seq, label{word: w})
	}
	if len(seq) == 0 {
		return nil, "no words", nil
	}
	return seq, "", nil
}

// classRule builds (or reuses) a class's rule.
func (b *builder) classRule(class string) (string, error) {
	if name, ok := b.classRules[class]; ok {
		return name, nil
	}
	if slices.Contains(b.building, class) {
		return "", fmt.Errorf("grammar: class %q refers to itself", class)
	}
	b.building = append(b.building, class)
	defer func() { b.building = b.building[:len(b.building)-1] }()
	name := "c_" + class
	root := &node{}
	pseudo := Intent{Skill: "class", Name: class}
	for _, tpl := range b.classes[class] {
		samples, err := b.opts.TemplateLanguage.Expand(tpl, nil)
		if err != nil {
			return "", fmt.Errorf("grammar: class %q: %w", class, err)
		}
		for _, s := range samples {
			seq, why, err := b.sequence(pseudo, s)
			if err != nil {
				return "", err
			}
			if why != "" {
				b.g.dropped = append(b.g.dropped, Dropped{Skill: "class", Intent: class, Sample: s, Why: why})
				continue
			}
			b.keep(seq)
			root.add(seq)
		}
	}
	if root.next == nil {
		return "", fmt.Errorf("grammar: class %q has no usable sample", class)
	}
	b.classRules[class] = name
	b.g.rules[name] = &rule{name: name, comment: "class " + class, root: root}
	return name, nil
}

// render writes the JSGF text and records the words of every tree.
func (b *builder) render() error {
	var sb strings.Builder
	sb.WriteString("#JSGF V1.0;\ngrammar jibo;\n\n")
	var top []string
	if len(b.g.wake) > 0 {
		if len(b.g.command) > 0 {
			// Not "<wake> [<command>] | <command>": pocketsphinx copies a
			// rule's states at every reference, and the decoder spends
			// time on every state of the grammar in every frame, said or
			// not (fsg_history_end_frame); written so, the commands are
			// there once and the grammar has half the states (3,074 →
			// 1,540 with the built-in skills).
			if len(b.g.decoys) > 0 {
				top = append(top, "[<wake_or_decoy>] <command>", "<wake>")
			} else {
				top = append(top, "[<wake>] <command>", "<wake>")
			}
		} else if len(b.g.decoys) > 0 {
			top = append(top, "<wake_or_decoy>")
		} else {
			top = append(top, "<wake>")
		}
	} else {
		top = append(top, "<command>")
	}
	fmt.Fprintf(&sb, "public <utterance> = %s;\n", strings.Join(top, " | "))
	if len(b.g.wake) > 0 {
		fmt.Fprintf(&sb, "<wake> = %s;\n", strings.Join(b.g.wake, " "))
		if len(b.g.decoys) > 0 {
			fmt.Fprintf(&sb, "<wake_or_decoy> = %s;\n", b.wakeOrDecoy())
		}
	}
	if len(b.g.command) > 0 {
		b.g.renderCommand(&sb)
	}
	names := slices.Sorted(maps.Keys(b.g.rules))
	// Classes, entities, then intents, each in the order made.
	sort.Slice(names, func(i, j int) bool {
		x, y := names[i], names[j]
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(len(x), len(y)), cmp.Compare(x, y)) < 0
	})
	for _, n := range names {
		r := b.g.rules[n]
		fmt.Fprintf(&sb, "\n// %s\n<%s> = %s;\n", sanitizeComment(r.comment), r.name, ruleBody(r.root))
		if sb.Len() > b.opts.MaxBytes {
			return fmt.Errorf("grammar: more than %d bytes of JSGF: %w", b.opts.MaxBytes, errTooLarge)
		}
	}
	if o := b.g.open; o != nil {
		words := slices.Sorted(maps.Keys(o.vocab))
		fmt.Fprintf(&sb, "\n// open slots: 1 to %d known words\n<%s_word> = %s;\n<%s> = %s;\n",
			o.max, o.name, strings.Join(words, " | "), o.name, openBody(o.name+"_word", o.max))
	}
	if sb.Len() > b.opts.MaxBytes {
		return fmt.Errorf("grammar: more than %d bytes of JSGF: %w", b.opts.MaxBytes, errTooLarge)
	}
	b.g.jsgf = sb.String()
	return nil
}

func sanitizeComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '*' || r == '/' {
			return ' '
		}
		return r
	}, s)
}

// openBody is "<w> [<w> [<w>]]" for max 3.
func openBody(word string, max int) string {
	s := "<" + word + ">"
	for i := 1; i < max; i++ {
		s = "<" + word + "> [" + s + "]"
	}
	return s
}

// sortedLabels orders a node's edges: words before rule references,
// alphabetically, so the text is deterministic.
func sortedLabels(n *node) []label {
	ls := slices.Collect(maps.Keys(n.next))
	sort.Slice(ls, func(i, j int) bool {
		a, c := ls[i], ls[j]
		return cmp.Or(cmp.Compare(a.rule, c.rule), cmp.Compare(a.word, c.word)) < 0
	})
	return ls
}

// body renders what follows n (which has edges) as a JSGF expansion.
func body(n *node) string {
	ls := sortedLabels(n)
	alts := make([]string, 0, len(ls))
	for _, l := range ls {
		c := n.next[l]
		switch {
		case len(c.next) == 0:
			alts = append(alts, l.jsgf())
		case c.end:
			alts = append(alts, l.jsgf()+" ["+body(c)+"]")
		default:
			rest := body(c)
			if len(c.next) > 1 {
				rest = "(" + rest + ")"
			}
			alts = append(alts, l.jsgf()+" "+rest)
		}
	}
	return strings.Join(alts, " | ")
}

// Accepts reports whether text (normalised as the intent engines do) is a
// sentence of the grammar: what a recogniser's n-best list is checked with,
// since a lattice also yields paths that stop short of a sentence's end.
func (g *Grammar) Accepts(text string) bool {
	w := strings.Fields(g.tpl.Normalize(text))
	if len(w) == 0 || len(w) > MaxAcceptWords {
		return false
	}
	if g.command0(w) {
		return true
	}
	if len(g.wake) == 0 {
		return false
	}
	for i, p := range append([][]string{g.wake}, g.decoys...) {
		if len(w) < len(p) || !slices.Equal(w[:len(p)], p) {
			continue
		}
		rest := w[len(p):]
		switch {
		case len(rest) > 0 && g.command0(rest):
			return true
		case len(rest) == 0 && (i == 0 || len(g.command) == 0):
			// The wake phrase alone; a decoy alone only without commands.
			return true
		}
	}
	return false
}

// Decoyed reports whether text starts with one of the grammar's wake
// decoys (Options.Decoys): speech that was not for the robot.
func (g *Grammar) Decoyed(text string) bool {
	w := strings.Fields(g.tpl.Normalize(text))
	for _, d := range g.decoys {
		if len(w) >= len(d) && slices.Equal(w[:len(d)], d) {
			return true
		}
	}
	return false
}

// ends returns every position a path from n, starting at word i, can end
// at a sentence end of n's tree.
func (g *Grammar) ends(n *node, w []string, i int) []int {
	var out []int
	if n.end {
		out = append(out, i)
	}
	for l, c := range n.next {
		switch {
		case l.rule == "":
			if i < len(w) && w[i] == l.word {
				out = append(out, g.ends(c, w, i+1)...)
			}
		default:
			for _, j := range g.ruleEnds(l.rule, w, i) {
				out = append(out, g.ends(c, w, j)...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ruleEnds returns where rule name, matched from word i, can end.
func (g *Grammar) ruleEnds(name string, w []string, i int) []int {
	if o := g.open; o != nil && name == o.name {
		var out []int
		for k := 0; k < o.max && i+k < len(w) && o.vocab[w[i+k]]; k++ {
			out = append(out, i+k+1)
		}
		return out
	}
	r := g.rules[name]
	if r == nil {
		return nil
	}
	return g.ends(r.root, w, i)
}

// ErrTooManyValues is returned by SlotValues when a slot takes more than
// the values asked for.
var ErrTooManyValues = errors.New("grammar: more slot values than asked for")

// SlotValues lists what the ear can hear in a slot of an intent
// ("jibo.volume", "volume_set", "level"), sorted: the sentences of the
// rule the slot takes, at most max of them (ErrTooManyValues past that).
// ok is false when the grammar has no such slot; an open slot has no
// list (ok false too). So a test can hold the grammar to what the skill
// accepts.
func (g *Grammar) SlotValues(skill, intentName, slot string, max int) (_ []string, ok bool, _ error) {
	name := g.slots[skill+":"+intentName][slot]
	r := g.rules[name]
	if r == nil {
		return nil, false, nil
	}
	var out []string
	err := g.walk(r.root, nil, func(done []string) error {
		out = append(out, strings.Join(done, " "))
		if len(out) > max {
			return ErrTooManyValues
		}
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	slices.Sort(out)
	return slices.Compact(out), true, nil
}

// walk calls emit with every sentence of n's tree after the words done,
// expanding rule references in place.
func (g *Grammar) walk(n *node, done []string, emit func([]string) error) error {
	if n.end {
		if err := emit(done); err != nil {
			return err
		}
	}
	for _, l := range sortedLabels(n) {
		c := n.next[l]
		if l.rule == "" {
			if err := g.walk(c, append(slices.Clip(done), l.word), emit); err != nil {
				return err
			}
			continue
		}
		r := g.rules[l.rule]
		if r == nil {
			return fmt.Errorf("grammar: rule %q is not enumerable (an open slot)", l.rule)
		}
		err := g.walk(r.root, done, func(inner []string) error {
			return g.walk(c, inner, emit)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
