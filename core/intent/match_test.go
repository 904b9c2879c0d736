package intent

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Turn ON the Lamp", "turn on the lamp"},
		{"  hello,   world!  ", "hello world"},
		{"What's the weather?", "whats the weather"},
		{"what’s up", "whats up"},
		{"rock 'n' roll", "rock n roll"},
		{"set it to 20.5 degrees.", "set it to 20.5 degrees"},
		{"1/2 an hour", "1/2 an hour"},
		{"1,000 ways", "1,000 ways"},
		{"end.", "end"},
		{"a-b_c", "a b c"},
		{"Grüße aus Köln", "grüße aus köln"},
		{"{slot} (x|y) <v>", "slot x y v"},
		{"bad \xff byte", "bad byte"},
		{"", ""},
		{"?!", ""},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Normalize(tc.in), "input %q", tc.in)
	}
}

// TestMatch covers exact and slot matching, entity hints (GRM-15),
// blacklists (RES-06) and required slots (DEF-08).
func TestMatch(t *testing.T) {
	e := newTestEngine()
	defs := []TemplateIntent{
		{SkillID: "lights", IntentName: "on", Lang: "en-us",
			Samples:       []string{"turn on [the] {device}", "switch on the lights"},
			Blacklist:     []string{"alarm", "the oven"},
			Entities:      map[string][]string{"device": {"kitchen light", "lamp"}},
			SlotBlacklist: map[string][]string{"device": {"everything"}}},
		{SkillID: "music", IntentName: "play", Lang: "en-us",
			Samples:  []string{"play {song}", "play {song} by {artist}", "play music"},
			Entities: map[string][]string{"artist": {"the beatles"}}},
		{SkillID: "timer", IntentName: "start", Lang: "en-us",
			Samples:       []string{"set [a] timer [for {duration:length}]"},
			RequiredSlots: []string{"length"},
			SlotBlacklist: map[string][]string{"length": {"ever"}}},
		{SkillID: "radio", IntentName: "tune", Lang: "en-us",
			Samples:  []string{"play {station} radio"},
			Entities: map[string][]string{"station": {"jazz"}}},
		{SkillID: "battery", IntentName: "status", Lang: "en-us",
			Samples: []string{"what is {name}['s] battery"}},
		{SkillID: "appliance", IntentName: "start", Lang: "en-us",
			Samples: []string{"start the {appliance}"}},
		{SkillID: "generic", IntentName: "start", Lang: "en-us",
			Samples: []string{"start {task}"}},
	}
	for _, d := range defs {
		mustRegister(t, e, d)
	}
	tests := []struct {
		name      string
		utterance string
		intent    string // "skill:intent", "" = no match
		slots     map[string]string
		conf      float64 // 0 = not checked
		why       string  // substring of Why
	}{
		{"every word literal scores highest", "Switch on the lights!", "lights:on", map[string]string{}, 0.97, `template "switch on the lights": every word literal`},
		{"literal words beat a slot", "play music", "music:play", map[string]string{}, 0.97, "every word literal"},
		{"GRM-14 slot gets the surface words", "play yesterday", "music:play", map[string]string{"song": "yesterday"}, 0, `song="yesterday" (open text)`},
		{"GRM-14 multi-word slot", "play let it be", "music:play", map[string]string{"song": "let it be"}, 0, ""},
		{"two slots split at the literal", "play let it be by the beatles", "music:play",
			map[string]string{"song": "let it be", "artist": "the beatles"}, 0, `artist="the beatles" (entity value)`},
		{"GRM-15 entity value", "turn on the lamp", "lights:on", map[string]string{"device": "lamp"}, 0.97, `device="lamp" (entity value)`},
		{"GRM-15 entity hit beats a more literal template with open text", "play jazz radio", "radio:tune",
			map[string]string{"station": "jazz"}, 0.97, "station=\"jazz\" (entity value)"},
		{"GRM-15 value outside the entity list still matches", "turn on the big fan", "lights:on", map[string]string{"device": "big fan"}, 0, "(not among its values)"},
		{"more literal words win over a shorter template", "start the toaster", "appliance:start", map[string]string{"appliance": "toaster"}, 0, "2 of 3 words literal"},
		{"RES-06 slot blacklist leaves the slot unresolved", "turn on everything", "lights:on", map[string]string{}, 0,
			`device unresolved: "everything" is blacklisted for it (RES-06)`},
		{"RES-06 blacklist suppresses the intent", "turn on the alarm", "", nil, 0, ""},
		{"RES-06 multi-word blacklist phrase", "turn on the oven", "", nil, 0, ""},
		{"RES-06 blacklist needs whole words", "turn on the alarms", "lights:on", map[string]string{"device": "alarms"}, 0, ""},
		{"RES-06 blacklist needs contiguous words", "turn on oven the", "lights:on", map[string]string{"device": "oven"}, 0, `skipped "the"`},
		{"DEF-08 required slot bound", "set a timer for ten minutes", "timer:start", map[string]string{"length": "ten minutes"}, 0.97, `length="ten minutes" (duration)`},
		{"DEF-08 required slot unbound", "set a timer", "", nil, 0, ""},
		{"DEF-08 RES-06 required slot blacklisted", "set a timer for ever", "", nil, 0, ""},
		{"glued suffix", "what is john's battery", "battery:status", map[string]string{"name": "john"}, 0, `name="john"`},
		{"glued suffix optional", "what is the phone battery", "battery:status", map[string]string{"name": "the phone"}, 0, ""},
		{"no match", "what time is it", "", nil, 0, ""},
		{"empty utterance", " ?! ", "", nil, 0, ""},
		{"slots need at least one word", "play", "", nil, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Match(tc.utterance, "en-us", "")
			if tc.intent == "" {
				assert.Nil(t, r, "got %+v", r)
				return
			}
			require.NotNil(t, r)
			assert.Equal(t, tc.intent, r.SkillID+":"+r.IntentName)
			assert.Equal(t, tc.slots, r.Slots)
			assert.Equal(t, Normalize(tc.utterance), r.Utterance)
			assert.Equal(t, "en-us", r.Lang)
			assert.GreaterOrEqual(t, r.Confidence, 0.0)
			assert.LessOrEqual(t, r.Confidence, 1.0)
			if tc.conf != 0 {
				assert.InDelta(t, tc.conf, r.Confidence, 1e-9)
			} else {
				assert.Less(t, r.Confidence, 0.97, "below a parse of literal words and listed values only")
			}
			assert.Contains(t, r.Why, tc.why)
		})
	}
}

// TestMatchTieBreak: equal confidence goes to fewer slot words, then to
// skill and intent name, whatever the registration order.
func TestMatchTieBreak(t *testing.T) {
	for _, order := range [][]string{{"zeta", "alpha"}, {"alpha", "zeta"}} {
		e := newTestEngine()
		for _, skill := range order {
			mustRegister(t, e, TemplateIntent{SkillID: skill, IntentName: "x", Lang: "en-us", Samples: []string{"hello there", "say {what}"}})
		}
		r := e.Match("hello there", "en-us", "")
		require.NotNil(t, r)
		assert.Equal(t, "alpha", r.SkillID, "exact tie: skill name")
		r = e.Match("say hi", "en-us", "")
		require.NotNil(t, r)
		assert.Equal(t, "alpha", r.SkillID, "slot tie: skill name")
	}

	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "a", IntentName: "long", Lang: "en-us", Samples: []string{"{x} now"}})
	mustRegister(t, e, TemplateIntent{SkillID: "b", IntentName: "short", Lang: "en-us", Samples: []string{"{x} me now"}})
	r := e.Match("tell me now", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "b:short", r.SkillID+":"+r.IntentName, "more literal words, fewer slot words")
}

// TestMatchDisabled: a disabled intent is skipped and another may match
// instead (REG-10).
func TestMatchDisabled(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "a", IntentName: "exact", Lang: "en-us", Samples: []string{"good morning"}})
	mustRegister(t, e, TemplateIntent{SkillID: "b", IntentName: "greet", Lang: "en-us", Samples: []string{"good {time}"}})
	require.Equal(t, "exact", e.Match("good morning", "en-us", "").IntentName)
	e.SetEnabled("", "a", "exact", "", false)
	r := e.Match("good morning", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "greet", r.IntentName)
	e.SetEnabled("", "b", "greet", "en-us", false)
	assert.Nil(t, e.Match("good morning", "en-us", ""))
}

// TestMatchBlacklistOnlyAffectsItsIntent (RES-06).
func TestMatchBlacklistOnlyAffectsItsIntent(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "a", IntentName: "play", Lang: "en-us", Samples: []string{"play {x}"}, Blacklist: []string{"radio"}})
	mustRegister(t, e, TemplateIntent{SkillID: "b", IntentName: "other", Lang: "en-us", Samples: []string{"play {x} [now]"}})
	r := e.Match("play the radio", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "b", r.SkillID)
	r = e.Match("play the news", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "a", r.SkillID, "tie on score and slot words goes to skill a")
}

func TestMatchLanguages(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "hi", Lang: "EN-US", Samples: []string{"hello"}})
	assert.NotNil(t, e.Match("hello", "en-US", ""), "REG-04: lang is case-insensitive")
	assert.Nil(t, e.Match("hello", "en-gb", ""), "no language fallback: exact tag only")
	assert.Nil(t, e.Match("hello", "", ""))
}

func TestMatchUtteranceWordLimit(t *testing.T) {
	e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), MaxUtteranceWords: 4})
	long := "one two three four five"
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "exact", Lang: "en-us", Samples: []string{long}})
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "slot", Lang: "en-us", Samples: []string{"one {x}"}})
	r := e.Match(long, "en-us", "")
	require.NotNil(t, r, "exact samples match at any length")
	assert.Equal(t, "exact", r.IntentName)
	assert.Nil(t, e.Match("one a b c d e", "en-us", ""), "slot matching stops at the limit")
	assert.NotNil(t, e.Match("one a b c", "en-us", ""))
}

// TestMatchManySlotSplits: the aligner stays polynomial when a separator
// word repeats; a backtracking matcher would take exponential time here.
func TestMatchManySlotSplits(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "en-us",
		Samples: []string{"{a} x {b} x {c} x {d} x {e} x {f} end"}})
	words := strings.TrimSpace(strings.Repeat("x ", 60)) + " end"
	r := e.Match(words, "en-us", "")
	require.NotNil(t, r)
	assert.Len(t, r.Slots, 6)
}

// TestMatchIndexPaths covers the two places a slot sample is indexed: by
// its literal start and end, or by an inner anchor word when it starts and
// ends with slots.
func TestMatchIndexPaths(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "music", IntentName: "by", Lang: "en-us", Samples: []string{"{song} by {artist}"}})
	mustRegister(t, e, TemplateIntent{SkillID: "owner", IntentName: "possessive", Lang: "en-us", Samples: []string{"{name}'s (car|bike)"}})
	mustRegister(t, e, TemplateIntent{SkillID: "edge", IntentName: "both", Lang: "en-us", Samples: []string{"tell {who} about {what} tonight"}})
	tests := []struct {
		utterance, intent string
		slots             map[string]string
	}{
		{"yellow submarine by the beatles", "by", map[string]string{"song": "yellow submarine", "artist": "the beatles"}},
		{"Ada's bike", "possessive", map[string]string{"name": "ada"}},
		{"tell bob about the party tonight", "both", map[string]string{"who": "bob", "what": "the party"}},
	}
	for _, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			r := e.Match(tc.utterance, "en-us", "")
			require.NotNil(t, r)
			assert.Equal(t, tc.intent, r.IntentName)
			assert.Equal(t, tc.slots, r.Slots)
		})
	}
	assert.Nil(t, e.Match("tell bob about the party", "en-us", ""), "the literal end must be there")
	assert.Nil(t, e.Match("by the beatles", "en-us", ""), "a slot needs a word")

	// Removing samples takes them out of every index.
	e.RemoveSkill("", "music")
	e.RemoveSkill("", "owner")
	e.RemoveSkill("", "edge")
	for _, tc := range tests {
		assert.Nil(t, e.Match(tc.utterance, "en-us", ""), tc.utterance)
	}
	assert.Empty(t, e.scopes, "empty scopes are dropped")
}
