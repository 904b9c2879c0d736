package sphinx

import (
	"fmt"
	"slices"
	"strings"
)

// meaningKey names what a sentence means to the intent engines: its
// intent and its slots' values. Two sentences with the same key run the
// same command. A value's words are taken without a plural's s: the
// slots hold the words said, and "twenty second" and "twenty seconds"
// are one duration.
func meaningKey(intent string, values []string) string {
	norm := make([]string, len(values))
	for i, v := range values {
		words := strings.Fields(strings.ToLower(v))
		for j, w := range words {
			words[j] = strings.TrimSuffix(w, "s")
		}
		norm[i] = strings.Join(words, " ")
	}
	slices.Sort(norm)
	var b strings.Builder
	b.WriteString(intent)
	for _, v := range norm {
		fmt.Fprintf(&b, " %q", v)
	}
	return b.String()
}
