package intent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlotValuesAreUtteranceSpans_GRM13: the engine fills .intent slots
// with the utterance's own words, and a slot inside a group is absent when
// its branch is not taken.
func TestSlotValuesAreUtteranceSpans_GRM13(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "timer", IntentName: "start", Lang: "en-us",
		Samples: []string{"set [a] timer [for {length}] [called {name}]"}})
	tests := []struct {
		utterance string
		slots     map[string]string
	}{
		{"set a timer", map[string]string{}},
		{"set a timer for ten minutes", map[string]string{"length": "ten minutes"}},
		{"set timer called pasta", map[string]string{"name": "pasta"}},
		{"Set a timer for 1/2 an hour called Pasta!", map[string]string{"length": "1/2 an hour", "name": "pasta"}},
	}
	for _, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			r := e.Match(tc.utterance, "en-us", "")
			require.NotNil(t, r)
			assert.Equal(t, tc.slots, r.Slots)
			for _, v := range r.Slots {
				assert.Contains(t, " "+r.Utterance+" ", " "+v+" ", "a run of the utterance's whole words")
			}
		})
	}
}

// TestTypedSlotsReturnSurface_GRM14_GRM17: a typed slot is matched without
// any typed-slot map and its value is the surface text, never coerced.
func TestTypedSlotsReturnSurface_GRM14_GRM17(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "audio", IntentName: "volume", Lang: "en-us",
		Samples: []string{"set volume to {number:level} [percent]"}, SlotTypes: map[string]string{"level": "number"}})
	for u, want := range map[string]string{
		"set volume to forty two percent": "forty two",
		"set volume to 20.5":              "20.5",
		"set volume to 007":               "007",
	} {
		r := e.Match(u, "en-us", "")
		require.NotNil(t, r, u)
		assert.Equal(t, map[string]string{"level": want}, r.Slots, u)
	}
}

// TestTrainingData_GRM18: an engine given training data reads and
// validates it (GRM-02, GRM-07), accepts differing slot sets, and matches
// {…} as slots. It "trains" on the template's structure: matching it is
// matching its sample set, without expanding it.
func TestTrainingData_GRM18(t *testing.T) {
	e := newTestEngine()
	warns := mustRegister(t, e, TemplateIntent{SkillID: "music", IntentName: "play", Lang: "en-us",
		Samples: []string{"Play {song}!", "play {song} by {artist}", "play (some|) music", "play {a}{b}", "(broken"}})
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	joined := strings.Join(got, "\n")
	assert.Contains(t, joined, "samples[0]: text \"Play\" is not ASR-normalised (GRM-02)")
	assert.Contains(t, joined, "samples[3]: template \"play {a}{b}\" skipped")
	assert.Contains(t, joined, "samples[4]: template \"(broken\" skipped")
	for u, want := range map[string]map[string]string{
		"play some music":               {},
		"play music":                    {},
		"play yesterday":                {"song": "yesterday"},
		"play yesterday by the beatles": {"song": "yesterday", "artist": "the beatles"},
	} {
		r := e.Match(u, "en-us", "")
		require.NotNil(t, r, u)
		assert.Equal(t, want, r.Slots, u)
	}
}

// TestOwningSkillAndQualifiedName_DEF01_DEF02: an intent belongs to the
// skill that registered it; two skills may use one intent name, and each
// match names its owner, so dispatch goes to that skill's handler.
func TestOwningSkillAndQualifiedName_DEF01_DEF02(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "radio", IntentName: "play", Lang: "en-us", Samples: []string{"play {station} radio"}})
	mustRegister(t, e, TemplateIntent{SkillID: "podcasts", IntentName: "play", Lang: "en-us", Samples: []string{"play {show} podcast"}})
	for u, owner := range map[string]string{"play jazz radio": "radio", "play the daily podcast": "podcasts"} {
		r := e.Match(u, "en-us", "")
		require.NotNil(t, r, u)
		assert.Equal(t, owner+":play", r.SkillID+":"+r.IntentName, u)
	}
	assert.Len(t, e.Registrations(""), 2, "two definitions, keyed by skill")
	e.RemoveSkill("", "radio")
	assert.Nil(t, e.Match("play jazz radio", "en-us", ""))
	assert.NotNil(t, e.Match("play the daily podcast", "en-us", ""), "the other skill's intent is untouched")
}

// TestResultIsNameAndSlots_DEF11: a result is the qualified name and a
// string map of slots, empty but never nil when nothing was captured.
func TestResultIsNameAndSlots_DEF11(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "greet", IntentName: "hello", Lang: "en-us", Samples: []string{"hello", "hello {name}"}})
	for _, u := range []string{"hello", "please hello", "hello bob"} {
		r := e.Match(u, "en-us", "")
		require.NotNil(t, r, u)
		assert.Equal(t, "greet:hello", r.SkillID+":"+r.IntentName)
		assert.NotNil(t, r.Slots, "DEF-11: possibly empty, never nil")
	}
	assert.Equal(t, map[string]string{"name": "bob"}, e.Match("hello bob", "en-us", "").Slots)
}
