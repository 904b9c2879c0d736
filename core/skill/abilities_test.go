package skill

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/registry"
)

// What a skill does, as said after "I can", from its description.
func TestAbilities(t *testing.T) {
	tests := []struct{ name, desc, want string }{
		{"Timer", "Sets timers, says how much time is left, and rings when one is done.",
			"set timers, say how much time is left, and ring when one is done"},
		{"Volume", "Turns my volume up or down, sets it from zero to ten, and turns my sound off.",
			"turn my volume up or down, set it from zero to ten, and turn my sound off"},
		{"Clock", "Tells the time and the date.", "tell the time and the date"},
		{"Chitchat", "Chats about how I am, who I am, how old I am and what I like.",
			"chat about how I am, who I am, how old I am and what I like"},
		{"Trivia", "A quiz game.", ""},
		{"Trivia", "", ""},
		{"Alarms", "Sets timers, alarms, and reminders.", "set timers, alarms, and reminders"},
		{"Jokes", "Tells jokes, riddles and puns.", "tell jokes, riddles and puns"},
		{"World clock", "Tells the time in London, Paris and Tokyo.", "tell the time in London, Paris and Tokyo"},
		{"Home", "Controls lights, switches, fans and thermostats", "control lights, switches, fans and thermostats"},
		{"News", "News from the BBC.", ""},
		{"BBC News", "News from the BBC.", ""},
		{"Jokes", "Jokes for all ages.", ""},
		{"News", "Reads the news e.g. headlines, sports. Asks what you like.", "read the news e.g. headlines, sports"},
		{"", "", ""},
		// A plural noun is no verb, first or later.
		{"Wake up", "Alarms for the morning.", ""},
		{"Wake up", "Alarms for the morning, and reminders.", ""},
		{"Alarms", "Sets timers, alarms for the morning, and reminders.", "set timers, alarms for the morning, and reminders"},
		{"Sports", "Scores from last night's games.", ""},
		{"Sports", "Finds last night's scores, and lists the fixtures.", "find last night's scores, and list the fixtures"},
		{"Radio", "Plays stations from around the world, and snoozes them.", "play stations from around the world, and snooze them"},
		// First words descriptions mostly use as nouns are not said as verbs.
		{"Music", "Tracks from your library.", ""},
		{"News", "Updates from the BBC.", ""},
		{"Library", "Books by your favourite authors.", ""},
		{"History", "Records of what you asked.", ""},
		{"Events", "Shows near you.", ""},
		{"Messages", "Texts from your family.", ""},
		{"Weekend", "Plans for the weekend.", ""},
		{"Memo", "Notes about your day.", ""},
		{"Music", "Plays tracks from your library, and updates the playlist.", "play tracks from your library, and updates the playlist"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Abilities(&registry.Manifest{Name: tt.name, Description: tt.desc}), tt.desc)
	}
	assert.Empty(t, Abilities(nil))
	long := "Sets timers, says how much time is left, rings when one is done, tells the time, tells the date, sings songs, dances a jig, plays games with you, reads you the news, and tells jokes."
	assert.Equal(t, "set timers, say how much time is left, ring when one is done, tell the time, tell the date, sing songs, dance a jig, play games with you, read you the news",
		Abilities(&registry.Manifest{Name: "X", Description: long}), "cut after the last whole clause that fits")
	first := Abilities(&registry.Manifest{Name: "X", Description: strings.Repeat("Sings a very long song ", 40) + "."})
	assert.LessOrEqual(t, utf8.RuneCountInString(first), maxAbilities, "one long clause is bounded too")
	assert.True(t, strings.HasPrefix(first, "sing a very long song Sings") && strings.HasSuffix(first, "song"), first)
}

// A third-person form is a verb only when its plain form is a known verb.
func TestPlainVerb(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Tells", "tell", true},
		{"carries", "carry", true},
		{"watches", "watch", true},
		{"snoozes", "snooze", true},
		{"uses", "use", true},
		{"is", "be", true},
		{"Does", "do", true},
		{"alarms", "", false},
		{"Alarms", "", false},
		{"news", "", false},
		{"scores", "", false},
		{"jokes", "", false},
		{"tell", "", false},
		{"BBC", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := PlainVerb(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

// Every entry of verbs.txt is one plain lower-case word, listed once.
func TestVerbList(t *testing.T) {
	word := regexp.MustCompile(`^[a-z]+$`)
	seen := map[string]bool{}
	words := verbList()
	require.NotEmpty(t, words)
	for _, w := range words {
		assert.Regexp(t, word, w)
		assert.False(t, seen[w], "%q is listed twice", w)
		seen[w] = true
	}
}
