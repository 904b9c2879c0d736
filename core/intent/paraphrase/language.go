package paraphrase

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// Language data limits: the data is small by nature; the limits keep a bad
// one from slowing training down.
const (
	MaxBackground  = 5_000 // background sentences
	MaxWrappers    = 500   // prefixes, suffixes and indirect openers together
	MaxListEntries = 5_000 // function words, open values, values of one type
)

//go:embed lang
var langFiles embed.FS

// LanguageData is what the tier knows about one language, as text: the
// everyday sentences of its "none" class, the words that never count as
// evidence, how people wrap requests, and sample values for slots.
type LanguageData struct {
	// Background are everyday sentences no skill is about.
	Background []string
	// Function are words that say nothing about which request is meant:
	// closed-class words, politeness, hesitations, the robot's name.
	Function []string
	// Narrative are words that tell about someone or something else, or
	// about the past ("he", "she", "was"): an utterance with one is not
	// a request of an intent whose templates never say it.
	Narrative []string
	// Determiners introduce the thing a request is about ("the", "my"):
	// the word after one must be one the intent knows, or a slot value.
	Determiners []string
	// Questions are the words that ask ("what", "how") and the pairs of
	// words that open a yes-or-no question ("are you", "is it"): a
	// question is a request as a verb is, where the thing it is about
	// alone is none. Their words must be function words.
	Questions []string
	// Particles are the adverb particles that carry a request ("down" in
	// "turn it down", "off" in "switch it off"): next to a function word
	// other than a one-word prefix or suffix they still say which request
	// is meant ("down a bit" against "count down from"; "down please" is
	// as polite for one as for another). They must not be function words.
	Particles []string
	// Negations are the words that negate what follows ("dont", "not"):
	// an utterance with one asks for what an intent does only where the
	// intent's templates say a negation before the same word.
	Negations []string
	// Readings map a phrase of two words to the one word the tier reads it
	// as ("do not" → "dont"), in utterances, templates and background
	// alike: "do not be quiet" is "dont be quiet".
	Readings map[string]string
	// Opposites are pairs of words that name opposite actions ("on off",
	// "up down"): a request that names both, where no template of the
	// intent says both, asks for neither ("turn it off and on again").
	Opposites [][2]string
	// States are the words that say what something is now ("is", "its"):
	// one before an opposite word describes the state a request changes
	// ("turn the sound on, it is off"), not a second request.
	States []string
	// Prefixes and Suffixes wrap any request ("can you", "please");
	// Indirect open an indirect question ("i wonder", "do you know").
	Prefixes, Suffixes, Indirect []string
	// OpenValues fill open slots in training text.
	OpenValues []string
	// Typed maps a slot type (duration, number, …) to spoken values.
	Typed map[string][]string
}

// Language is checked, normalised LanguageData.
type Language struct {
	background [][]string
	function   map[string]bool
	narrative  map[string]bool
	// determiners are the Determiners, questions the Questions.
	determiners map[string]bool
	questions   map[string]bool
	particles   map[string]bool
	negations   map[string]bool
	// readings are the Readings, by their first word then second.
	readings map[string]map[string]string
	// readAs holds the words Readings read phrases as.
	readAs map[string]bool
	// opposites maps a word to the words opposite it.
	opposites map[string][]string
	// states are the States.
	states map[string]bool
	// polite are the two-word prefixes that are also questions ("can
	// you"): they wrap a request rather than ask.
	polite map[string]bool
	// wrapWords are the one-word prefixes and suffixes ("please", "jibo"):
	// beside a particle they still say nothing of which request is meant.
	wrapWords  map[string]bool
	prefixes   [][]string
	suffixes   [][]string
	indirect   [][]string
	openValues []string
	// openWords are the background's content words, for open slots.
	openWords []string
	typed     map[string][]string
	// find locates a typed value in words: it returns how many words a
	// value of the type starting at words[i] takes, 0 for none.
	find map[string]func(words []string, i int) int
}

// NewLanguage checks and normalises d.
func NewLanguage(d LanguageData) (*Language, error) {
	l := &Language{function: map[string]bool{}, narrative: map[string]bool{}, determiners: map[string]bool{}, questions: map[string]bool{}, particles: map[string]bool{}, negations: map[string]bool{}, readings: map[string]map[string]string{}, readAs: map[string]bool{}, opposites: map[string][]string{}, states: map[string]bool{}, polite: map[string]bool{}, wrapWords: map[string]bool{}, typed: map[string][]string{}, find: map[string]func([]string, int) int{}}
	switch {
	case len(d.Background) == 0:
		return nil, fmt.Errorf("language data: no background sentences")
	case len(d.Background) > MaxBackground:
		return nil, fmt.Errorf("language data: %d background sentences, limit %d", len(d.Background), MaxBackground)
	case len(d.Prefixes)+len(d.Suffixes)+len(d.Indirect) > MaxWrappers:
		return nil, fmt.Errorf("language data: %d wrappers, limit %d", len(d.Prefixes)+len(d.Suffixes)+len(d.Indirect), MaxWrappers)
	case len(d.Function) > MaxListEntries || len(d.OpenValues) > MaxListEntries || len(d.Narrative) > MaxListEntries ||
		len(d.Determiners) > MaxListEntries || len(d.Questions) > MaxListEntries || len(d.Particles) > MaxListEntries || len(d.Negations) > MaxListEntries ||
		len(d.Readings) > MaxListEntries || len(d.Opposites) > MaxListEntries || len(d.States) > MaxListEntries:
		return nil, fmt.Errorf("language data: function words, narrative words, determiners, question words, particles, negations, readings, opposites, states or open values over %d", MaxListEntries)
	}
	for from, to := range d.Readings {
		ws, as := strings.Fields(intent.Normalize(from)), strings.Fields(intent.Normalize(to))
		if len(ws) != 2 || len(as) != 1 {
			return nil, fmt.Errorf("language data: reading %q as %q is not two words read as one", from, to)
		}
		if l.readings[ws[0]] == nil {
			l.readings[ws[0]] = map[string]string{}
		}
		if _, dup := l.readings[ws[0]][ws[1]]; dup {
			// Which one would win depends on map order: refuse both.
			return nil, fmt.Errorf("language data: reading %q is listed twice once normalised", ws[0]+" "+ws[1])
		}
		l.readings[ws[0]][ws[1]] = as[0]
		l.readAs[as[0]] = true
	}
	for _, o := range d.Opposites {
		a, b := strings.Fields(intent.Normalize(o[0])), strings.Fields(intent.Normalize(o[1]))
		if len(a) != 1 || len(b) != 1 || a[0] == b[0] {
			return nil, fmt.Errorf("language data: opposites %q and %q are not two different words", o[0], o[1])
		}
		l.opposites[a[0]] = append(l.opposites[a[0]], b[0])
		l.opposites[b[0]] = append(l.opposites[b[0]], a[0])
	}
	for _, w := range d.States {
		for _, f := range strings.Fields(intent.Normalize(w)) {
			l.states[f] = true
		}
	}
	for _, s := range d.Background {
		if ws := l.read(strings.Fields(intent.Normalize(s))); len(ws) > 0 {
			l.background = append(l.background, ws)
		}
	}
	for _, w := range d.Function {
		for _, f := range strings.Fields(intent.Normalize(w)) {
			l.function[f] = true
		}
	}
	for _, w := range d.Narrative {
		for _, f := range strings.Fields(intent.Normalize(w)) {
			l.narrative[f] = true
		}
	}
	for _, w := range d.Determiners {
		for _, f := range strings.Fields(intent.Normalize(w)) {
			if !l.function[f] {
				return nil, fmt.Errorf("language data: determiner %q is not a function word", f)
			}
			l.determiners[f] = true
		}
	}
	for _, q := range d.Questions {
		ws := strings.Fields(intent.Normalize(q))
		if len(ws) == 0 || len(ws) > 2 {
			return nil, fmt.Errorf("language data: question %q is not one word or two", q)
		}
		for _, f := range ws {
			if !l.function[f] {
				return nil, fmt.Errorf("language data: question %q: %q is not a function word", q, f)
			}
		}
		l.questions[strings.Join(ws, " ")] = true
	}
	for _, p := range d.Particles {
		ws := strings.Fields(intent.Normalize(p))
		switch {
		case len(ws) != 1:
			return nil, fmt.Errorf("language data: particle %q is not one word", p)
		case l.function[ws[0]]:
			return nil, fmt.Errorf("language data: particle %q is a function word", p)
		}
		l.particles[ws[0]] = true
	}
	for _, n := range d.Negations {
		ws := strings.Fields(intent.Normalize(n))
		if len(ws) != 1 {
			return nil, fmt.Errorf("language data: negation %q is not one word", n)
		}
		l.negations[ws[0]] = true
	}
	seen := map[string]bool{}
	for _, s := range l.background {
		for _, w := range s {
			if !l.function[w] && !seen[w] {
				seen[w] = true
				l.openWords = append(l.openWords, w)
			}
		}
	}
	words := func(list []string) [][]string {
		var out [][]string
		for _, s := range list {
			if ws := strings.Fields(intent.Normalize(s)); len(ws) > 0 {
				out = append(out, ws)
			}
		}
		return out
	}
	l.prefixes, l.suffixes, l.indirect = words(d.Prefixes), words(d.Suffixes), words(d.Indirect)
	for _, w := range append(slices.Clone(l.prefixes), l.suffixes...) {
		if len(w) == 1 {
			l.wrapWords[w[0]] = true
		}
		if len(w) == 2 && l.questions[w[0]+" "+w[1]] {
			l.polite[w[0]+" "+w[1]] = true
		}
	}
	for _, v := range d.OpenValues {
		if n := intent.Normalize(v); n != "" {
			l.openValues = append(l.openValues, n)
		}
	}
	if len(l.openValues) == 0 {
		l.openValues = []string{"it"}
	}
	for typ, vs := range d.Typed {
		if len(vs) > MaxListEntries {
			return nil, fmt.Errorf("language data: %d values of type %s, limit %d", len(vs), typ, MaxListEntries)
		}
		for _, v := range vs {
			if n := intent.Normalize(v); n != "" {
				l.typed[typ] = append(l.typed[typ], n)
			}
		}
	}
	return l, nil
}

// English returns the built-in English data.
func English() (*Language, error) {
	d, err := EnglishData()
	if err != nil {
		return nil, err
	}
	l, err := NewLanguage(d)
	if err != nil {
		return nil, fmt.Errorf("built-in English data: %w", err)
	}
	l.find["duration"] = readDuration
	l.find["number"] = func(ws []string, i int) int {
		if ws[i] == "a" || ws[i] == "an" {
			return 0
		}
		return readNumber(ws, i)
	}
	return l, nil
}

// EnglishData returns the built-in English data as text, for a deployment
// that extends it.
func EnglishData() (LanguageData, error) {
	var failed error
	read := func(name string) []string {
		b, err := fs.ReadFile(langFiles, "lang/en/"+name)
		if err != nil {
			failed = fmt.Errorf("built-in English data: %w", err)
			return nil
		}
		var out []string
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				out = append(out, line)
			}
		}
		return out
	}
	d := LanguageData{Background: read("background.txt"), OpenValues: read("open.txt")}
	for _, line := range read("function.txt") {
		d.Function = append(d.Function, strings.Fields(line)...)
	}
	for _, line := range read("narrative.txt") {
		d.Narrative = append(d.Narrative, strings.Fields(line)...)
	}
	for _, line := range read("determiners.txt") {
		d.Determiners = append(d.Determiners, strings.Fields(line)...)
	}
	d.Questions = read("questions.txt")
	for _, line := range read("negations.txt") {
		d.Negations = append(d.Negations, strings.Fields(line)...)
	}
	readings, err := parseReadings(read("readings.txt"))
	if err != nil {
		return d, fmt.Errorf("built-in English data: readings.txt: %w", err)
	}
	d.Readings = readings
	for _, line := range read("opposites.txt") {
		ws := strings.Fields(line)
		if len(ws) != 2 {
			return d, fmt.Errorf("built-in English data: opposites.txt: %q is not two words", line)
		}
		d.Opposites = append(d.Opposites, [2]string{ws[0], ws[1]})
	}
	for _, line := range read("states.txt") {
		d.States = append(d.States, strings.Fields(line)...)
	}
	for _, line := range read("particles.txt") {
		d.Particles = append(d.Particles, strings.Fields(line)...)
	}
	section := ""
	for _, line := range read("wrappers.txt") {
		switch {
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line
		case section == "[prefix]":
			d.Prefixes = append(d.Prefixes, line)
		case section == "[suffix]":
			d.Suffixes = append(d.Suffixes, line)
		case section == "[indirect]":
			d.Indirect = append(d.Indirect, line)
		}
	}
	d.Typed = map[string][]string{
		"duration": englishDurations(),
		"number":   englishNumbers(),
		"date": {"today", "tomorrow", "yesterday", "monday", "tuesday", "wednesday", "thursday", "friday",
			"saturday", "sunday", "next week", "june fifth", "the first of may", "christmas"},
		"color":    {"red", "blue", "green", "yellow", "white", "purple", "orange", "pink", "warm white"},
		"language": {"english", "french", "german", "spanish", "italian", "portuguese", "dutch", "japanese"},
	}
	return d, failed
}

// isFunction reports whether w says nothing about which request is meant.
func (l *Language) isFunction(w string) bool { return l.function[w] }

// form is what words say with the function words left out, the words
// that ask kept ("what time", "are you robot").
func (l *Language) form(words []string) []string {
	var out []string
	for i, w := range words {
		if !l.function[w] || l.questions[w] ||
			i > 0 && l.questions[words[i-1]+" "+w] || i+1 < len(words) && l.questions[w+" "+words[i+1]] {
			out = append(out, w)
		}
	}
	return out
}

// read reads words as the tier does: each phrase of Readings as its one
// word ("do not be quiet" as "dont be quiet"). words is not changed.
func (l *Language) read(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) {
			if to, ok := l.readings[words[i]][words[i+1]]; ok {
				if out == nil {
					out = slices.Clone(words[:i])
				}
				out = append(out, to)
				i++
				continue
			}
		}
		if out != nil {
			out = append(out, words[i])
		}
	}
	if out == nil {
		return words
	}
	return out
}

// MaxContrastGap is how many words may stand between a negation and the
// opposite word it sets aside ("dont turn it down").
const MaxContrastGap = 2

// uncontrast leaves out of an utterance's words what only sets its
// request against the opposite: a negated opposite word ("turn it up, not
// down", "unmute, dont mute", "dont turn it down, turn it up") and a
// state the request changes ("turn the sound on, it is off"), each only
// where the utterance also says the word's opposite, neither negated nor
// a state. What is left is the request; "turn it off and on again"
// negates nothing and keeps both. words is not changed.
func (l *Language) uncontrast(words []string) []string {
	// aside[i] is the span start of an opposite word at i set aside by a
	// negation or a state word before it, -1 for none.
	aside := make([]int, len(words))
	for i := range aside {
		aside[i] = -1
	}
	for i, w := range words {
		switch {
		case l.states[w] && i+1 < len(words) && len(l.opposites[words[i+1]]) > 0:
			aside[i+1] = i
		case l.negations[w]:
			for j := i + 1; j < len(words) && j <= i+1+MaxContrastGap; j++ {
				if len(l.opposites[words[j]]) > 0 {
					aside[j] = i
					break
				}
				if l.negations[words[j]] || l.states[words[j]] {
					break
				}
			}
		}
	}
	drop := make([]bool, len(words))
	dropped := false
	for j, from := range aside {
		if from < 0 {
			continue
		}
		for k, o := range words {
			if aside[k] < 0 && slices.Contains(l.opposites[words[j]], o) {
				for d := from; d <= j; d++ {
					drop[d] = true
				}
				dropped = true
				break
			}
		}
	}
	if !dropped {
		return words
	}
	out := make([]string, 0, len(words))
	for i, w := range words {
		if !drop[i] {
			out = append(out, w)
		}
	}
	return out
}

// readTokens is read on a skeleton's text, slots kept in place.
func (l *Language) readTokens(sk skeleton) skeleton {
	var out skeleton
	for i := 0; i < len(sk); i++ {
		if i+1 < len(sk) && sk[i].slot == "" && sk[i+1].slot == "" {
			if to, ok := l.readings[sk[i].text][sk[i+1].text]; ok {
				if out == nil {
					out = slices.Clone(sk[:i])
				}
				out = append(out, token{text: to})
				i++
				continue
			}
		}
		if out != nil {
			out = append(out, sk[i])
		}
	}
	if out == nil {
		return sk
	}
	return out
}

// unwrap leaves out the one-word wrappers words begins and ends with
// ("please", "jibo", "now").
func (l *Language) unwrap(words []string) []string {
	i, j := 0, len(words)
	for i < j && l.wrapWords[words[i]] {
		i++
	}
	for j > i && l.wrapWords[words[j-1]] {
		j--
	}
	return words[i:j]
}

// parseReadings parses lines of "two words = one". A phrase listed twice,
// once normalised, is an error: a later line would silently replace an
// earlier one.
func parseReadings(lines []string) (map[string]string, error) {
	out := map[string]string{}
	for _, line := range lines {
		from, to, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not \"two words = one\"", line)
		}
		key := intent.Normalize(from)
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%q is listed twice", key)
		}
		out[key] = strings.TrimSpace(to)
	}
	return out, nil
}
