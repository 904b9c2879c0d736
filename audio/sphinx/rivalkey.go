package sphinx

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// meaningKey names what a sentence means to the intent engines: its
// intent and its slots' values. Two sentences with the same key run the
// same command. A value's words are taken without a plural's s: the
// slots hold the words said, and "twenty second" and "twenty seconds"
// are one duration.
func meaningKey(intent string, values map[string]string) string {
	var b strings.Builder
	b.WriteString(intent)
	for _, k := range slices.Sorted(maps.Keys(values)) {
		words := strings.Fields(strings.ToLower(values[k]))
		for i, w := range words {
			words[i] = strings.TrimSuffix(w, "s")
		}
		fmt.Fprintf(&b, " %q=%q", k, strings.Join(words, " "))
	}
	return b.String()
}
