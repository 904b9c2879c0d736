package intent

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newKeywordEngine() *KeywordEngine {
	return NewKeywordEngine(KeywordOptions{Logger: slog.New(slog.DiscardHandler)})
}

func voc(name string, samples ...string) KeywordVocab {
	return KeywordVocab{Name: name, Samples: samples}
}

func mustRegisterKeyword(t *testing.T, e *KeywordEngine, def KeywordIntent) []Warning {
	t.Helper()
	w, err := e.Register(def)
	require.NoError(t, err)
	return w
}

// weather is a typical keyword intent: a required vocabulary, an optional
// one, a one_of group and an excluded vocabulary.
func weather() KeywordIntent {
	return KeywordIntent{
		SkillID: "weather", IntentName: "current", Lang: "en-US",
		Required: []KeywordVocab{voc("weather", "weather", "forecast")},
		Optional: []KeywordVocab{voc("when", "today", "(right|) now", "tomorrow")},
		Excluded: []KeywordVocab{voc("history", "last (week|year)", "yesterday")},
	}
}

// TestKeywordMatchRoles checks the roles of DEF-04 and the captures of
// DEF-06 as a user sees them in the match.
func TestKeywordMatchRoles(t *testing.T) {
	e := newKeywordEngine()
	mustRegisterKeyword(t, e, weather())
	mustRegisterKeyword(t, e, KeywordIntent{
		SkillID: "lights", IntentName: "switch", Lang: "en-us",
		Required: []KeywordVocab{voc("light", "light[s]", "lamp")},
		OneOf:    [][]KeywordVocab{{voc("on", "on", "switch on"), voc("off", "off")}},
	})
	tests := []struct {
		name      string
		utterance string
		intent    string
		slots     map[string]string
	}{
		{"DEF-04 required occurs", "weather", "current", map[string]string{"weather": "weather"}},
		{"DEF-06 optional captured when it occurs", "whats the weather today", "current",
			map[string]string{"weather": "weather", "when": "today"}},
		{"DEF-06 absent optional gives no key", "show me the forecast", "current", map[string]string{"weather": "forecast"}},
		{"DEF-04 excluded vetoes", "what was the weather yesterday", "", nil},
		{"DEF-04 excluded multi-word phrase vetoes", "weather last week", "", nil},
		{"DEF-03 excluded phrase must be contiguous", "weather last month and this week", "current",
			map[string]string{"weather": "weather"}},
		{"DEF-04 required missing", "what is it like today", "", nil},
		{"DEF-04 one_of needs a member", "the lamp", "", nil},
		{"DEF-04 one_of member occurs", "lamp on please", "switch", map[string]string{"light": "lamp", "on": "on"}},
		{"DEF-06 every one_of member that occurred is captured", "lights on and off", "switch",
			map[string]string{"light": "lights", "on": "on", "off": "off"}},
		{"DEF-06 longest phrase of a vocabulary is captured", "switch on the lights", "switch",
			map[string]string{"light": "lights", "on": "switch on"}},
		{"DEF-03 whole tokens: art does not occur in start", "start the lampshade factory on", "", nil},
		{"DEF-03 vocabulary is the union of its samples' sample sets", "weather right now", "current",
			map[string]string{"weather": "weather", "when": "right now"}},
		{"GRM-02 utterance normalised first", "What's the WEATHER, now?", "current",
			map[string]string{"weather": "weather", "when": "now"}},
		{"nothing occurs", "flibbertigibbet", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Match(tc.utterance, "en-us", "")
			if tc.intent == "" {
				assert.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			assert.Equal(t, tc.intent, r.IntentName)
			assert.Equal(t, tc.slots, r.Slots)
			assert.Equal(t, "en-us", r.Lang)
		})
	}
}

// TestKeywordConfidence: the share of words the keywords explain, with a
// reason a person can read.
func TestKeywordConfidence(t *testing.T) {
	e := newKeywordEngine()
	mustRegisterKeyword(t, e, weather())
	r := e.Match("weather now", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, 1.0, r.Confidence)
	r = e.Match("tell me the weather", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, 0.25, r.Confidence)
	assert.Equal(t, `keywords required weather="weather"; 1 of 4 words covered; 1 required/one_of vocabularies`, r.Why)
	assert.Empty(t, r.Sample)
	r = e.Match("the weather right now", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, 0.75, r.Confidence, "required and optional words both count")
}

// TestKeywordTieBreaks: more words covered wins, then the more specific
// definition, then optional vocabularies, then names; the result never
// depends on registration order.
func TestKeywordTieBreaks(t *testing.T) {
	defs := []KeywordIntent{
		{SkillID: "music", IntentName: "play", Lang: "en-us", Required: []KeywordVocab{voc("play", "play")}},
		{SkillID: "music", IntentName: "play_radio", Lang: "en-us",
			Required: []KeywordVocab{voc("play", "play"), voc("radio", "radio")}},
		{SkillID: "alpha", IntentName: "play", Lang: "en-us", Required: []KeywordVocab{voc("play", "play")}},
		{SkillID: "zulu", IntentName: "play_music", Lang: "en-us", Required: []KeywordVocab{voc("play", "play")},
			Optional: []KeywordVocab{voc("music", "music")}},
		{SkillID: "yankee", IntentName: "play_music", Lang: "en-us", Required: []KeywordVocab{voc("play", "play"), voc("music", "music")}},
	}
	tests := []struct{ utterance, want string }{
		{"play the radio", "music:play_radio"},       // covers 2 of 3 words
		{"play", "alpha:play"},                       // all equal: skill name decides
		{"play some music", "yankee:play_music"},     // equal cover: two required beat one required and one optional
		{"play some music now", "yankee:play_music"}, // same again with an extra word
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 4, 0, 3, 1}} {
		e := newKeywordEngine()
		for _, i := range order {
			mustRegisterKeyword(t, e, defs[i])
		}
		for _, tc := range tests {
			r := e.Match(tc.utterance, "en-us", "")
			require.NotNil(t, r, tc.utterance)
			assert.Equal(t, tc.want, r.SkillID+":"+r.IntentName, "%q with order %v", tc.utterance, order)
		}
	}
	e := newKeywordEngine()
	mustRegisterKeyword(t, e, defs[3])
	mustRegisterKeyword(t, e, defs[0])
	r := e.Match("play music", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "zulu:play_music", r.SkillID+":"+r.IntentName, "the optional vocabulary covers more words")
}

// TestKeywordRegisterRejects: malformed definitions (DEF-05, REG-05) are
// rejected with a precise reason and index nothing.
func TestKeywordRegisterRejects(t *testing.T) {
	with := func(f func(*KeywordIntent)) KeywordIntent {
		d := weather()
		f(&d)
		return d
	}
	many := func(n int) []KeywordVocab {
		out := make([]KeywordVocab, n)
		for i := range out {
			out[i] = voc(fmt.Sprintf("v%d", i), fmt.Sprintf("word%d", i))
		}
		return out
	}
	tests := []struct {
		name string
		def  KeywordIntent
		want string
	}{
		{"DEF-05 no required and no one_of", with(func(d *KeywordIntent) { d.Required = nil }),
			"no required and no one_of vocabulary: nothing could ever match (DEF-05)"},
		{"DEF-05 one vocabulary under two roles", with(func(d *KeywordIntent) { d.Optional = append(d.Optional, voc("weather", "sky")) }),
			`optional[1]: vocabulary "weather" is under both required and optional (DEF-05)`},
		{"DEF-05 required and excluded", with(func(d *KeywordIntent) { d.Excluded = []KeywordVocab{voc("weather", "x")} }),
			`excluded[0]: vocabulary "weather" is under both required and excluded (DEF-05)`},
		{"DEF-05 one_of and optional", with(func(d *KeywordIntent) { d.OneOf = [][]KeywordVocab{{voc("when", "later")}} }),
			`one_of[0][0]: vocabulary "when" is under both optional and one_of (DEF-05)`},
		{"DEF-04 empty one_of group", with(func(d *KeywordIntent) { d.OneOf = [][]KeywordVocab{{voc("a", "a")}, {}} }),
			"one_of[1] is empty"},
		{"REG-05 reserved intent name", with(func(d *KeywordIntent) { d.IntentName = "Stop" }), `intent_name "Stop" is reserved (REG-05)`},
		{"REG-05 descriptor without samples", with(func(d *KeywordIntent) { d.Excluded = []KeywordVocab{voc("history")} }),
			`excluded[0] ("history"): samples missing or empty (REG-05)`},
		{"REG-05 descriptor with no sample expanding", with(func(d *KeywordIntent) {
			d.Optional = []KeywordVocab{voc("when", "[today]", "(now", "?!")}
		}), `optional[0] ("when"): no sample expands to a non-empty phrase (REG-05)`},
		{"GRM-06 vocabulary of slots only", with(func(d *KeywordIntent) { d.Required = []KeywordVocab{voc("weather", "{place} weather")} }),
			`required[0] ("weather"): no sample expands`},
		{"REG-05 merged descriptor with no sample expanding", with(func(d *KeywordIntent) {
			d.Required = append(d.Required, voc("weather", "[x]"))
		}), `required[1] ("weather"): no sample expands`},
		{"RES-01 vocabulary name", with(func(d *KeywordIntent) { d.Required[0].Name = "Weather Words" }),
			`required[0]: vocabulary name "Weather Words" is not [A-Za-z0-9_.-]+`},
		{"DEF-02 skill_id with colon", with(func(d *KeywordIntent) { d.SkillID = "a:b" }), `skill_id "a:b" contains ':' (DEF-02)`},
		{"REG-04 lang malformed", with(func(d *KeywordIntent) { d.Lang = "english" }), `language tag "english" is not a BCP-47 tag`},
		{"too many vocabularies", with(func(d *KeywordIntent) { d.Optional = many(MaxKeywordVocabs) }),
			"more than 64 distinct vocabularies"},
		{"too many one_of groups", with(func(d *KeywordIntent) {
			d.OneOf = make([][]KeywordVocab, MaxKeywordGroups+1)
		}), "one_of has 65 groups, limit is 64"},
		{"too many templates", with(func(d *KeywordIntent) { d.Required[0].Samples = make([]string, DefaultMaxKeywordTemplates) }),
			"definition has 10005 sample templates, limit is 10000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newKeywordEngine()
			w, err := e.Register(tc.def)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "registering keyword intent")
			assert.Nil(t, w)
			assert.Empty(t, e.Registrations(""), "nothing indexed")
		})
	}
}

func TestKeywordPhraseLimit(t *testing.T) {
	e := NewKeywordEngine(KeywordOptions{Logger: slog.New(slog.DiscardHandler), MaxPhrases: 3})
	_, err := e.Register(KeywordIntent{SkillID: "s", IntentName: "i", Lang: "en",
		Required: []KeywordVocab{voc("a", "(a|b|c)"), voc("b", "d")}})
	require.ErrorContains(t, err, "samples expand to more than 3 phrases")
}

// TestKeywordMergeAndWarnings: same-name descriptors in one role merge,
// bad samples are skipped with a warning naming the field, the rest are
// indexed (REG-05, GRM-06).
func TestKeywordMergeAndWarnings(t *testing.T) {
	e := newKeywordEngine()
	warns := mustRegisterKeyword(t, e, KeywordIntent{
		SkillID: "timer", IntentName: "start", Lang: "en-us",
		Required: []KeywordVocab{voc("timer", "timer", "{x} clock"), voc("timer", "count down", "(egg")},
		OneOf:    [][]KeywordVocab{{voc("start", "start", "<go>")}, {voc("start", "set")}},
	})
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	assert.ElementsMatch(t, []string{
		`required[0].samples[1]: phrase "{x} clock" skipped: has slot {x}; phrases are slot-free`,
		`required[1].samples[1]: phrase "(egg" skipped: line 1 col 1: '(' is never closed by ')'`,
		`one_of[0][0].samples[1]: phrase "<go>" skipped: line 1 col 1: vocabulary <go> is not defined (GRM-07)`,
	}, got)
	for _, u := range []string{"start the timer", "set a count down", "count down start"} {
		r := e.Match(u, "en-us", "")
		require.NotNil(t, r, "merged samples: %q", u)
		assert.Equal(t, "start", r.IntentName)
	}
	assert.Nil(t, e.Match("start the clock", "en-us", ""), "the skipped sample is not indexed")
	regs := e.Registrations("")
	require.Len(t, regs, 1)
	assert.Len(t, regs[0].Definition.Required, 2, "the definition is kept as registered")
}

// TestKeywordReplaceDeregisterEnable covers DEF-09, REG-04, REG-09, REG-10
// on the engine.
func TestKeywordReplaceDeregisterEnable(t *testing.T) {
	e := newKeywordEngine()
	mustRegisterKeyword(t, e, weather())
	require.Equal(t, 1, e.SetEnabled("", "weather", "current", "EN-us", false), "REG-04: lang case-insensitive")
	assert.Nil(t, e.Match("weather", "en-us", ""), "REG-10: disabled")

	d := weather()
	d.Required = []KeywordVocab{voc("sky", "sky")}
	mustRegisterKeyword(t, e, d)
	assert.Nil(t, e.Match("sky", "en-us", ""), "REG-04: replacing keeps the disabled state")
	assert.Equal(t, 1, e.SetEnabled("", "weather", "current", "", true))
	assert.Nil(t, e.Match("weather", "en-us", ""), "DEF-09: the old definition is gone")
	assert.NotNil(t, e.Match("sky", "en-us", ""))
	assert.Equal(t, 0, e.SetEnabled("", "weather", "nope", "", false), "unknown: no-op")

	de := d
	de.Lang = "de-DE"
	de.Required = []KeywordVocab{voc("sky", "himmel")}
	mustRegisterKeyword(t, e, de)
	assert.Len(t, e.Registrations(""), 2, "each language is its own definition (DEF-02)")
	assert.Equal(t, 1, e.Deregister("", "weather", "current", "de-de"))
	assert.NotNil(t, e.Match("sky", "en-us", ""), "other languages stay")
	mustRegisterKeyword(t, e, de)
	assert.Equal(t, 2, e.Deregister("", "weather", "current", ""), "REG-09: every language when lang is omitted")
	assert.Nil(t, e.Match("sky", "en-us", ""))
	assert.Equal(t, 0, e.Deregister("", "weather", "current", ""), "REG-09: deregistering the unregistered is a no-op")
	assert.Empty(t, e.Registrations(""))
}

// TestKeywordSessionScopes: REG-04 keys by session, REG-14 pools "default"
// with the session's own, and scoped removal touches one scope only.
func TestKeywordSessionScopes(t *testing.T) {
	e := newKeywordEngine()
	mustRegisterKeyword(t, e, weather())
	kitchen := weather()
	kitchen.SessionID = "kitchen"
	kitchen.IntentName = "oven"
	kitchen.Required = []KeywordVocab{voc("oven", "oven")}
	mustRegisterKeyword(t, e, kitchen)
	same := weather()
	same.SessionID = "kitchen"
	mustRegisterKeyword(t, e, same)

	assert.Nil(t, e.Match("oven", "en-us", ""), "REG-14: session-scoped intents route only to that session")
	assert.NotNil(t, e.Match("oven", "en-us", "kitchen"))
	r := e.Match("weather", "en-us", "kitchen")
	require.NotNil(t, r, "REG-14: the default scope is in every pool")
	assert.Len(t, e.Registrations("kitchen"), 3, "REG-12: effective pool")
	assert.Len(t, e.Registrations("hall"), 1)

	assert.Equal(t, 1, e.RemoveSkill("", "weather"), "REG-09: default scope only")
	assert.NotNil(t, e.Match("weather", "en-us", "kitchen"), "REG-14: the session's own entry stays")
	assert.Nil(t, e.Match("weather", "en-us", "hall"))
	assert.Equal(t, 2, e.RemoveSkill("kitchen", "weather"))
	assert.Empty(t, e.Registrations(""))
}

func TestKeywordLongUtterance(t *testing.T) {
	e := NewKeywordEngine(KeywordOptions{Logger: slog.New(slog.DiscardHandler), MaxUtteranceWords: 4})
	mustRegisterKeyword(t, e, weather())
	assert.NotNil(t, e.Match("the weather is nice", "en-us", ""))
	assert.Nil(t, e.Match("the weather is nice today", "en-us", ""), "over the word limit")
	assert.Nil(t, e.Match("", "en-us", ""))
	assert.Nil(t, e.Match("weather", "fr-fr", ""), "other language")
}

// TestKeywordConcurrent runs matches against registration changes; -race
// checks the locking.
func TestKeywordConcurrent(t *testing.T) {
	e := newKeywordEngine()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				d := weather()
				d.IntentName = fmt.Sprintf("i%d_%d", w, i%5)
				_, err := e.Register(d)
				assert.NoError(t, err)
				e.SetEnabled("", "weather", d.IntentName, "", i%2 == 0)
				if i%7 == 0 {
					e.Deregister("", "weather", d.IntentName, "")
				}
				e.Match("whats the weather today", "en-us", "")
				e.Registrations("")
			}
		}()
	}
	wg.Wait()
	for _, r := range e.Registrations("") {
		assert.True(t, strings.HasPrefix(r.IntentName, "i"))
	}
}

// TestKeywordPayload: REG-05 payloads are read strictly; a wrong type names
// the field.
func TestKeywordPayload(t *testing.T) {
	good := map[string]any{"skill_id": "s", "intent_name": "i", "lang": "EN-us",
		"required":         []any{map[string]any{"name": "a", "samples": []any{"x"}, "extra": 1}},
		"one_of":           []any{[]any{map[string]any{"name": "b", "samples": []any{"y"}}}, []any{}},
		"requires_context": []any{"k"}}
	def, err := KeywordIntentFromPayload("sess", good)
	require.NoError(t, err)
	assert.Equal(t, KeywordIntent{SessionID: "sess", SkillID: "s", IntentName: "i", Lang: "en-us",
		Required: []KeywordVocab{voc("a", "x")},
		OneOf:    [][]KeywordVocab{{voc("b", "y")}, {}}}, def, "absent lists are empty; unknown fields ignored")

	tests := []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"skill_id missing", func(d map[string]any) { delete(d, "skill_id") }, "skill_id missing"},
		{"lang missing", func(d map[string]any) { delete(d, "lang") }, "lang missing"},
		{"required not a list", func(d map[string]any) { d["required"] = "x" }, "required: want array of descriptors"},
		{"descriptor not an object", func(d map[string]any) { d["optional"] = []any{"x"} }, "optional[0]: want descriptor object {name, samples}"},
		{"name missing", func(d map[string]any) { d["excluded"] = []any{map[string]any{"samples": []any{"x"}}} }, "excluded[0].name: want string"},
		{"sample not a string", func(d map[string]any) {
			d["one_of"] = []any{[]any{map[string]any{"name": "b", "samples": []any{"y", 3.0}}}}
		}, "one_of[0][0].samples[1]: want string"},
		{"one_of not nested", func(d map[string]any) { d["one_of"] = []any{map[string]any{}} }, "one_of[0]: want array of descriptors"},
		{"one_of not a list", func(d map[string]any) { d["one_of"] = 1.0 }, "one_of: want array of arrays of descriptors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := map[string]any{"skill_id": "s", "intent_name": "i", "lang": "en-us",
				"required": []any{map[string]any{"name": "a", "samples": []any{"x"}}}}
			tc.edit(d)
			_, err := KeywordIntentFromPayload("", d)
			require.EqualError(t, err, tc.want)
		})
	}
}

// TestKeywordSharedVocabularies: intents declaring the same vocabulary share
// one copy in the index; removing one intent leaves the others matching,
// and an intent with only one_of groups is found through any member of its
// first group.
func TestKeywordSharedVocabularies(t *testing.T) {
	e := newKeywordEngine()
	on := KeywordIntent{SkillID: "lights", IntentName: "on", Lang: "en-us",
		Required: []KeywordVocab{voc("light", "light[s]")}, OneOf: [][]KeywordVocab{{voc("on", "on")}}}
	off := KeywordIntent{SkillID: "lights", IntentName: "off", Lang: "en-us",
		Required: []KeywordVocab{voc("light", "light[s]")}, OneOf: [][]KeywordVocab{{voc("off", "off")}}}
	help := KeywordIntent{SkillID: "help", IntentName: "help", Lang: "en-us",
		OneOf: [][]KeywordVocab{{voc("help", "help"), voc("what", "what can you do")}, {voc("me", "me", "you")}}}
	mustRegisterKeyword(t, e, on)
	mustRegisterKeyword(t, e, off)
	mustRegisterKeyword(t, e, help)

	r := e.Match("lights off", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "off", r.IntentName)
	r = e.Match("so what can you do", "en-us", "")
	require.NotNil(t, r, "DEF-04: one_of only, found through the second member")
	assert.Equal(t, map[string]string{"what": "what can you do", "me": "you"}, r.Slots)
	assert.Nil(t, e.Match("help", "en-us", ""), "DEF-04: the second group needs a member too")

	e.Deregister("", "lights", "off", "")
	r = e.Match("lights on", "en-us", "")
	require.NotNil(t, r, "the shared vocabulary stays while an intent uses it")
	assert.Equal(t, "on", r.IntentName)
	assert.Nil(t, e.Match("lights off", "en-us", ""))
	e.Deregister("", "lights", "on", "")
	assert.Nil(t, e.Match("lights on", "en-us", ""))
	e.RemoveSkill("", "help")
	assert.Empty(t, e.scopes, "nothing left behind in the index")
}
