package grammar

import (
	"context"
	"strings"
	"testing"

	"github.com/openjibo/jibod/core/intent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rule returns the JSGF body of the rule commented with comment.
func ruleOf(t *testing.T, g *Grammar, comment string) string {
	t.Helper()
	lines := strings.Split(g.JSGF(), "\n")
	for i, l := range lines {
		if l == "// "+comment && i+1 < len(lines) {
			_, body, ok := strings.Cut(lines[i+1], " = ")
			require.True(t, ok)
			return strings.TrimSuffix(body, ";")
		}
	}
	t.Fatalf("no rule for %s in\n%s", comment, g.JSGF())
	return ""
}

func TestBuiltinSkillsGrammar(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	assert.Empty(t, g.Dropped(), "every built-in sample can be said")
	assert.GreaterOrEqual(t, g.Intents(), 20)
	assert.True(t, strings.HasPrefix(g.JSGF(), "#JSGF V1.0;\ngrammar jibo;\n\npublic <utterance> = [<wake>] <command> | <wake>;\n<wake> = hey jibo;\n"))

	// The word tree of an intent, merged from its samples.
	assert.Contains(t, ruleOf(t, g, "jibo.chitchat:how_old_are_you"),
		"how (many years old are you | old are you [jibo | now]) | what (is your age | year were you (born | built | made)) | whats your age")
	// Slots take classes by name: {duration} and {level}.
	// Sentences sharing what follows a slot share its reference.
	assert.Contains(t, ruleOf(t, g, "jibo.timer:set_timer"), "let me know when <c_duration> (are (gone by | over | passed | up)")
	assert.Contains(t, ruleOf(t, g, "jibo.timer:set_timer"), "tell me in | the timer for | time me for | wake me (in | up in)) <c_duration>")
	// A slot with .entity values takes them: volume levels (level.entity)
	// and chitchat's thing.entity.
	assert.Contains(t, ruleOf(t, g, "jibo.volume:volume_set"), "| would you set volume to | your volume level) <e1>")
	assert.Contains(t, ruleOf(t, g, "jibo.chitchat:do_you_like"),
		"have you got a thing for | how do you feel about | what (do you think (about | of)")

	tests := []struct {
		say  string
		want bool
	}{
		{"hey jibo", true},
		{"hey jibo what time is it", true},
		{"what time is it", true},
		{"What's the time?", true}, // normalised as the engines do
		{"hey jibo set a timer for five minutes", true},
		{"set a timer for an hour and a half", true},
		{"start a twenty five minute timer", true},
		{"set the volume to seven", true},
		{"set the volume to a hundred", false}, // levels are 0 to 10 (level.entity)
		{"turn the sound back on", true},
		{"volume off", true},
		{"set the volume to ten", true},
		{"do you like guinea pigs", true}, // an entity value
		{"hey jibo what can you do for me", true},
		{"how can you help me", true},
		{"what can you help with", true},
		{"what time", false}, // stops short
		{"hey jibo what time is", false},
		{"set a timer for five", false},
		{"do you like the timer", false}, // not one of the values
		{"set a timer for a hour", false},
		{"set a timer for two hours and thirty minutes", true},
		{"set a timer for twenty four hours", true},
		{"set a timer for ninety seconds", true},
		{"set a timer for two and a half hours", true},
		{"set a timer for fifty eight hours", false}, // a day at most
		{"set a timer for one hour seventy minutes", false},
		{"set a timer for five minutes and a hundred seconds", false},
		{"the weather in paris is lovely", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, g.Accepts(tt.say), "%q", tt.say)
	}
	for _, w := range g.Words() {
		assert.Equal(t, intent.Normalize(w), w, "words are normalised")
	}
}

func TestSlotStrategies(t *testing.T) {
	lights := Intent{Skill: "home", Name: "light", Lang: "en-us",
		Templates: []string{"turn (on|off) [the] {device}", "dim {device} to {number:pct} percent", "set {room} to {number}", "raise {room} by {level}"},
		Entities:  map[string][]string{"device": {"kitchen light", "(bed|living) room lamp"}},
		SlotTypes: map[string]string{"pct": "number"},
	}
	g, err := Build([]Intent{lights}, Options{TemplateLanguage: tl, Lang: "en", OpenWords: 2, OpenVocabulary: []string{"Garage", "hall"}})
	require.NoError(t, err)
	assert.Equal(t, "bed room lamp | kitchen light | living room lamp", ruleOf(t, g, "home {device}"))
	body := ruleOf(t, g, "home:light")
	assert.Contains(t, body, "<e0>")
	assert.Contains(t, body, "dim <e0> to <c_number> percent", "a typed slot takes its class")
	assert.Contains(t, body, "set <open> to <c_number>", "an untyped slot named as a type takes it")
	assert.Contains(t, body, "raise <open> by <open>", "a name is no guess at the values: {level} of what?")
	tests := []struct {
		say  string
		want bool
	}{
		{"turn on the kitchen light", true},
		{"turn off living room lamp", true},
		{"turn on the garage light", false}, // entity values are all a slot hears
		{"dim kitchen light to fifty five percent", true},
		{"set garage to ten", true},          // open vocabulary
		{"set hall garage to ten", true},     // two words
		{"set hall hall hall to ten", false}, // three is over OpenWords
		{"set bedroom to ten", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, g.Accepts(tt.say), "%q", tt.say)
	}

	// With open slots off, samples needing one are left out.
	g, err = Build([]Intent{lights}, Options{TemplateLanguage: tl, OpenWords: -1})
	require.NoError(t, err)
	assert.False(t, g.Accepts("set kitchen to ten"))
	assert.True(t, g.Accepts("turn on the kitchen light"))
	require.NotEmpty(t, g.Dropped())
	assert.Contains(t, g.Dropped()[0].Why, "open slot {room}")
}

// countingLanguage is tl counting what it is asked to expand.
type countingLanguage struct {
	TemplateLanguage
	expanded map[string]int
}

func (c countingLanguage) Expand(template string, vocab map[string][]string) ([]string, error) {
	c.expanded[template]++
	return c.TemplateLanguage.Expand(template, vocab)
}

// TestEntityValuesExpandOncePerIntent: an intent's entity values are the
// same for every sample through the slot, so they are expanded once, and
// a value that does not expand is still reported for each such sample.
func TestEntityValuesExpandOncePerIntent(t *testing.T) {
	call := Intent{Skill: "phone", Name: "call", Lang: "en-us",
		Templates: []string{"call {who}", "phone {who} [now]", "ring (up|) {who}"},
		Entities:  map[string][]string{"who": {"ann", "(carl|dave) smith", "((bad"}}}
	text := Intent{Skill: "phone", Name: "text", Lang: "en-us",
		Templates: []string{"text {who}", "message {who}"},
		Entities:  map[string][]string{"who": {"ann", "(carl|dave) smith", "((bad"}}}
	for _, sentences := range []int{0, -1} {
		lang := countingLanguage{tl, map[string]int{}}
		g, err := Build([]Intent{call, text}, Options{TemplateLanguage: lang, Lang: "en", Sentences: sentences})
		require.NoError(t, err)
		for _, say := range []string{"call ann", "phone dave smith now", "ring up carl smith", "message ann"} {
			assert.True(t, g.Accepts(say), "%q", say)
		}
		assert.False(t, g.Accepts("call bad"))
		assert.Equal(t, 2, lang.expanded["(carl|dave) smith"], "once for each intent (sentences %d)", sentences)
		var bad []string
		for _, d := range g.Dropped() {
			if d.Sample == "((bad" {
				bad = append(bad, d.Skill+":"+d.Intent)
			}
		}
		// call's 5 samples through {who}, text's 2.
		assert.Equal(t, []string{"phone:call", "phone:call", "phone:call", "phone:call", "phone:call", "phone:text", "phone:text"}, bad)
		assert.Equal(t, "ann | carl smith | dave smith", ruleOf(t, g, "phone {who}"), "the intents share one rule")
	}
}

func TestLeftOut(t *testing.T) {
	in := []Intent{
		{Skill: "s", Name: "a", Lang: "en-us", Templates: []string{"play track 7", "play track seven", "play the (zorblax|song)"}},
		{Skill: "s", Name: "b", Lang: "en-us", Templates: []string{"zorblax now"}},
		{Skill: "s", Name: "c", Lang: "en-us", Templates: []string{"broken (template"}},
		{Skill: "s", Name: "d", Lang: "de-de", Templates: []string{"wie spät ist es"}},
	}
	g, err := Build(in, Options{TemplateLanguage: tl, Lang: "en-US", Unknown: map[string]bool{"zorblax": true}})
	require.NoError(t, err)
	assert.Equal(t, 1, g.Intents(), "b has nothing left, c is malformed, d is German")
	assert.True(t, g.Accepts("play track seven"))
	assert.True(t, g.Accepts("play the song"))
	assert.False(t, g.Accepts("play track 7"), "digits are not words")
	assert.False(t, g.Accepts("play the zorblax"))
	var whys []string
	for _, d := range g.Dropped() {
		whys = append(whys, d.String())
	}
	all := strings.Join(whys, "\n")
	assert.Contains(t, all, `s:a "play track 7": "7" is not a spoken word`)
	assert.Contains(t, all, `s:a "play the zorblax": the recogniser cannot pronounce "zorblax"`)
	assert.Contains(t, all, "s:b: no usable sample")
	assert.Contains(t, all, `s:c "broken (template"`)
	assert.NotContains(t, g.Words(), "zorblax")

	_, err = Build(in[3:], Options{TemplateLanguage: tl, Lang: "en"})
	assert.ErrorContains(t, err, "no sentence")
}

func TestLimits(t *testing.T) {
	in := []Intent{{Skill: "s", Name: "a", Lang: "en", Templates: []string{"(a|b|c|d|e) (f|g|h|i|j) (k|l|m|n|o)"}}}
	_, err := Build(in, Options{TemplateLanguage: tl, MaxSamples: 100})
	assert.ErrorIs(t, err, errTooLarge)
	_, err = Build(in, Options{TemplateLanguage: tl, MaxBytes: 100})
	assert.ErrorIs(t, err, errTooLarge)
	g, err := Build(in, Options{TemplateLanguage: tl, Sentences: -1})
	require.NoError(t, err)
	assert.Equal(t, 125, g.Samples(), "every expansion")
	g, err = Build(in, Options{TemplateLanguage: tl})
	require.NoError(t, err)
	assert.Equal(t, 13, g.Samples(), "the plainest sentence and one group changed at a time")
	_, err = Build(in, Options{TemplateLanguage: tl, OpenWords: MaxOpenWords + 1})
	assert.Error(t, err)
	_, err = Build(make([]Intent, MaxIntents+1), Options{TemplateLanguage: tl})
	assert.Error(t, err)
	assert.False(t, g.Accepts(strings.Repeat("a ", MaxAcceptWords+1)))
}

func BenchmarkBuildBuiltin(b *testing.B) {
	in := builtinIntents(b)
	for b.Loop() {
		if _, err := Build(in, Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAccepts(b *testing.B) {
	g, err := Build(builtinIntents(b), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(b, err)
	for b.Loop() {
		if !g.Accepts("hey jibo set a timer for an hour and a half") {
			b.Fatal("not accepted")
		}
	}
}

// TestWakeDecoys: decoys compete with the wake phrase before a command,
// weighted; a sentence starting with one is the grammar's (the decoder
// may end on it) and Decoyed says so; a decoy alone is a sentence only
// without commands; no open slot hears a decoy's word.
func TestWakeDecoys(t *testing.T) {
	in := []Intent{{Skill: "s", Name: "a", Lang: "en", Templates: []string{"turn it down", "call {who}", "hey there"}}}
	g, err := Build(in, Options{TemplateLanguage: tl, Wake: "hey jibo", Decoys: []string{"hey jhey", "Hey jhow", "hey jhey", "hi jhey"}, DecoyWeight: 1e-20})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(g.JSGF(), "#JSGF V1.0;\ngrammar jibo;\n\n"+
		"public <utterance> = [<wake_or_decoy>] <command> | <wake>;\n"+
		"<wake> = hey jibo;\n"+
		"<wake_or_decoy> = /1/ hey jibo | /1e-20/ hey (jhey | jhow) | /1e-20/ hi jhey;\n"), g.JSGF())
	assert.Contains(t, g.Words(), "jhey")
	assert.NotContains(t, g.JSGF()[strings.Index(g.JSGF(), "<open_word> ="):], "jhey", "an open slot takes no decoy word")
	tests := []struct {
		say             string
		accepts, decoys bool
	}{
		{"hey jibo turn it down", true, false},
		{"turn it down", true, false},
		{"hey jibo", true, false},
		{"hey there", true, false},
		{"hey jhey turn it down", true, true},
		{"hi jhey call hey", true, true},
		{"hey jhow", false, true}, // a decoy alone would compete with "hey there"
		{"hey jhey jibo", false, true},
		{"call jhey", false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.accepts, g.Accepts(tt.say), "accepts %q", tt.say)
		assert.Equal(t, tt.decoys, g.Decoyed(tt.say), "decoyed %q", tt.say)
	}

	// Without commands, a decoy alone is a sentence; weight 0 is 1.
	g, err = Build(nil, Options{TemplateLanguage: tl, Wake: "hey jibo", Decoys: []string{"hey jhey"}})
	require.NoError(t, err)
	assert.Contains(t, g.JSGF(), "public <utterance> = <wake_or_decoy>;\n<wake> = hey jibo;\n<wake_or_decoy> = /1/ hey jibo | /1/ hey jhey;\n")
	assert.True(t, g.Accepts("hey jhey"))
	assert.True(t, g.Decoyed("hey jhey"))

	// Without a wake phrase there is nothing to stand in for.
	g, err = Build(in, Options{TemplateLanguage: tl, Decoys: []string{"hey jhey"}})
	require.NoError(t, err)
	assert.NotContains(t, g.JSGF(), "decoy")
	assert.False(t, g.Decoyed("hey jhey turn it down"))

	for _, bad := range []Options{
		{Decoys: []string{"hey jibo"}}, {Decoys: []string{" "}}, {Decoys: []string{"hey j4"}},
		{Decoys: make([]string, MaxDecoys+1)}, {Decoys: []string{"hey jhey"}, DecoyWeight: 2},
		{Decoys: []string{"hey jhey"}, DecoyWeight: -1},
	} {
		bad.Wake, bad.TemplateLanguage = "hey jibo", tl
		_, err := Build(in, bad)
		assert.Error(t, err, "%+v", bad)
	}
}

// The recogniser's sentences are a bounded choice of the templates'
// expansions: each template's plainest sentence, then that sentence with
// one group changed at a time, templates taking turns, up to a cap per
// intent; slots stay whole.
func TestRepresentativeSentences(t *testing.T) {
	sentences := func(g *Grammar) []string {
		var seqs [][]label
		collect(g.command[0].root, nil, &seqs)
		var out []string
		for _, seq := range seqs {
			var w []string
			for _, l := range seq {
				w = append(w, l.jsgf())
			}
			out = append(out, strings.Join(w, " "))
		}
		return out
	}
	tests := []struct {
		name      string
		templates []string
		max       int
		want      []string
	}{
		{"one group changed at a time", []string{"(set|start) [a|the] timer [please]"}, 0,
			[]string{"set a timer", "set the timer", "set timer", "set timer please", "start timer"}},
		{"a group inside another's later alternative", []string{"(stop|turn (it|this) off) now"}, 0,
			[]string{"stop now", "turn it off now", "turn this off now"}},
		{"a group inside a word", []string{"light[s] (on|up)"}, 0, []string{"light on", "light up", "lights on"}},
		{"templates take turns up to the cap", []string{"(a|b|c) x", "(d|e) y"}, 3, []string{"a x", "b x", "d y"}},
		{"slots stay whole", []string{"(set|start) a timer for {duration}"}, 0,
			[]string{"set a timer for <c_duration>", "start a timer for <c_duration>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Intent{Skill: "s", Name: "a", Lang: "en", Templates: tt.templates}
			g, err := Build([]Intent{in}, Options{TemplateLanguage: tl, Sentences: tt.max})
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.want, sentences(g))
			assert.Equal(t, len(tt.want), g.Samples())
		})
	}
	in := Intent{Skill: "s", Name: "a", Lang: "en", Templates: []string{"(set|start) [a|the] timer for {duration} [please]"}}
	g, err := Build([]Intent{in}, Options{TemplateLanguage: tl})
	require.NoError(t, err)
	assert.True(t, g.Accepts("set a timer for an hour and a half"), "every value of the slot")
	assert.False(t, g.Accepts("start the timer for five minutes please"), "not every combination")
	g, err = Build([]Intent{in}, Options{TemplateLanguage: tl, Sentences: -1})
	require.NoError(t, err)
	assert.True(t, g.Accepts("start the timer for five minutes please"), "every combination with Sentences -1")
}

// A grammar is built only in a template language: without one, Build and
// the Builder say so.
func TestBuildNeedsATemplateLanguage(t *testing.T) {
	_, err := Build([]Intent{{Skill: "s", Name: "a", Templates: []string{"hello"}}}, Options{})
	assert.ErrorContains(t, err, "no template language")
	b := &Builder{Intents: func() []Intent { return nil }, Answers: func() []Intent { return nil }}
	_, err = b.Build(context.Background())
	assert.ErrorContains(t, err, "no template language")
	_, err = b.BuildAnswers(context.Background())
	assert.ErrorContains(t, err, "no template language")
}

// TestNoArticleBeforeAnArticle: a slot straight after "a", "an" or
// "the" takes none of its values that start with one, at any depth of
// the classes it is made of, so "make a {duration} timer" holds no "make
// a a minute timer" for the recogniser to take speech for; after other
// words the slot keeps every value.
func TestNoArticleBeforeAnArticle(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	tests := []struct {
		say  string
		want bool
	}{
		{"make a five minute timer", true},
		{"start a twenty five minute timer", true},
		{"make a half an hour timer", true},
		{"make a a minute timer", false},
		{"make a an hour timer", false},
		{"make a a hundred seconds timer", false}, // "a hundred" is the count class's
		{"set a a quarter hour timer", false},
		{"set a timer for a minute", true},
		{"set a timer for an hour and a half", true},
		{"set a timer for a hundred seconds", true},
		{"do you like the blues", true},
		{"do you like the the blues", false},
		{"do you like the cats", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, g.Accepts(tt.say), "%q", tt.say)
	}
	vals, ok, err := g.SlotValues("jibo.timer", "set_timer", "duration", 200_000)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Contains(t, vals, "a minute", "the slot's own values keep every value")
}
