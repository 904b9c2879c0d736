package skill

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill/registry"
)

// maxAbilities bounds what is said of what one skill does, in runes: its
// description's first sentence, cut after the last whole clause within it.
const maxAbilities = 160

// Abilities is what a skill does as said after "I can", from its
// manifest's description: its first sentence, at most maxAbilities runes,
// with the verb of each clause that starts with one made plain ("Sets
// timers, says how much time is left, and rings when one is done." → "set
// timers, say how much time is left, and ring when one is done"). A later
// clause is a verb phrase only when its first word is a lower-case verb
// form with more words after it; a list item ("Tells jokes, riddles and
// puns") stays as written. "" when the description does not start with a
// verb ("News from the BBC": a word of the skill's own name is no verb),
// or there is nothing to say.
func Abilities(m *registry.Manifest) string {
	if m == nil {
		return ""
	}
	d := firstSentence(strings.Join(strings.Fields(m.Description), " "))
	named := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(m.Name)) {
		named[w] = true
	}
	var out []string
	n := 0
	for i, clause := range strings.Split(d, ",") {
		clause = strings.TrimSpace(clause)
		lead := ""
		if c, ok := strings.CutPrefix(clause, "and "); ok {
			lead, clause = "and ", c
		} else if c, ok := strings.CutPrefix(clause, "or "); ok {
			lead, clause = "or ", c
		}
		verb, rest, _ := strings.Cut(clause, " ")
		next, _, _ := strings.Cut(rest, " ")
		plain, ok := PlainVerb(verb)
		switch {
		case i == 0:
			if !ok || named[strings.ToLower(verb)] {
				return ""
			}
			clause = strings.TrimSpace(plain + " " + rest)
		case ok && verb == strings.ToLower(verb) && next != "" && next != "and" && next != "or":
			clause = plain + " " + rest
		}
		if clause == "" {
			continue
		}
		if i == 0 {
			clause = cutWords(clause, maxAbilities)
		}
		if n += utf8.RuneCountInString(lead+clause) + 2; n > maxAbilities && len(out) > 0 {
			break
		}
		out = append(out, lead+clause)
	}
	return strings.Join(out, ", ")
}

// firstSentence returns d up to the end of its first sentence, or the
// first ';', ':' or '('. A '.' ends it only before the end or a space and
// a capital, so an abbreviation ("e.g. headlines") does not.
func firstSentence(d string) string {
	for i, r := range d {
		switch r {
		case ';', ':', '(', '!', '?':
			return d[:i]
		case '.':
			after := d[i+1:]
			if after == "" {
				return d[:i]
			}
			if c, ok := strings.CutPrefix(after, " "); ok {
				if r, _ := utf8.DecodeRuneInString(c); unicode.IsUpper(r) {
					return d[:i]
				}
			}
		}
	}
	return d
}

// cutWords cuts s after its last whole word within max runes.
func cutWords(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)[:max+1]
	if i := strings.LastIndex(string(runes), " "); i > 0 {
		return strings.TrimRight(string(runes)[:i], " ,")
	}
	return string(runes[:max])
}

//go:embed verbs.txt
var verbsText string

// verbs returns the plain forms of verbs.txt, built on first use.
var verbs = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, w := range verbList() {
		out[w] = true
	}
	return out
})

// verbList returns the words of verbs.txt in order, comments left out.
func verbList() []string {
	var out []string
	for _, line := range strings.Split(verbsText, "\n") {
		if !strings.HasPrefix(line, "#") {
			out = append(out, strings.Fields(line)...)
		}
	}
	return out
}

// PlainVerb turns a third-person verb into the form after "I can"
// ("tells" → "tell", "carries" → "carry", "watches" → "watch"); false for
// a word that is not one: a verb is known by its plain form in verbs.txt,
// so a plural noun ("alarms", "news") is none.
func PlainVerb(w string) (string, bool) {
	l := strings.ToLower(w)
	if l == "" || l != w && strings.ToLower(w[:1])+w[1:] != l {
		return "", false // not a plain capitalised word (an acronym, a name)
	}
	switch l {
	case "is":
		return "be", true
	case "has":
		return "have", true
	case "does":
		return "do", true
	case "goes":
		return "go", true
	}
	var forms []string
	switch {
	case len(l) > 3 && strings.HasSuffix(l, "ies"):
		forms = []string{l[:len(l)-3] + "y"}
	case strings.HasSuffix(l, "sses"), strings.HasSuffix(l, "shes"), strings.HasSuffix(l, "ches"),
		strings.HasSuffix(l, "xes"), strings.HasSuffix(l, "zes"):
		forms = []string{l[:len(l)-2], l[:len(l)-1]} // "watches", "snoozes"
	case len(l) > 2 && strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss") && !strings.HasSuffix(l, "us"):
		forms = []string{l[:len(l)-1]}
	}
	for _, f := range forms {
		if verbs()[f] {
			return f, true
		}
	}
	return "", false
}
