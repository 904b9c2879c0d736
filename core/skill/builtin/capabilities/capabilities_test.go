package capabilities

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/builtin/clock"
	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/core/skill/registry"
)

func manifest(id, name, desc string) *registry.Manifest {
	return &registry.Manifest{ID: id, Name: name, Description: desc}
}

func newRig(t *testing.T, list func() []*registry.Manifest, rnd func(int) int) *rig.Rig {
	r := rig.New(t, rig.Options{})
	s, err := New(Options{Skills: list, Rand: rnd})
	require.NoError(t, err)
	r.Add(s)
	return r
}

// TestNamesInstalledSkills: "what can you do" names the installed skills
// from their manifests (this one left out), by name.
func TestNamesInstalledSkills(t *testing.T) {
	installed := func() []*registry.Manifest {
		return []*registry.Manifest{clock.Manifest(), timer.Manifest(), volume.Manifest(), Manifest()}
	}
	want := "Here are a few things I can do. Clock: tells the time and the date." +
		" Timer: sets timers, says how much time is left, and rings when one is done." +
		" Volume: turns my volume up or down, sets it from zero to ten, and mutes me. Just ask!"
	for _, u := range []string{"what can you do", "What else can you do?", "help", "what can i ask you",
		"what can you do for me", "what are you capable of", "what can you help me with", "how can you help",
		"what are you capable of doing", "what are your skills", "show me what you can do", "what kind of things can you do"} {
		t.Run(u, func(t *testing.T) {
			turn := newRig(t, installed, func(int) int { return 0 }).Say(u)
			require.NoError(t, turn.Err)
			assert.Equal(t, ID+":"+IntentWhatCanYouDo, turn.Dispatched)
			assert.Equal(t, []string{want}, turn.Said)
		})
	}
}

// TestNamesAtMostFive: of many skills, MaxNamed are named, chosen by the
// injected randomness.
func TestNamesAtMostFive(t *testing.T) {
	var many []*registry.Manifest
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		many = append(many, manifest("test/"+n, strings.ToUpper(n), "Does "+n+"."))
	}
	list := func() []*registry.Manifest { return many }
	tests := []struct {
		name string
		rnd  func(int) int
		want string
	}{
		{"first five", func(int) int { return 0 },
			"Here are a few things I can do. A: does a. B: does b. C: does c. D: does d. E: does e. Just ask!"},
		{"the last one swapped in each time", func(n int) int { return n - 1 },
			"Here's some of what I can do. A: does a. B: does b. C: does c. D: does d. H: does h. Just ask!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, []string{tt.want}, newRig(t, list, tt.rnd).Say("what can you do").Said)
		})
	}
}

func TestNothingInstalled(t *testing.T) {
	said := newRig(t, nil, func(int) int { return 0 }).Say("what can you do").Said
	assert.Equal(t, []string{"I can't do much yet, but I'm learning."}, said)
}

func TestFirstSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Tells the time.", "tells the time."},
		{"Tells the time. Also the date.", "tells the time."},
		{"I sing songs", "I sing songs."},
		{"NASA facts on demand", "NASA facts on demand."},
		{"  Plays   music!  ", "plays music!"},
		{"Does " + strings.Repeat("very ", 40) + "much.", "does " + strings.TrimSpace(strings.Repeat("very ", 27)) + "…"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, firstSentence(tt.in), tt.in)
	}
}

// TestDescriptionsAreNotMarkup: a manifest's words are escaped, so they
// are said and never run as ESML.
func TestDescriptionsAreNotMarkup(t *testing.T) {
	list := func() []*registry.Manifest {
		return []*registry.Manifest{manifest("test/x", "Tom & Jerry", "Plays <sfx name='boing'/> cartoons.")}
	}
	r := newRig(t, list, func(int) int { return 0 })
	turn := r.Say("what can you do")
	require.NoError(t, turn.Err)
	assert.Equal(t, []string{"Here are a few things I can do. Tom & Jerry: plays <sfx name='boing'/> cartoons. Just ask!"}, turn.Said)
	assert.Empty(t, r.Sounds.Played())
}
