package intent

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skipDefs are the intents the skip-word tests run against.
func skipDefs() []TemplateIntent {
	return []TemplateIntent{
		{SkillID: "lights", IntentName: "on", Lang: "en-us",
			Samples:   []string{"turn on [the] {device}", "switch on the lights"},
			Blacklist: []string{"alarm"},
			Entities:  map[string][]string{"device": {"kitchen light", "lamp"}}},
		{SkillID: "lights", IntentName: "off", Lang: "en-us", Samples: []string{"turn off [the] {device}"}},
		{SkillID: "music", IntentName: "play", Lang: "en-us", Samples: []string{"play {song}", "play music"}},
		{SkillID: "timer", IntentName: "start", Lang: "en-us",
			Samples: []string{"set [a] timer for {duration:length}"}, RequiredSlots: []string{"length"},
			SlotBlacklist: map[string][]string{"length": {"ever"}}},
		{SkillID: "notes", IntentName: "take", Lang: "en-us", Samples: []string{"note for {text}"}},
		{SkillID: "clock", IntentName: "time", Lang: "en-us", Samples: []string{"what time is it"}},
		{SkillID: "greet", IntentName: "morning", Lang: "en-us", Samples: []string{"good morning"}},
		{SkillID: "radio", IntentName: "tune", Lang: "en-us", Samples: []string{"play {station} radio"},
			Entities: map[string][]string{"station": {"jazz"}}},
		{SkillID: "weather", IntentName: "forecast", Lang: "en-us", Samples: []string{"whats the weather (for|on) {day}"},
			Entities: map[string][]string{"day": {"tomorrow", "friday"}}},
	}
}

func newSkipEngine(t *testing.T) *TemplateEngine {
	t.Helper()
	e := newTestEngine()
	for _, d := range skipDefs() {
		mustRegister(t, e, d)
	}
	return e
}

// TestSkipWords: the engine, not the template, handles skip words: filler
// phrases of the language's lexicon ("please", "can you", "um", "i want
// to", "hey jibo") are skipped wherever they occur whole, and its optional
// words ("the", "my") may be missing or extra. Each costs a little: the
// parse scores below the same request said as the template has it, and
// Why names what was skipped or missing.
func TestSkipWords(t *testing.T) {
	e := newSkipEngine(t)
	tests := []struct {
		utterance string
		clean     string // the same request said as the template has it
		intent    string
		slots     map[string]string
		why       []string // substrings of Why
	}{
		{"please switch on the lights", "switch on the lights", "lights:on", map[string]string{}, []string{`skipped "please"`}},
		{"switch on the lights please", "switch on the lights", "lights:on", map[string]string{}, []string{`skipped "please"`}},
		{"can you switch on the lights", "switch on the lights", "lights:on", map[string]string{}, []string{`skipped "can you"`}},
		{"switch on um the lights", "switch on the lights", "lights:on", map[string]string{}, []string{`skipped "um"`}},
		{"switch on lights", "switch on the lights", "lights:on", map[string]string{}, []string{`missing "the"`, "every word literal"}},
		{"could you please switch on lights for me", "switch on the lights", "lights:on", map[string]string{},
			[]string{`skipped "could you please"`, `skipped "for me"`, `missing "the"`}},
		{"please turn on the lamp", "turn on the lamp", "lights:on", map[string]string{"device": "lamp"},
			[]string{`skipped "please"`, `device="lamp" (entity value)`}},
		{"so um turn on the kitchen light", "turn on the kitchen light", "lights:on", map[string]string{"device": "kitchen light"},
			[]string{`skipped "so um"`}},
		{"hey jibo what time is it", "what time is it", "clock:time", map[string]string{}, []string{`skipped "hey jibo"`}},
		{"what time is it please", "what time is it", "clock:time", map[string]string{}, nil},
		{"i want to play music", "play music", "music:play", map[string]string{}, []string{`skipped "i want to"`}},
		{"please play the music", "play music", "music:play", map[string]string{}, []string{`skipped "please"`, `skipped "the"`}},
		{"please play yesterday", "play yesterday", "music:play", map[string]string{"song": "yesterday"}, []string{`song="yesterday" (open text)`}},
		{"please set a timer for ten minutes", "set a timer for ten minutes", "timer:start", map[string]string{"length": "ten minutes"}, nil},
		// Words that are fillers nowhere stay in free text: a song's
		// title ends in "now".
		{"please play dont stop me now", "play dont stop me now", "music:play", map[string]string{"song": "dont stop me now"},
			[]string{`skipped "please"`}},
		// Free text ends where the fillers after it begin: "ten minutes", not
		// "ten minutes please".
		{"set a timer for ten minutes please", "set a timer for ten minutes", "timer:start", map[string]string{"length": "ten minutes"},
			[]string{`skipped "please"`}},
		{"note for buy milk please", "note for buy milk", "notes:take", map[string]string{"text": "buy milk"}, []string{`skipped "please"`}},
		{"please play jazz radio", "play jazz radio", "radio:tune", map[string]string{"station": "jazz"}, nil},
		// A choice with an optional word may go unsaid as that word may:
		// "(for|on) {day}" reads "for {day}" too.
		{"whats the weather tomorrow", "whats the weather for tomorrow", "weather:forecast", map[string]string{"day": "tomorrow"},
			[]string{`missing "for"`}},
	}
	for _, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			clean := e.Match(tc.clean, "en-us", "")
			require.NotNil(t, clean, "the clean utterance matches as said")
			r := e.Match(tc.utterance, "en-us", "")
			require.NotNil(t, r)
			assert.Equal(t, tc.intent, r.SkillID+":"+r.IntentName)
			assert.Equal(t, clean.SkillID+":"+clean.IntentName, r.SkillID+":"+r.IntentName)
			assert.Equal(t, tc.slots, r.Slots)
			assert.Greater(t, r.Confidence, 0.0)
			assert.Less(t, r.Confidence, clean.Confidence, "below the template said as written")
			assert.Positive(t, r.Rank.Compare(clean.Rank), "ranked below it")
			for _, w := range tc.why {
				assert.Contains(t, r.Why, w)
			}
		})
	}
}

// TestSkipWordsNeverChangeMeaning: what skipping must not match. Only words
// of the lexicon may be skipped or missing, so a different verb, an extra
// or a missing content word, or a negation never matches. Decision: a
// negation is never a filler; "dont turn on the light" is not "turn on the
// light", and no intent matches it. Free text starts where the words before
// it end ("play just the way you are" is the song "just the way you are"),
// and a word that introduces free text must be said ("note for {text}" is
// not "note to self").
func TestSkipWordsNeverChangeMeaning(t *testing.T) {
	e := newSkipEngine(t)
	for _, u := range []string{
		"dont switch on the lights",            // negation
		"do not switch on the lights",          // negation, two words
		"please never switch on the lights",    // negation among fillers
		"can you not switch on the lights",     // negation inside a filler phrase's reach
		"please switch off the lights",         // different verb particle
		"please flip on the lights",            // different verb
		"switch on the lights in the kitchen",  // extra content words
		"please switch on the other lights",    // one extra content word
		"please switch on",                     // missing content word
		"lights",                               // most of the template missing
		"the lights",                           // most of the template missing
		"please",                               // only a filler
		"um the",                               // only lexicon words
		"please turn on the alarm",             // RES-06: blacklist suppresses these too
		"good morning everyone",                // extra content word after the template
		"what time is it not",                  // trailing negation
		"please set a timer",                   // DEF-08: required slot unbound
		"set the alarm for seven",              // a different noun where the template has "timer"
		"could you please tell me the weather", // nothing like any template
		"note to self",                         // "for" introduces the free text
	} {
		t.Run(u, func(t *testing.T) {
			r := e.Match(u, "en-us", "")
			assert.Nil(t, r, "got %+v", r)
		})
	}
	r := e.Match("play just the way you are", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, map[string]string{"song": "just the way you are"}, r.Slots, "a filler inside free text is part of it")
}

// TestSkipWordsOff: an empty lexicon map turns skipping off; a language
// without a lexicon has none.
func TestSkipWordsOff(t *testing.T) {
	e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), Lexicons: map[string]*Lexicon{}})
	for _, d := range skipDefs() {
		mustRegister(t, e, d)
	}
	assert.NotNil(t, e.Match("switch on the lights", "en-us", ""))
	assert.Nil(t, e.Match("please switch on the lights", "en-us", ""))
	assert.Nil(t, e.Match("switch on lights", "en-us", ""))

	e = newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "fr-fr", Samples: []string{"allume la lumière"}})
	assert.Nil(t, e.Match("allume la lumière please", "fr-fr", ""), "no lexicon for fr")
}

// TestSkipWordsCustomLexicon: a caller's lexicon replaces the built-in
// ones, keyed by primary language subtag.
func TestSkipWordsCustomLexicon(t *testing.T) {
	lex, err := NewLexicon([]string{"s'il (te|vous) plaît"}, []string{"la", "le"})
	require.NoError(t, err)
	e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), Lexicons: map[string]*Lexicon{"fr": lex}})
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "fr-fr", Samples: []string{"allume la lumière"}})
	r := e.Match("allume lumière s'il vous plaît", "fr-FR", "")
	require.NotNil(t, r)
	assert.Contains(t, r.Why, `skipped "sil vous plaît"`)
	assert.Contains(t, r.Why, `missing "la"`)
}

// TestSkipWordsSessionAndState: skipping sees the same pool as everything
// else (REG-14) and skips disabled intents (REG-10).
func TestSkipWordsSessionAndState(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SessionID: "kitchen", SkillID: "oven", IntentName: "on", Lang: "en-us",
		Samples: []string{"start the oven"}})
	assert.Nil(t, e.Match("please start the oven", "en-us", ""))
	assert.NotNil(t, e.Match("please start the oven", "en-us", "kitchen"))
	e.SetEnabled("kitchen", "oven", "on", "", false)
	assert.Nil(t, e.Match("please start the oven", "en-us", "kitchen"))
}

// TestReregisterFollowsIndex: the index follows registration changes.
func TestReregisterFollowsIndex(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "en-us", Samples: []string{"open the door", "open {thing} now"}})
	require.NotNil(t, e.Match("please open the door", "en-us", ""))
	require.NotNil(t, e.Match("please open the gate now", "en-us", ""))
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "en-us", Samples: []string{"close the door"}})
	assert.Nil(t, e.Match("please open the door", "en-us", ""))
	assert.Nil(t, e.Match("please open the gate now", "en-us", ""))
	assert.NotNil(t, e.Match("please close the door", "en-us", ""))
	e.RemoveSkill("", "s")
	assert.Nil(t, e.Match("please close the door", "en-us", ""))
	assert.Empty(t, e.scopes)
}

func TestBuiltinLexicons(t *testing.T) {
	lex, err := BuiltinLexicons()
	require.NoError(t, err)
	require.Contains(t, lex, "en")
	require.Contains(t, lex, "de")
	en := lex["en"]
	for _, f := range []string{"please", "um", "can you", "could you please", "i want to", "hey jibo", "for me"} {
		assert.Contains(t, en.Fillers(), f)
	}
	assert.Subset(t, en.Optional(), []string{"a", "an", "the", "my", "to"})
	negations := map[string][]string{
		"en": {"not", "no", "dont", "never", "nothing", "none", "cant", "wont", "stop", "cancel"},
		"de": {"nicht", "kein", "keine", "nie", "niemals", "nein", "stopp"},
	}
	for lang, words := range negations {
		l := lex[lang]
		for _, phrase := range append(l.Fillers(), l.Optional()...) {
			for _, w := range strings.Fields(phrase) {
				assert.NotContains(t, words, w, "%s lexicon phrase %q: a negation or a command is never a filler", lang, phrase)
			}
		}
	}
	// Function words are no evidence for a free-text parse, so neither a
	// negation nor a particle that carries the request may be one.
	assert.Subset(t, en.Function(), []string{"in", "is", "what", "you", "and"})
	particles := map[string][]string{"en": {"on", "off", "up", "down", "out", "yes"}, "de": {"an", "aus", "auf", "zu", "ja"}}
	for lang, l := range lex {
		require.NotEmpty(t, l.Function(), lang)
		for _, w := range append(negations[lang], particles[lang]...) {
			assert.NotContains(t, l.Function(), w, "%s: %q is never a function word", lang, w)
		}
	}
}

// TestLexiconIsContent: a content word is outside the function and
// optional words, and outside every filler phrase said whole; "want" is
// filler only inside "i want to".
func TestLexiconIsContent(t *testing.T) {
	lex, err := NewLexiconWords(LexiconWords{Fillers: []string{"i want to", "please"}, Optional: []string{"the"}, Function: []string{"in", "i"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"i", "in"}, lex.Function())
	content := func(u string) []bool {
		words := strings.Fields(u)
		out := make([]bool, len(words))
		for j := range words {
			out[j] = lex.isContent(words, j)
		}
		return out
	}
	assert.Equal(t, []bool{false, false, false, true, false, false, true}, content("i want to dance in the rain"))
	assert.Equal(t, []bool{false, true, true, false}, content("i want music please"))
	var none *Lexicon
	assert.True(t, none.isContent([]string{"the"}, 0), "without a lexicon every word is content")
}

func TestNewLexiconRejects(t *testing.T) {
	tests := []struct {
		name              string
		fillers, optional []string
		want              string
	}{
		{"slot", []string{"please {x}"}, nil, "fillers:1:8: lexicon entries are slot-free"},
		{"malformed", []string{"ok", "(can|could you"}, nil, "fillers:2:1: '(' is never closed"},
		{"optional phrase", nil, []string{"the", "of the"}, `optional:2:1: optional entry "of the" is not one word`},
		{"no words", []string{"?!"}, nil, `entry "?!" has no words after normalisation`},
		{"long phrase", []string{"a b c d e f g h i"}, nil, "has 9 words, limit is 8"},
		{"empty group", nil, []string{"()"}, "optional:1:1"},
		{"function phrase", nil, nil, `function:2:1: function entry "in the" is not one word`},
		{"function slot", nil, nil, "function:1:1: lexicon entries are slot-free"},
	}
	function := map[string][]string{"function phrase": {"is", "in [the]"}, "function slot": {"{x}"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLexiconWords(LexiconWords{Fillers: tc.fillers, Optional: tc.optional, Function: function[tc.name]})
			require.Error(t, err)
			assert.Nil(t, l)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "building lexicon")
		})
	}
	many := make([]string, MaxLexiconPhrases+1)
	for i := range many {
		many[i] = "w" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	_, err := NewLexicon(many, nil)
	assert.ErrorContains(t, err, "more than 2000 phrases")
}

// TestExplain: near misses name the intents that came closest and why
// each fell short; the runner-up of a match says why it lost.
func TestExplain(t *testing.T) {
	e := newSkipEngine(t)
	e.SetEnabled("", "greet", "morning", "", false)
	tests := []struct {
		utterance string
		match     string // "" = none
		near      string // skill:intent of the first near miss
		sample    string
		reason    []string
	}{
		{"please switch off the lights", "", "lights:on", "switch on the lights",
			[]string{`unexplained "off"`, `template word "on" not said`}},
		{"dont switch on the lights", "", "lights:on", "switch on the lights", []string{`unexplained "dont"`}},
		{"good morning", "", "greet:morning", "good morning", []string{"disabled (REG-10)"}},
		{"set a timer", "", "timer:start", "set [a] timer for {duration:length}",
			[]string{"slot {length} has no words", "required slot {length} unbound (DEF-08)"}},
		{"set a timer for ever", "", "timer:start", "set [a] timer for {duration:length}",
			[]string{"required slot {length} unbound (DEF-08)"}},
		{"lights", "", "lights:on", "switch on the lights", []string{`template word "switch" not said`}},
		{"turn on the lamp", "lights:on", "lights:off", "turn off [the] {device}",
			[]string{`template word "off" not said`}},
		{"play jazz radio", "radio:tune", "music:play", "play {song}", []string{"matches too, ranked below radio:tune",
			"literal words beat a slot that takes them"}},
		{"please play music", "music:play", "radio:tune", "play {station} radio", []string{`template word "radio" not said`}},
	}
	for _, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			ex := e.Explain(tc.utterance, "en-us", "", 5)
			assert.Equal(t, Normalize(tc.utterance), ex.Utterance)
			if tc.match == "" {
				assert.Nil(t, ex.Match)
			} else {
				require.NotNil(t, ex.Match)
				assert.Equal(t, tc.match, ex.Match.SkillID+":"+ex.Match.IntentName)
				assert.Equal(t, e.Match(tc.utterance, "en-us", ""), ex.Match, "Explain matches as Match does")
			}
			require.NotEmpty(t, ex.NearMisses)
			assert.LessOrEqual(t, len(ex.NearMisses), 5)
			nm := ex.NearMisses[0]
			assert.Equal(t, tc.near, nm.SkillID+":"+nm.IntentName)
			assert.Equal(t, tc.sample, nm.Sample)
			for _, r := range tc.reason {
				assert.Contains(t, nm.Reason, r)
			}
			for i, n := range ex.NearMisses {
				assert.GreaterOrEqual(t, n.Score, 0.0)
				assert.LessOrEqual(t, n.Score, 1.0)
				assert.NotEmpty(t, n.Reason)
				if i > 0 {
					assert.LessOrEqual(t, ex.NearMisses[i-1].Rank.Compare(n.Rank), 0, "best first")
				}
				if ex.Match != nil {
					assert.NotEqual(t, ex.Match.SkillID+":"+ex.Match.IntentName, n.SkillID+":"+n.IntentName)
				}
			}
		})
	}
	ex := e.Explain("turn on the alarm", "en-us", "", 5)
	assert.Nil(t, ex.Match, "RES-06")
	var on *NearMiss
	for i := range ex.NearMisses {
		if ex.NearMisses[i].SkillID == "lights" && ex.NearMisses[i].IntentName == "on" {
			on = &ex.NearMisses[i]
		}
	}
	require.NotNil(t, on)
	assert.Contains(t, on.Reason, "suppressed by its blacklist (RES-06)")

	ex = e.Explain("play jazz radio", "en-us", "", 5)
	require.NotNil(t, ex.RunnerUp)
	assert.Equal(t, "music:play", ex.RunnerUp.SkillID+":"+ex.RunnerUp.IntentName)
	assert.Equal(t, "radio:tune beat music:play: 0 words of free slot text against 2: literal words beat a slot that takes them", ex.Won)
}

func TestExplainLimits(t *testing.T) {
	e := newSkipEngine(t)
	all := e.Explain("play the lights on time", "en-us", "", MaxNearMisses).NearMisses
	require.Greater(t, len(all), DefaultNearMisses)
	assert.Equal(t, all[:1], e.Explain("play the lights on time", "en-us", "", 1).NearMisses)
	assert.Equal(t, all[:DefaultNearMisses], e.Explain("play the lights on time", "en-us", "", 0).NearMisses)
	assert.Empty(t, e.Explain("zebra quokka", "en-us", "", 5).NearMisses, "nothing shares a word")
	assert.Equal(t, Explanation{}, e.Explain(" ?! ", "en-us", "", 5))
	assert.Equal(t, Explanation{Utterance: "hello"}, e.Explain("hello", "xx", "", 5), "no intents in that language")
}

// TestAlignSlots: a classifier that knows only which intent was meant gets
// the slots from the intent's templates under relaxed rules.
func TestAlignSlots(t *testing.T) {
	e := newSkipEngine(t)
	r := e.AlignSlots("", "lights", "on", "en-us", "could you make the kitchen light come on")
	require.NotNil(t, r)
	assert.Equal(t, map[string]string{"device": "kitchen light"}, r.Slots)
	assert.Positive(t, r.Rank.Lost, "words the templates do not place are counted")
	r = e.AlignSlots("", "timer", "start", "en-us", "timer ten minutes")
	require.NotNil(t, r)
	assert.Equal(t, map[string]string{"length": "ten minutes"}, r.Slots)
	r = e.AlignSlots("", "timer", "start", "en-us", "timer please")
	require.NotNil(t, r)
	assert.Empty(t, r.Slots, "a duration its parser does not read is no value")
	assert.Nil(t, e.AlignSlots("", "lights", "nope", "en-us", "turn on the lamp"), "unknown intent")
	assert.Nil(t, e.AlignSlots("", "clock", "time", "en-us", "zebra quokka"), "no literal word in common")
}
