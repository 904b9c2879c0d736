package capabilities

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/builtin/basics"
	"github.com/openjibo/jibod/core/skill/builtin/chitchat"
	"github.com/openjibo/jibod/core/skill/builtin/clock"
	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/core/skill/registry"
)

func manifest(id, name, desc string) *registry.Manifest {
	return &registry.Manifest{ID: id, Name: name, Description: desc}
}

type clockT struct{ t time.Time }

func (c *clockT) now() time.Time { return c.t }

func newRig(t *testing.T, list func() []*registry.Manifest, rnd func(int) int, hidden ...string) (*rig.Rig, *clockT) {
	r := rig.New(t, rig.Options{})
	c := &clockT{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	s, err := New(Options{Skills: list, Rand: rnd, Now: c.now, Hidden: hidden})
	require.NoError(t, err)
	r.Add(s)
	return r, c
}

// "What can you do" is short and complete: a few of the installed skills
// (this one, and hidden ones, left out), what each does as said after "I
// can", and how many more there are.
func TestShortAndComplete(t *testing.T) {
	installed := func() []*registry.Manifest {
		return []*registry.Manifest{basics.Manifest(), chitchat.Manifest(), clock.Manifest(), timer.Manifest(),
			volume.Manifest(), Manifest(), manifest("jibo/fallback", "Fallback", "Says when I did not understand.")}
	}
	for _, u := range []string{"what can you do", "help", "what can i ask you",
		"what can you do for me", "what are you capable of", "what can you help me with", "how can you help",
		"what are you capable of doing", "what are your skills", "show me what you can do", "what kind of things can you do"} {
		t.Run(u, func(t *testing.T) {
			r, _ := newRig(t, installed, func(int) int { return 0 }, "jibo/fallback")
			turn := r.Say(u)
			require.NoError(t, turn.Err)
			assert.Equal(t, ID+":"+IntentWhatCanYouDo, turn.Dispatched)
			require.Len(t, turn.Said, 1)
			assert.Equal(t, "I can answer greetings, chat about how I am and tell the time and the date. "+
				"And 2 more: ask me what else I can do.", turn.Said[0])
			assert.LessOrEqual(t, len(strings.Fields(turn.Said[0])), 30, "short")
		})
	}
}

// "What else can you do" goes on with the next few until every skill was
// named; a while later, or asked afresh, it starts again.
func TestWhatElse(t *testing.T) {
	var many []*registry.Manifest
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		many = append(many, manifest("test/"+n, strings.ToUpper(n), "Does "+n+"."))
	}
	r, c := newRig(t, func() []*registry.Manifest { return many }, func(int) int { return 0 })
	steps := []struct{ say, want string }{
		{"what can you do", "I can do a, do b and do c. And 4 more: ask me what else I can do."},
		{"what else can you do", "I can also do d, do e and do f. And 1 more: ask me what else I can do."},
		{"what else can you do?", "I can also do g. Just ask!"},
		{"what else can you do", "That's everything I can do for now, but I'm always learning."},
		{"what can you do", "I can do a, do b and do c. And 4 more: ask me what else I can do."},
	}
	for _, st := range steps {
		assert.Equal(t, []string{st.want}, r.Say(st.say).Said, st.say)
		c.t = c.t.Add(time.Minute)
	}
	r.Say("what else can you do")
	c.t = c.t.Add(GoOnWithin + time.Minute)
	assert.Equal(t, []string{"I can do a, do b and do c. And 4 more: ask me what else I can do."}, r.Say("what else can you do").Said,
		"long after, it starts again")
}

// Which skills come first is the injected randomness's choice.
func TestShuffled(t *testing.T) {
	var many []*registry.Manifest
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		many = append(many, manifest("test/"+n, strings.ToUpper(n), "Does "+n+"."))
	}
	r, _ := newRig(t, func() []*registry.Manifest { return many }, func(n int) int { return n - 1 })
	assert.Equal(t, []string{"I can do e, do a and do b. And 2 more: ask me what else I can do."}, r.Say("what can you do").Said)
}

func TestNothingInstalled(t *testing.T) {
	r, _ := newRig(t, nil, func(int) int { return 0 })
	assert.Equal(t, []string{"I can't do much yet, but I'm learning."}, r.Say("what can you do").Said)
}

func TestAbility(t *testing.T) {
	tests := []struct{ name, desc, want string }{
		{"Clock", "Tells the time and the date.", "tell the time and the date"},
		{"Timer", "Sets timers, says how much time is left.", "set timers"},
		{"Trivia", "Carries a quiz.", "carry a quiz"},
		{"Bird", "Watches birds", "watch birds"},
		{"Echo", "Does what you say.", "do what you say"},
		{"Trivia", "A game of trivia.", "help with the trivia"},
		{"NASA Facts", "NASA facts on demand", "help with NASA Facts"},
		{"Music", "  Plays   music!  ", "play music"},
		{"", "", ""},
		{"Long", "Reads " + strings.Repeat("very ", 40) + "long stories.", "read " + strings.TrimSpace(strings.Repeat("very ", 10))},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ability(manifest("test/x", tt.name, tt.desc)), tt.desc)
	}
}

// A manifest's words are escaped, so they are said and never run as ESML.
func TestDescriptionsAreNotMarkup(t *testing.T) {
	list := func() []*registry.Manifest {
		return []*registry.Manifest{manifest("test/x", "Tom & Jerry", "Plays <sfx name='boing'/> cartoons.")}
	}
	r, _ := newRig(t, list, func(int) int { return 0 })
	turn := r.Say("what can you do")
	require.NoError(t, turn.Err)
	assert.Equal(t, []string{"I can play <sfx name='boing'/> cartoons. Just ask!"}, turn.Said)
	assert.Empty(t, r.Sounds.Played())
}
