package intent

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tolerantDefs are the intents the tolerant-matching tests run against.
func tolerantDefs() []TemplateIntent {
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
		{SkillID: "clock", IntentName: "time", Lang: "en-us", Samples: []string{"what time is it"}},
		{SkillID: "greet", IntentName: "morning", Lang: "en-us", Samples: []string{"good morning"}},
		{SkillID: "radio", IntentName: "tune", Lang: "en-us", Samples: []string{"play {station} radio"},
			Entities: map[string][]string{"station": {"jazz"}}},
	}
}

func newTolerantEngine(t *testing.T) *TemplateEngine {
	t.Helper()
	e := newTestEngine()
	for _, d := range tolerantDefs() {
		mustRegister(t, e, d)
	}
	return e
}

// TestMatchTolerant: an utterance with filler words added, or with an
// optional word of the template missing or extra, still matches when
// nothing matches as said, at a confidence strictly below what the same
// sample scores said as written, and Why names what was skipped or missing.
func TestMatchTolerant(t *testing.T) {
	e := newTolerantEngine(t)
	tests := []struct {
		utterance string
		clean     string // the same request said as the sample has it
		intent    string
		slots     map[string]string
		why       []string // substrings of Why
	}{
		{"please switch on the lights", "switch on the lights", "lights:on", map[string]string{},
			[]string{`sample "switch on the lights": tolerant match`, `skipped "please"`}},
		{"switch on the lights please", "switch on the lights", "lights:on", map[string]string{}, []string{`skipped "please"`}},
		{"can you switch on the lights", "switch on the lights", "lights:on", map[string]string{}, []string{`skipped "can you"`}},
		{"switch on um the lights", "switch on the lights", "lights:on", map[string]string{}, []string{`skipped "um"`}},
		{"switch on lights", "switch on the lights", "lights:on", map[string]string{}, []string{`missing "the"`, "3 of 3 words literal"}},
		{"could you please switch on lights for me", "switch on the lights", "lights:on", map[string]string{},
			[]string{`skipped "could you please", "for me"`, `missing "the"`}},
		{"please turn on the lamp", "turn on the lamp", "lights:on", map[string]string{"device": "lamp"},
			[]string{`skipped "please"`, `device="lamp" (entity value)`}},
		{"so um turn on the kitchen light", "turn on the kitchen light", "lights:on", map[string]string{"device": "kitchen light"},
			[]string{`skipped "so um"`}},
		{"hey jibo what time is it", "what time is it", "clock:time", map[string]string{}, []string{`skipped "hey jibo"`}},
		{"what time is it please", "what time is it", "clock:time", map[string]string{}, nil},
		{"i want to play music", "play music", "music:play", map[string]string{}, []string{`skipped "i want to"`}},
		{"please play the music", "play music", "music:play", map[string]string{}, []string{`skipped "please", "the"`}},
		{"please play yesterday", "play yesterday", "music:play", map[string]string{"song": "yesterday"}, []string{`song="yesterday" (open text)`}},
		{"please set a timer for ten minutes", "set a timer for ten minutes", "timer:start", map[string]string{"length": "ten minutes"}, nil},
		{"please play jazz radio", "play jazz radio", "radio:tune", map[string]string{"station": "jazz"}, nil},
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
			assert.Less(t, r.Confidence, clean.Confidence, "strictly below the sample said as written")
			assert.Contains(t, r.Why, "tolerant match")
			for _, w := range tc.why {
				assert.Contains(t, r.Why, w)
			}
		})
	}
}

// TestMatchTolerantNearMisses: what tolerance must not match. Only words of
// the lexicon may be skipped or missing, so a different verb, an extra or a
// missing content word, or a negation never matches. Decision: a negation
// is never a filler; "dont turn on the light" is not "turn on the light",
// and no intent matches it.
func TestMatchTolerantNearMisses(t *testing.T) {
	e := newTolerantEngine(t)
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
		"lights",                               // most of the sample missing
		"the lights",                           // most of the sample missing
		"please",                               // only a filler
		"um the",                               // only lexicon words
		"please turn on the alarm",             // RES-06: blacklist suppresses tolerant matches too
		"good morning everyone",                // extra content word after the sample
		"what time is it not",                  // trailing negation
		"please set a timer",                   // DEF-08: required slot unbound
		"set the alarm for seven",              // a different noun where the sample has "timer"
		"could you please tell me the weather", // nothing like any sample
	} {
		t.Run(u, func(t *testing.T) {
			r := e.Match(u, "en-us", "")
			assert.Nil(t, r, "got %+v", r)
		})
	}
}

// TestMatchTolerantOnlyAsFallback: tolerance never changes a strict match.
// An open slot takes filler words said next to it, as it always has; the
// exact sample beats a tolerant one.
func TestMatchTolerantOnlyAsFallback(t *testing.T) {
	e := newTolerantEngine(t)
	r := e.Match("set a timer for ten minutes please", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, map[string]string{"length": "ten minutes please"}, r.Slots, "strict match: the slot is open text")
	assert.NotContains(t, r.Why, "tolerant")

	r = e.Match("play music", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, 1.0, r.Confidence)

	r = e.Match("please play music", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "play music", r.Sample, "the slot-free sample beats play {song} with song=music")
}

// TestMatchTolerantOff: an empty lexicon map turns tolerance off; a
// language without a lexicon has none.
func TestMatchTolerantOff(t *testing.T) {
	e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), Lexicons: map[string]*Lexicon{}})
	for _, d := range tolerantDefs() {
		mustRegister(t, e, d)
	}
	assert.NotNil(t, e.Match("switch on the lights", "en-us", ""))
	assert.Nil(t, e.Match("please switch on the lights", "en-us", ""))

	e = newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "fr-fr", Samples: []string{"allume la lumière"}})
	assert.Nil(t, e.Match("allume la lumière please", "fr-fr", ""), "no lexicon for fr")
}

// TestMatchTolerantCustomLexicon: a caller's lexicon replaces the built-in
// ones, keyed by primary language subtag.
func TestMatchTolerantCustomLexicon(t *testing.T) {
	lex, err := NewLexicon([]string{"s'il (te|vous) plaît"}, []string{"la", "le"})
	require.NoError(t, err)
	e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), Lexicons: map[string]*Lexicon{"fr": lex}})
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "fr-fr", Samples: []string{"allume la lumière"}})
	r := e.Match("allume lumière s'il vous plaît", "fr-FR", "")
	require.NotNil(t, r)
	assert.Contains(t, r.Why, `skipped "sil vous plaît"`)
	assert.Contains(t, r.Why, `missing "la"`)
}

// TestMatchTolerantSessionAndState: tolerant matches see the same pool as
// strict ones (REG-14) and skip disabled intents (REG-10).
func TestMatchTolerantSessionAndState(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SessionID: "kitchen", SkillID: "oven", IntentName: "on", Lang: "en-us",
		Samples: []string{"start the oven"}})
	assert.Nil(t, e.Match("please start the oven", "en-us", ""))
	assert.NotNil(t, e.Match("please start the oven", "en-us", "kitchen"))
	e.SetEnabled("kitchen", "oven", "on", "", false)
	assert.Nil(t, e.Match("please start the oven", "en-us", "kitchen"))
}

// TestMatchTolerantReregister: the loose index follows registration
// changes like the strict one.
func TestMatchTolerantReregister(t *testing.T) {
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
	// Function words are no evidence for a guess (Plausible), so neither
	// a negation nor a particle that carries the request may be one.
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

// TestLexiconSkippable: a filler phrase counts only where all its words
// occur together.
func TestLexiconSkippable(t *testing.T) {
	lex, err := NewLexicon([]string{"can you", "please"}, []string{"the"})
	require.NoError(t, err)
	words := strings.Fields("can you can the please you")
	assert.Equal(t, []bool{true, true, false, true, true, false}, lex.skippable(words, nil))
}

// TestExplain: near misses name the intents that came closest and why
// each fell short.
func TestExplain(t *testing.T) {
	e := newTolerantEngine(t)
	e.SetEnabled("", "greet", "morning", "", false)
	tests := []struct {
		utterance string
		match     string // "" = none
		near      string // skill:intent of the first near miss
		sample    string
		reason    []string
	}{
		{"please switch off the lights", "", "lights:on", "switch on the lights",
			[]string{`words not in the sample: "off"`, `sample words not said: "on"`}},
		{"dont switch on the lights", "", "lights:on", "switch on the lights", []string{`words not in the sample: "dont"`}},
		{"turn on the alarm", "", "lights:on", "turn on the {device}", []string{`suppressed by its blacklist phrase "alarm" (RES-06)`}},
		{"good morning", "", "greet:morning", "good morning", []string{"disabled (REG-10)"}},
		{"set a timer", "", "timer:start", "set a timer for {length}",
			[]string{"slot {length} has no words and is required (DEF-08)"}},
		{"set a timer for ever", "", "timer:start", "set a timer for {length}",
			[]string{`slot {length}: "ever" is blacklisted for it (RES-06) and the slot is required (DEF-08)`}},
		{"lights", "", "lights:on", "switch on the lights", []string{`sample words not said: "switch", "on"`}},
		{"turn on the lamp", "lights:on", "lights:off", "turn off the {device}",
			[]string{`words not in the sample: "on"`, `sample words not said: "off"`}},
		{"play jazz radio", "radio:tune", "music:play", "play {song}", []string{"matches too, at 0.67, but radio:tune scored 0.95"}},
		{"please play music", "music:play", "radio:tune", "play {station} radio", []string{`sample words not said: "radio"`}},
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
					assert.LessOrEqual(t, n.Score, ex.NearMisses[i-1].Score, "best first")
				}
				if ex.Match != nil {
					assert.NotEqual(t, ex.Match.SkillID+":"+ex.Match.IntentName, n.SkillID+":"+n.IntentName)
				}
			}
		})
	}
}

func TestExplainLimits(t *testing.T) {
	e := newTolerantEngine(t)
	all := e.Explain("play the lights on time", "en-us", "", MaxNearMisses).NearMisses
	require.Greater(t, len(all), DefaultNearMisses)
	assert.Equal(t, all[:1], e.Explain("play the lights on time", "en-us", "", 1).NearMisses)
	assert.Equal(t, all[:DefaultNearMisses], e.Explain("play the lights on time", "en-us", "", 0).NearMisses)
	assert.Empty(t, e.Explain("zebra quokka", "en-us", "", 5).NearMisses, "nothing shares a word")
	assert.Equal(t, Explanation{}, e.Explain(" ?! ", "en-us", "", 5))
	assert.Equal(t, Explanation{Utterance: "hello"}, e.Explain("hello", "xx", "", 5), "no intents in that language")
}

// checkBounds asserts that Explain's bound never underestimates a relaxed
// alignment, which is what makes its pruning exact.
func checkBounds(t *testing.T, e *TemplateEngine, u, lang string) {
	t.Helper()
	norm := Normalize(u)
	if norm == "" {
		return
	}
	m := newMatcher(norm)
	if len(m.words) > e.opts.MaxUtteranceWords {
		return
	}
	m.offsets()
	m.lex = lexiconFor(e.opts.Lexicons, lang)
	m.skip = m.lex.skippable(m.words, nil)
	m.countSkippable()
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, s := range e.scopes {
		for _, c := range s.intents {
			for _, ss := range slices.Concat(c.plain, c.slotted) {
				for _, relaxed := range []bool{false, true} {
					ub, ok := m.upperBound(ss, relaxed)
					al := m.alignLoose(ss, relaxed, negInf)
					if !ok {
						if !relaxed {
							require.Nil(t, al, "no bound, no tolerant alignment: %q for %q", ss.text, norm)
						}
						continue
					}
					if al != nil {
						require.GreaterOrEqual(t, ub, al.score, "bound of %q for %q (relaxed %v)", ss.text, norm, relaxed)
					}
				}
			}
		}
	}
}

func TestExplainBoundsHold(t *testing.T) {
	e := newTolerantEngine(t)
	for _, d := range benchIntents(30) {
		mustRegister(t, e, d)
	}
	for _, u := range []string{
		"please switch the device5 on", "what is the status of device7 in the kitchen please", "play play play radio",
		"set a timer for ever", "could you turn on the lamp for me", "the the the", "switch on lights", "tell me about",
		"dont switch on the lights", "play jazz radio by the beatles on speaker3",
	} {
		checkBounds(t, e, u, "en-us")
		assert.Equal(t, exhaustiveNearMisses(e, u, 5), e.Explain(u, "en-us", "", 5).NearMisses, u)
	}
}

// exhaustiveNearMisses ranks near misses by aligning every sample, the
// way Explain would without pruning.
func exhaustiveNearMisses(e *TemplateEngine, u string, n int) []NearMiss {
	match := e.Match(u, "en-us", "")
	norm := Normalize(u)
	m := newMatcher(norm)
	m.offsets()
	m.lex = lexiconFor(e.opts.Lexicons, "en-us")
	m.skip = m.lex.skippable(m.words, nil)
	e.mu.RLock()
	defer e.mu.RUnlock()
	type near struct {
		c  *compiledIntent
		ss *slotSample
		al *alignment
	}
	var all []near
	for _, s := range e.scopes {
		for _, c := range s.intents {
			if match != nil && c.def.SkillID == match.SkillID && c.def.IntentName == match.IntentName {
				continue
			}
			var best *near
			for _, ss := range slices.Concat(c.plain, c.slotted) {
				if !slices.ContainsFunc(ss.literals, func(w string) bool { return slices.Contains(m.words, w) }) {
					continue
				}
				al := m.alignLoose(ss, true, negInf)
				if al == nil || al.literals == 0 {
					continue
				}
				if best == nil || al.score > best.al.score || (al.score == best.al.score && ss.text < best.ss.text) {
					best = &near{c, ss, al}
				}
			}
			if best != nil {
				all = append(all, *best)
			}
		}
	}
	slices.SortFunc(all, func(a, b near) int {
		if a.al.score != b.al.score {
			return int(b.al.score - a.al.score)
		}
		return tieBreak(a.c, b.c, a.ss.text, b.ss.text)
	})
	var out []NearMiss
	for _, x := range all[:min(n, len(all))] {
		out = append(out, NearMiss{SkillID: x.c.def.SkillID, IntentName: x.c.def.IntentName, Sample: x.ss.text,
			Score: x.al.similarity(len(m.words)), Reason: m.shortfall(x.c, x.ss, x.al, match)})
	}
	return out
}
