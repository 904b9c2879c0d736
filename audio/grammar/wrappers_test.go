package grammar

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrappers: the words people put around a request are optional
// before and after every command, written once in the grammar.
func TestWrappers(t *testing.T) {
	intents := []Intent{
		{Skill: "s", Name: "timer", Lang: "en-US", Templates: []string{"set a timer for {duration}"}},
		{Skill: "s", Name: "time", Lang: "en-US", Templates: []string{"what time is it"}},
		{Skill: "s", Name: "down", Lang: "en-US", Templates: []string{"turn it down"}},
	}
	g, err := Build(intents, Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo", Wrappers: WrappersFor("en")})
	require.NoError(t, err)
	assert.True(t, g.Wrapped())
	jsgf := g.JSGF()
	assert.Contains(t, jsgf, "<command> = [<before>] <intent> [<after>];\n<intent> = <i0> | <i1> | <i2>;\n")
	assert.Equal(t, 1, strings.Count(jsgf, "<before> ="), "one shared rule before")
	assert.Equal(t, 1, strings.Count(jsgf, "<after> ="), "one shared rule after")
	assert.Contains(t, g.Words(), "please")

	tests := []struct {
		say  string
		want bool
	}{
		{"set a timer for seven minutes", true},
		{"please set a timer for seven minutes", true},
		{"could you set a timer for seven minutes please", true},
		{"hey jibo, could you set a timer for seven minutes please", true},
		{"can you please set a timer for seven minutes", true},
		{"I'd like you to set a timer for seven minutes", true},
		{"set a timer for seven minutes for me", false}, // "for me" took the place of what was said ("be quiet for a bit")
		{"could you tell me what time it is", false},    // "tell me" is no wrapper
		{"what time is it please", true},
		{"turn it down thank you", true},
		{"turn it down thanks", true},
		{"please", false},                    // a wrapper is no command
		{"could you please", false},          // nor two
		{"hey jibo please", false},           // the wake phrase and a wrapper neither
		{"what time is it could you", false}, // each on its side
		{"please please what time is it", false},
		{"what time is it please thank you", false}, // one wrapper a side
		{"turn it down a lot", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, g.Accepts(tc.say), tc.say)
	}

	// Without wrappers the grammar is as before.
	plain, err := Build(intents, Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	assert.False(t, plain.Wrapped())
	assert.Contains(t, plain.JSGF(), "<command> = <i0> | <i1> | <i2>;\n")
	assert.NotContains(t, plain.JSGF(), "<before>")
	assert.False(t, plain.Accepts("please what time is it"))
	assert.True(t, plain.Accepts("what time is it"))
}

// TestWrappersRefused: a wrapper that can say nothing, or names a slot,
// is an error; one with words the recogniser cannot say is left out.
func TestWrappersRefused(t *testing.T) {
	intents := []Intent{{Skill: "s", Name: "time", Lang: "en-US", Templates: []string{"what time is it"}}}
	for _, w := range []Wrappers{
		{Before: []string{"[please]"}},
		{After: []string{"for {who}"}},
		{After: []string{"(please"}},
	} {
		_, err := Build(intents, Options{TemplateLanguage: tl, Wrappers: w})
		assert.Error(t, err, w)
	}
	g, err := Build(intents, Options{TemplateLanguage: tl, Wrappers: Wrappers{After: []string{"please", "zorblax"}},
		Unknown: map[string]bool{"zorblax": true}})
	require.NoError(t, err)
	assert.True(t, g.Accepts("what time is it please"))
	assert.False(t, g.Accepts("what time is it zorblax"))
	assert.Contains(t, g.Dropped(), Dropped{Skill: "wrapper", Intent: "after", Sample: "zorblax", Why: `the recogniser cannot pronounce "zorblax"`})
	assert.Equal(t, Wrappers{}, WrappersFor("de-DE"))
	assert.Equal(t, englishWrappers, WrappersFor("en-GB"))
	w := WrappersFor("en")
	w.Before[0] = "changed"
	assert.Equal(t, "please", WrappersFor("en").Before[0], "the caller's copy is its own")
}

// TestCorpusWrapped: the domain language model's corpus has each
// sentence also once wrapped, the wrappers taking turns.
func TestCorpusWrapped(t *testing.T) {
	intents := []Intent{{Skill: "s", Name: "a", Lang: "en-US", Templates: []string{"(mute|unmute|stop|help|pause|play)"}}}
	g, err := Build(intents, Options{TemplateLanguage: tl, Wrappers: Wrappers{Before: []string{"please"}, After: []string{"now"}}})
	require.NoError(t, err)
	c, err := g.Corpus(100, 100)
	require.NoError(t, err)
	var got []string
	for _, s := range c.Sentences {
		got = append(got, strings.Join(s.Tokens, " "))
	}
	assert.Equal(t, []string{"help", "help now", "mute", "please mute now", "pause", "please pause",
		"play", "play now", "stop", "please stop now", "unmute", "please unmute"}, got)
}

// TestCorpusWrappersFitTheRoom: the wrapped sentences take only the
// room the sentences leave under the bound, spread evenly over them, so
// wrappers never make a corpus too large; the sentences themselves still
// do.
func TestCorpusWrappersFitTheRoom(t *testing.T) {
	intents := []Intent{{Skill: "s", Name: "a", Lang: "en-US", Templates: []string{"(mute|unmute|stop|help|pause|play)"}}}
	g, err := Build(intents, Options{TemplateLanguage: tl, Wrappers: Wrappers{Before: []string{"please"}, After: []string{"now"}}})
	require.NoError(t, err)
	texts := func(max int) []string {
		c, err := g.Corpus(max, 100)
		require.NoError(t, err)
		var got []string
		for _, s := range c.Sentences {
			got = append(got, strings.Join(s.Tokens, " "))
		}
		return got
	}
	assert.Equal(t, []string{"help", "mute", "pause", "play", "stop", "unmute"}, texts(6), "no room: no wrapped sentence")
	got := texts(9)
	require.Len(t, got, 9)
	assert.Equal(t, []string{"help", "mute", "mute now", "pause", "play", "please play now", "stop", "unmute", "please unmute"}, got,
		"three wrapped, every other sentence, the wrappers taking turns")
	assert.Len(t, texts(100), 12, "room for all: each sentence wrapped once")

	_, err = g.Corpus(5, 100)
	assert.ErrorIs(t, err, ErrCorpusTooLarge, "the sentences alone are too many")
}

// TestIntentJSGF: one intent's grammar is its sentences wrapped as the
// commands are, with the rules they reach and no other intent's, for a
// grammar with wrappers on both sides, one side, or none.
func TestIntentJSGF(t *testing.T) {
	intents := []Intent{
		{Skill: "s", Name: "timer", Lang: "en-US", Templates: []string{"set a timer for {minutes} minutes"},
			Entities: map[string][]string{"minutes": {"five", "ten"}}},
		{Skill: "s", Name: "time", Lang: "en-US", Templates: []string{"what time is it"}},
	}
	tests := []struct {
		name     string
		wrappers Wrappers
		want     string
	}{
		{"both sides", Wrappers{Before: []string{"please"}, After: []string{"thanks"}},
			"public <utterance> = [<before>] <i1> [<after>];\n<before> = please;\n<after> = thanks;\n"},
		{"before only", Wrappers{Before: []string{"please"}},
			"public <utterance> = [<before>] <i1>;\n<before> = please;\n"},
		{"after only", Wrappers{After: []string{"thanks"}},
			"public <utterance> = <i1> [<after>];\n<after> = thanks;\n"},
		{"none", Wrappers{}, "public <utterance> = <i1>;\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Build(intents, Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo", Wrappers: tc.wrappers})
			require.NoError(t, err)
			jsgf, ok := g.IntentJSGF("s:timer")
			require.True(t, ok)
			// The intent's rule and the slot's rule it reaches; no other
			// intent's, no wake phrase.
			assert.Equal(t, "#JSGF V1.0;\ngrammar jibo;\n\n"+tc.want+
				"<e0> = five | ten;\n<i1> = set a timer for <e0> minutes;\n", jsgf)

			_, ok = g.IntentJSGF("s:nothing")
			assert.False(t, ok)
		})
	}
}

// TestIntentWords: an intent's words are those of its own sentences,
// without its slots' values, the wrappers or another intent's words.
func TestIntentWords(t *testing.T) {
	intents := []Intent{
		{Skill: "s", Name: "timer", Lang: "en-US", Templates: []string{"set a timer for {minutes} minutes", "start a timer"},
			Entities: map[string][]string{"minutes": {"five", "ten"}}},
		{Skill: "s", Name: "time", Lang: "en-US", Templates: []string{"what time is it"}},
	}
	g, err := Build(intents, Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo",
		Wrappers: Wrappers{Before: []string{"please"}, After: []string{"thanks"}}})
	require.NoError(t, err)
	words, ok := g.IntentWords("s:timer")
	require.True(t, ok)
	assert.Equal(t, []string{"a", "for", "minutes", "set", "start", "timer"}, words)
	words, ok = g.IntentWords("s:time")
	require.True(t, ok)
	assert.Equal(t, []string{"is", "it", "time", "what"}, words)
	_, ok = g.IntentWords("s:nothing")
	assert.False(t, ok)
}
