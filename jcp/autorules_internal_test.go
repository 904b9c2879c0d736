package jcp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// describeAuto writes the tags the auto-rules add as "what@where" (a
// bounded tag as "what@start-end"), where is a word of the text.
func describeAuto(doc *ESML, tags []Tag) []string {
	var out []string
	for _, t := range tags {
		name := t.Name
		if n, ok := t.Attr("name"); ok {
			name = n
		}
		at := fmt.Sprintf("%s@%d", name, t.Start)
		if t.End > t.Start {
			at += fmt.Sprintf("-%d", t.End)
		}
		out = append(out, at)
	}
	return out
}

// The auto-rules (spec/jibo.md §3.5 AutoRuleConfig: HotWords, Punctuation,
// Beat) place their gestures at the start of the clause they belong to.
func TestAutoTags(t *testing.T) {
	tests := []struct {
		name  string
		esml  string
		rules AutoRules
		look  bool
		want  []string
	}{
		{"greeting looks then wiggles", "Hi there!", AllAutoRules, true, []string{"look-at-listener@0", "happy-wiggle@0"}},
		{"no listener, no look", "Hi there!", AllAutoRules, false, []string{"happy-wiggle@0"}},
		{"beat on each new sentence", "It is five o'clock. The sun is out. Enjoy it.", AllAutoRules, false,
			[]string{"beat@20", "beat@36"}},
		{"question tilts for its sentence", "It is five. Shall I set a timer?", AllAutoRules, false, []string{"tilt@12-32"}},
		{"comma blinks before a long clause", "When you are ready, just ask me anything.", AllAutoRules, false, []string{"blink@20"}},
		{"short clause after a comma does not", "Sure, why not.", AllAutoRules, false, []string{"nod@0"}},
		{"hot word moves its clause", "I looked everywhere. Sorry, I could not find it.", AllAutoRules, false,
			[]string{"droop@21", "blink@28"}},
		{"explicit tag wins its clause", "<anim name='dance' nonBlocking='true'/>Hello! Yes, that is me.", AllAutoRules, true,
			[]string{"look-at-listener@0", "nod@7", "blink@12"}},
		{"beat only", "Hello. Really? Yes.", AutoRules{Beat: true}, true, []string{"look-at-listener@0", "beat@7", "beat@15"}},
		{"all off", "Hello there. How are you?", AutoRules{}, true, nil},
		{"voice alone moves nothing", "Hello there. How are you?", AutoRules{Voice: true}, true, nil},
		{"empty text", "<break size='1'/>", AllAutoRules, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ParseESML(tt.esml)
			require.NoError(t, err)
			tags := autoTags(doc, tt.rules, tt.look)
			assert.Equal(t, tt.want, describeAuto(doc, tags), "text %q", doc.Text)
			for _, tag := range tags {
				assert.True(t, tag.auto)
			}
		})
	}
}

func TestClauses(t *testing.T) {
	cs := clauses("Well, is it? Yes!  It is... fine")
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%q s%d first=%v q=%v comma=%v", "Well, is it? Yes!  It is... fine"[c.start:c.end], c.sentence, c.first, c.question, c.comma))
	}
	assert.Equal(t, []string{
		`"Well," s0 first=true q=true comma=false`,
		`"is it?" s0 first=false q=true comma=true`,
		`"Yes!" s1 first=true q=false comma=false`,
		`"It is..." s2 first=true q=false comma=false`,
		`"fine" s3 first=true q=false comma=false`,
	}, got)
}
