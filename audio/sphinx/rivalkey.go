package sphinx

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// meaningKey names what a sentence means to the intent engines: its
// intent and its slots, each by name with its value. Two sentences with
// the same key run the same command; the same words bound to other slots
// are another command. A value's plural is taken for its singular when
// knows (the recogniser's vocabulary) has the singular too: the slots
// hold the words said, and "twenty second" and "twenty seconds" are one
// duration, while "bus" is no plural of "bu".
func meaningKey(intent string, slots map[string]string, knows func(word string) bool) string {
	var b strings.Builder
	b.WriteString(intent)
	for _, name := range slices.Sorted(maps.Keys(slots)) {
		words := strings.Fields(strings.ToLower(slots[name]))
		for j, w := range words {
			if one, ok := strings.CutSuffix(w, "s"); ok && one != "" && knows(one) {
				words[j] = one
			}
		}
		fmt.Fprintf(&b, " %q=%q", name, strings.Join(words, " "))
	}
	return b.String()
}
