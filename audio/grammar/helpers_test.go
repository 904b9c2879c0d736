package grammar

import "github.com/openjibo/jibod/core/intent"

// intentLanguage is core/intent's template language, the one the robot's
// grammars are built with (core/runtime/hearing.IntentTemplates, which a
// test here cannot import).
type intentLanguage struct{}

func (intentLanguage) Expand(template string, vocab map[string][]string) ([]string, error) {
	samples, _, err := intent.Expand(template, vocab, intent.ExpandOptions{})
	return samples, err
}

func (intentLanguage) Normalize(text string) string { return intent.Normalize(text) }

// tl is the template language of the tests' grammars.
var tl TemplateLanguage = intentLanguage{}
