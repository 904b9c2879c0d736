package wire

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The name checks read as the expressions they stand for.
func TestCatalogNameChecks(t *testing.T) {
	checks := []struct {
		re    *regexp.Regexp
		check func(string) bool
	}{
		{regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$`), isLangTag},
		{regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(intent|entity|voc|dialog)$`), isFileName},
		{regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*$`), isRuleName},
	}
	for _, s := range []string{
		"", "en", "en-US", "en-US-x1-y2", "en-US-x1-y2-z3", "e", "en-", "answer", "_a-b", "-a", "a b",
		"play.intent", "a.b.intent", ".intent", "_.voc", "x.dialog", "x.dialogs", "x.intent.txt", "x.Intent",
		"x/y.intent", "-x.voc", "x..entity", "intent", "é.voc", "x.entity\n",
	} {
		for i, c := range checks {
			assert.Equal(t, c.re.MatchString(s), c.check(s), "check %d: %q", i, s)
		}
	}
}
