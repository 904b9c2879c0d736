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
// are another command. A value's words are taken without a plural's s:
// the slots hold the words said, and "twenty second" and "twenty
// seconds" are one duration.
func meaningKey(intent string, slots map[string]string) string {
	var b strings.Builder
	b.WriteString(intent)
	for _, name := range slices.Sorted(maps.Keys(slots)) {
		words := strings.Fields(strings.ToLower(slots[name]))
		for j, w := range words {
			words[j] = strings.TrimSuffix(w, "s")
		}
		fmt.Fprintf(&b, " %q=%q", name, strings.Join(words, " "))
	}
	return b.String()
}
