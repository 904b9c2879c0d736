package intent

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtinSkillsStack is a stack (the engines, no paraphrase tier) with
// every built-in skill's intents, read from their locale folders.
func builtinSkillsStack(t *testing.T) *Stack {
	t.Helper()
	st, err := NewStack(StackConfig{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	dirs, err := filepath.Glob("../skill/builtin/*/locale")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, d := range dirs {
		skill := "jibo." + filepath.Base(filepath.Dir(d))
		loc, err := LoadLocaleUnexpanded(os.DirFS(d), ".")
		require.NoError(t, err, d)
		for _, def := range loc.TemplateIntents("", skill) {
			_, err := st.Templates.Register(def)
			require.NoError(t, err, "%s:%s", skill, def.IntentName)
		}
	}
	return st
}

// TestTopicGuesses: a fragment that only names one built-in skill's topic,
// as that skill's templates say it after a determiner, is a topic guess
// of that skill (no intent); junk, everyday sentences, requests and
// fragments naming two topics, or a topic with another determiner than
// the templates say ("my name" is no topic of "what is your name"), are
// not.
func TestTopicGuesses(t *testing.T) {
	st := builtinSkillsStack(t)
	tests := []struct{ say, skill, topic string }{
		// timer: "cancel my timer", "the countdown"
		{"about my timer", "jibo.timer", "timer"},
		{"my timer", "jibo.timer", "timer"},
		{"timer?", "jibo.timer", "timer"},
		{"what about the timers", "jibo.timer", "timers"},
		{"the countdown", "jibo.timer", "countdown"},
		{"um about that timer please", "jibo.timer", "timer"},
		{"hey jibo tell me about my timer", "jibo.timer", "timer"},
		// volume: "turn up the volume", "lower your voice"
		{"what about the volume", "jibo.volume", "volume"},
		{"about the sound", "jibo.volume", "sound"},
		{"your voice", "jibo.volume", "voice"},
		{"the speaker", "jibo.volume", "speaker"},
		{"how about the volume level", "jibo.volume", "volume level"},
		// clock: "what is the date", "check the clock"
		{"about the date", "jibo.clock", "date"},
		{"and the clock", "jibo.clock", "clock"},
		{"the month", "jibo.clock", "month"},
		// chitchat and capabilities: "what is your name", "what are your skills"
		{"your name", "jibo.chitchat", "name"},
		{"about your favorite color", "jibo.chitchat", "favorite color"},
		{"your skills", "jibo.capabilities", "skills"},

		// junk and everyday sentences
		{say: "flibbertigibbet"},
		{say: "the cat sat on the mat"},
		{say: "i like my timer"},
		{say: "timers are useful"},
		{say: "the timer is red"},
		{say: "i bought a new kitchen timer"},
		{say: "my kitchen timer"},
		{say: "time flies"},
		{say: "the time machine"},
		{say: "a bit"},
		{say: "a lot"},
		{say: "five minutes"},
		{say: "today"},
		{say: "please"},
		{say: "about"},
		// another determiner than the templates say: the person's own
		{say: "my name"},
		{say: "my favorite color"},
		{say: "my birthday"},
		// two topics, or a topic of two skills ("the moment": the clock's
		// "at the moment" and the volume's)
		{say: "the timer and the volume"},
		{say: "my timer volume"},
		{say: "the moment"},
		// requests, and an action the robot does not know
		{say: "erase my timer"},
		{say: "where is my timer"},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			q := Query{Hypotheses: Texts(tt.say), Lang: "en-us"}
			c, ok, err := st.Guess(context.Background(), q)
			require.NoError(t, err)
			if tt.skill == "" {
				assert.False(t, ok && c.Topic != "", "a topic guess: %s %q", c.SkillID, c.Topic)
				// Whether or not a template claims it, it names no topic.
				skill, _, topic, ok := st.Templates.Topic(tt.say, "en-us", "", nil)
				assert.False(t, ok, "names %s's %q", skill, topic)
				return
			}
			require.True(t, ok, "no guess")
			assert.Equal(t, tt.skill, c.SkillID)
			assert.Equal(t, tt.topic, c.Topic)
			assert.Empty(t, c.IntentName, "a topic guess names no intent")
		})
	}
}

// TestTopicGuessKeepsTheSession: a skill the session denies is no topic,
// and an acoustically unsure fragment is not asked about.
func TestTopicGuessKeepsTheSession(t *testing.T) {
	st := builtinSkillsStack(t)
	c, ok, err := st.Guess(context.Background(), Query{Hypotheses: Texts("about my timer"), Lang: "en-us", Skill: "jibo.volume"})
	require.NoError(t, err)
	assert.False(t, ok, "%+v", c)
	_, ok, err = st.Guess(context.Background(), Query{Hypotheses: []Hypothesis{{Text: "about my timer", Acoustic: 0.3}}, Lang: "en-us"})
	require.NoError(t, err)
	assert.False(t, ok)
	c, ok, err = st.Guess(context.Background(), Query{Hypotheses: []Hypothesis{{Text: "about my timer", Acoustic: 0.9}}, Lang: "en-us"})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "timer", c.Topic)
}

// TestTopicsOf: what a template says after a determiner, up to a word
// that is no content word, is a topic; a bare determiner, "a" and a
// question word introduce none.
func TestTopicsOf(t *testing.T) {
	e := NewTemplateEngine(EngineOptions{})
	_, err := e.Register(TemplateIntent{SkillID: "x", IntentName: "y", Lang: "en-us", Samples: []string{
		"cancel [the|my] (timer|countdown) [please]",
		"what is the [current] time",
		"set a timer for {duration}",
		"what kind of things",
		"turn the {thing} off",
	}})
	require.NoError(t, err)
	ci := e.scopes[scopeKey{DefaultSession, "en-us"}].intents[nameKey{"x", "y"}]
	assert.ElementsMatch(t, []string{"the timer", "the countdown", "my timer", "my countdown", "the time", "the current time"}, ci.topics)
}

// A topic guess keeps the determiner said before the topic, for the
// question to say whose thing it is.
func TestTopicKeepsTheDeterminer(t *testing.T) {
	st := builtinSkillsStack(t)
	for _, tt := range []struct{ say, det, topic string }{
		{"your name", "your", "name"},
		{"about my timer", "my", "timer"},
		{"um about that timer please", "that", "timer"},
		{"timer?", "", "timer"},
	} {
		c, ok, err := st.Guess(context.Background(), Query{Hypotheses: Texts(tt.say), Lang: "en-us"})
		require.NoError(t, err)
		require.True(t, ok, tt.say)
		assert.Equal(t, tt.topic, c.Topic, tt.say)
		assert.Equal(t, tt.det, c.Determiner, tt.say)
	}
}
