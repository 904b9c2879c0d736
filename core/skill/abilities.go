package skill

import (
	"strings"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill/registry"
)

// maxAbilities bounds what is said of what one skill does, in runes: its
// description's first sentence, cut after the last whole clause within it.
const maxAbilities = 160

// Abilities is what a skill does as said after "I can", from its
// manifest's description: its first sentence with each clause's verb made
// plain ("Sets timers, says how much time is left, and rings when one is
// done." → "set timers, say how much time is left, and ring when one is
// done"). A description that does not start with a verb gives "help with"
// and the skill's spoken name; "" when there is nothing to say.
func Abilities(m *registry.Manifest) string {
	if m == nil {
		return ""
	}
	d := strings.Join(strings.Fields(m.Description), " ")
	if i := strings.IndexAny(d, ".;:!?("); i >= 0 {
		d = d[:i]
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
		if plain, ok := PlainVerb(verb); ok {
			clause = strings.TrimSpace(plain + " " + rest)
		} else if i == 0 {
			if name := SpokenName(m); name != "" {
				return "help with " + name
			}
			return ""
		}
		if clause == "" {
			continue
		}
		if n += utf8.RuneCountInString(lead+clause) + 2; n > maxAbilities && len(out) > 0 {
			break
		}
		out = append(out, lead+clause)
	}
	return strings.Join(out, ", ")
}

// PlainVerb turns a third-person verb into the form after "I can"
// ("tells" → "tell", "carries" → "carry", "watches" → "watch"); false for
// a word that is not one.
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
	switch {
	case len(l) > 3 && strings.HasSuffix(l, "ies"):
		return l[:len(l)-3] + "y", true
	case strings.HasSuffix(l, "sses"), strings.HasSuffix(l, "shes"), strings.HasSuffix(l, "ches"),
		strings.HasSuffix(l, "xes"), strings.HasSuffix(l, "zes"):
		return l[:len(l)-2], true
	case len(l) > 2 && strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss") && !strings.HasSuffix(l, "us"):
		return l[:len(l)-1], true
	}
	return "", false
}
