package sphinx

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// adaptWordsByExpression is adaptWords as an expression says it.
func adaptWordsByExpression(text string) []string {
	var out []string
	for _, w := range strings.Fields(regexp.MustCompile(`[^a-z' ]+`).ReplaceAllString(strings.ToLower(text), " ")) {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

var adaptSamples = []string{
	"", "Hey Jibo, what's the time?", "set a timer for 10 minutes", "'quoted' words''", "café au lait",
	"tab\tand\nnewline", "KELVIN \u212a", "a\xffb", "ünïcödé ÀB", "don't-stop", "  spaced  out  ",
}

func TestAdaptWords(t *testing.T) {
	assert.Equal(t, []string{"hey", "jibo", "what's", "the", "time"}, adaptWords("Hey Jibo, what's the time?"))
	for _, s := range adaptSamples {
		assert.Equal(t, adaptWordsByExpression(s), adaptWords(s), "%q", s)
	}
}

func FuzzAdaptWords(f *testing.F) {
	for _, s := range adaptSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if want, got := adaptWordsByExpression(s), adaptWords(s); !assert.ObjectsAreEqual(want, got) {
			t.Fatalf("%q: expression %q, adaptWords %q", s, want, got)
		}
	})
}
