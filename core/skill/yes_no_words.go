package skill

import (
	"io/fs"
	"strings"
)

// YesNoWords returns the one-word answers of the robot's yes/no rule
// (globals/yes_no) in lang, each mapped to its intent ("yeah" → "yes",
// "nope" → "no"): the lines of the rule's intents that are one word, and
// the one-word choices of a group a line opens with ("(yes|yeah|…)
// [please]"). An answer that opens with one of them and goes on ("yes set
// a timer") says yes or no and something more. Nil for a language the
// rule does not have.
func YesNoWords(lang string) map[string]string {
	dir := "rules/" + GlobalsOwner + "/yes_no/" + strings.ToLower(lang)
	entries, err := fs.ReadDir(builtinRules, dir)
	if err != nil {
		return nil
	}
	words := map[string]string{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".intent")
		if !ok || e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(builtinRules, dir+"/"+e.Name())
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(data)) {
			f := strings.Fields(line)
			switch {
			case len(f) == 1 && !strings.ContainsAny(f[0], "()[]{}|"):
				words[strings.ToLower(f[0])] = name
			case len(f) > 0 && strings.HasPrefix(f[0], "(") && strings.HasSuffix(f[0], ")"):
				for w := range strings.SplitSeq(strings.Trim(f[0], "()"), "|") {
					if w != "" && !strings.ContainsAny(w, " []{}") {
						words[strings.ToLower(w)] = name
					}
				}
			}
		}
	}
	return words
}
