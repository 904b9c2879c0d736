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

func newTestEngine() *TemplateEngine {
	return NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler)})
}

func mustRegister(t *testing.T, e *TemplateEngine, def TemplateIntent) []Warning {
	t.Helper()
	w, err := e.Register(def)
	require.NoError(t, err)
	return w
}

func lights(samples ...string) TemplateIntent {
	return TemplateIntent{SkillID: "lights", IntentName: "on", Lang: "en-us", Samples: samples}
}

// TestRegisterRejects covers the malformed definitions of REG-06 and
// DEF-08, and the key checks of REG-04 and DEF-02: each is rejected with a
// precise reason and indexes nothing.
func TestRegisterRejects(t *testing.T) {
	base := lights("turn on [the] {device}")
	with := func(f func(*TemplateIntent)) TemplateIntent {
		d := base
		f(&d)
		return d
	}
	tests := []struct {
		name string
		def  TemplateIntent
		want string
	}{
		{"REG-06 reserved converse", with(func(d *TemplateIntent) { d.IntentName = "converse" }), `intent_name "converse" is reserved (REG-06)`},
		{"REG-06 reserved response", with(func(d *TemplateIntent) { d.IntentName = "response" }), `"response" is reserved`},
		{"REG-06 reserved stop", with(func(d *TemplateIntent) { d.IntentName = "stop" }), `"stop" is reserved`},
		{"REG-06 reserved fallback", with(func(d *TemplateIntent) { d.IntentName = "fallback" }), `"fallback" is reserved`},
		{"REG-06 reserved common_query", with(func(d *TemplateIntent) { d.IntentName = "common_query" }), `"common_query" is reserved`},
		{"REG-06 reserved in any case", with(func(d *TemplateIntent) { d.IntentName = "Stop" }), `"Stop" is reserved`},
		{"REG-06 samples missing", with(func(d *TemplateIntent) { d.Samples = nil }), "samples is missing or empty (REG-06)"},
		{"REG-06 samples empty", with(func(d *TemplateIntent) { d.Samples = []string{} }), "samples is missing or empty"},
		{"REG-06 no sample expands", with(func(d *TemplateIntent) { d.Samples = []string{"[x]", "(a", "{only}"} }),
			"no sample parses and compiles to a matchable template (REG-06)"},
		{"REG-06 nothing matchable after normalisation", with(func(d *TemplateIntent) { d.Samples = []string{"?!"} }),
			"no sample parses and compiles to a matchable template (REG-06)"},
		{"REG-06 DEF-08 required slot undeclared", with(func(d *TemplateIntent) { d.RequiredSlots = []string{"room"} }),
			`required slot "room" is not declared by any valid template (REG-06, DEF-08)`},
		{"DEF-08 required slot only in a bad template", with(func(d *TemplateIntent) {
			d.Samples = []string{"turn on {device}", "in {room"}
			d.RequiredSlots = []string{"room"}
		}), `required slot "room" is not declared`},
		{"GRM-04 required slot name", with(func(d *TemplateIntent) { d.RequiredSlots = []string{"De vice"} }), `required slot "De vice" is not a valid slot name`},
		{"REG-04 skill_id empty", with(func(d *TemplateIntent) { d.SkillID = "" }), "skill_id is empty"},
		{"DEF-02 skill_id with colon", with(func(d *TemplateIntent) { d.SkillID = "a:b" }), `skill_id "a:b" contains ':' (DEF-02)`},
		{"DEF-02 intent_name with colon", with(func(d *TemplateIntent) { d.IntentName = "x:y" }), `intent_name "x:y" contains ':'`},
		{"intent_name empty", with(func(d *TemplateIntent) { d.IntentName = "" }), "intent_name is empty"},
		{"intent_name with space", with(func(d *TemplateIntent) { d.IntentName = "turn on" }), "contains whitespace"},
		{"skill_id too long", with(func(d *TemplateIntent) { d.SkillID = strings.Repeat("s", MaxIDBytes+1) }), "skill_id is 257 bytes, limit is 256"},
		{"REG-04 lang empty", with(func(d *TemplateIntent) { d.Lang = "" }), `language tag "" is not a BCP-47 tag`},
		{"REG-04 lang malformed", with(func(d *TemplateIntent) { d.Lang = "en_US" }), `language tag "en_US" is not a BCP-47 tag`},
		{"too many templates", with(func(d *TemplateIntent) { d.Samples = make([]string, DefaultMaxTemplates+1) }),
			"definition has 10001 templates, limit is 10000"},
		{"too many vocabulary templates", with(func(d *TemplateIntent) {
			d.Vocab = map[string][]string{"a": make([]string, MaxVocabTemplates), "b": {"x"}}
		}), "vocab has 10001 templates, limit is 10000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEngine()
			w, err := e.Register(tc.def)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "registering template intent")
			assert.Nil(t, w)
			assert.Empty(t, e.Registrations(""), "nothing indexed")
		})
	}
}

// TestRegisterStructureLimit: GRM-12's count limit is a limit on the
// compiled structure, so a template with billions of samples loads, and a
// definition over the node limit is refused whole.
func TestRegisterStructureLimit(t *testing.T) {
	e := newTestEngine()
	// 10 groups of 10 words: 10^10 samples, a few dozen nodes.
	group := "(a|b|c|d|e|f|g|h|i|j)"
	huge := "say " + strings.TrimSpace(strings.Repeat(group+" ", 10))
	_, _, err := Expand(huge, nil, ExpandOptions{})
	require.ErrorIs(t, err, ErrTooLarge, "the expander refuses it (GRM-12)")
	mustRegister(t, e, lights(huge))
	r := e.Match("say a b c d e f g h i j", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, huge, r.Sample)

	small := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), MaxIntentNodes: 5})
	_, err = small.Register(lights(huge))
	require.ErrorContains(t, err, "compile to more than 5 nodes")
}

// TestRegisterWarnings: bad templates are skipped with a warning naming the
// field, and the rest are indexed (REG-06).
func TestRegisterWarnings(t *testing.T) {
	e := newTestEngine()
	warns := mustRegister(t, e, TemplateIntent{
		SkillID: "lights", IntentName: "on", Lang: "en-us",
		Samples:       []string{"turn on {device}", "turn (on", "Switch On [the] {device}", "[the] {device}", "{device} ! {room}", "{device}'s"},
		Blacklist:     []string{"off {x}", "alarm"},
		SlotTypes:     map[string]string{"device": "gadget", "nope": "number"},
		Entities:      map[string][]string{"device": {"lamp", "(tv"}, "ghost": {"x"}},
		SlotBlacklist: map[string][]string{"device": {"everything"}},
	})
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	assert.ElementsMatch(t, []string{
		`samples[1]: template "turn (on" skipped: line 1 col 6: '(' is never closed by ')'`,
		`samples[2]: text "Switch" is not ASR-normalised (GRM-02); indexed as "switch"`,
		`samples[4]: template "{device} ! {room}" skipped: line 1 col 1: template "{device} ! {room}" has no whole literal word and would match almost any utterance`,
		`samples[5]: template "{device}'s" skipped: line 1 col 1: template "{device}'s" has no whole literal word and would match almost any utterance`,
		`slot_types: slot "device" has unregistered type "gadget" (GRM-05)`,
		`slot_types: slot "nope" is not declared by any valid template; ignored`,
		`blacklist[0]: phrase "off {x}" skipped: has slot {x}; phrases are slot-free`,
		`entities.device[1]: phrase "(tv" skipped: line 1 col 1: '(' is never closed by ')'`,
		`entities.ghost: slot "ghost" is not declared by any valid template; ignored`,
	}, got)
	r := e.Match("switch on the lamp", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, map[string]string{"device": "lamp"}, r.Slots)
	// "[the] {device}" is kept, but its sample "{device}" alone, a slot and
	// no word, never matches.
	assert.NotNil(t, e.Match("the lamp", "en-us", ""))
	assert.Nil(t, e.Match("lamp", "en-us", ""))
}

// TestRegisterDifferingSlotSets: templates of one intent may declare
// different slots (REG-06, GRM-16).
func TestRegisterDifferingSlotSets(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "music", IntentName: "play", Lang: "en-us",
		Samples: []string{"play {song}", "play {song} by {artist}", "play something"}})
	r := e.Match("play yesterday by the beatles", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, map[string]string{"song": "yesterday", "artist": "the beatles"}, r.Slots)
}

// TestRegisterReplaces: re-registering a key replaces the definition and
// keeps its enabled state (REG-04, DEF-09).
func TestRegisterReplaces(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, lights("lights on"))
	require.NotNil(t, e.Match("lights on", "en-us", ""))
	assert.Equal(t, 1, e.SetEnabled("", "lights", "on", "en-us", false))

	mustRegister(t, e, lights("lamp on"))
	assert.Nil(t, e.Match("lights on", "en-us", ""), "old samples gone")
	assert.Nil(t, e.Match("lamp on", "en-us", ""), "still disabled after replacing")
	e.SetEnabled("", "lights", "on", "", true)
	r := e.Match("lamp on", "en-us", "")
	require.NotNil(t, r)
	assert.Equal(t, "on", r.IntentName)
	require.Len(t, e.Registrations(""), 1)
}

func TestDeregister(t *testing.T) {
	e := newTestEngine()
	for _, lang := range []string{"en-us", "en-gb", "de-de"} {
		d := lights("lights on")
		d.Lang = lang
		mustRegister(t, e, d)
	}
	other := lights("lights off")
	other.IntentName = "off"
	mustRegister(t, e, other)

	assert.Equal(t, 1, e.Deregister("", "lights", "on", "EN-GB"), "REG-04: lang is case-insensitive")
	assert.Nil(t, e.Match("lights on", "en-gb", ""))
	assert.NotNil(t, e.Match("lights on", "en-us", ""))
	assert.Equal(t, 0, e.Deregister("", "lights", "on", "en-gb"), "REG-09: deregistering the unregistered is a no-op")
	assert.Equal(t, 2, e.Deregister("", "lights", "on", ""), "REG-09: no lang means every language")
	assert.Nil(t, e.Match("lights on", "en-us", ""))
	assert.NotNil(t, e.Match("lights off", "en-us", ""), "other intents untouched")
	assert.Equal(t, 1, e.RemoveSkill("", "lights"))
	assert.Empty(t, e.Registrations(""))
}

// TestSessionScopes covers REG-04, REG-09, REG-10 and REG-14: a session
// sees "default" plus its own registrations, and scoped operations touch
// only their scope.
func TestSessionScopes(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "base", IntentName: "hello", Lang: "en-us", Samples: []string{"hello"}})
	mustRegister(t, e, TemplateIntent{SessionID: "kiosk", SkillID: "kiosk", IntentName: "menu", Lang: "en-us", Samples: []string{"show the menu"}})
	mustRegister(t, e, TemplateIntent{SessionID: "kiosk", SkillID: "base", IntentName: "hello", Lang: "en-us", Samples: []string{"hello"}})

	tests := []struct {
		name, utterance, session string
		wantSkill                string // "" = no match
	}{
		{"REG-14 default sees default", "hello", "", "base"},
		{"REG-14 default does not see session intents", "show the menu", "", ""},
		{"REG-14 session sees its own", "show the menu", "kiosk", "kiosk"},
		{"REG-14 session sees default", "hello", "kiosk", "base"},
		{"REG-14 other session does not see kiosk", "show the menu", "phone", ""},
		{"explicit default session", "hello", DefaultSession, "base"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Match(tc.utterance, "en-us", tc.session)
			if tc.wantSkill == "" {
				assert.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			assert.Equal(t, tc.wantSkill, r.SkillID)
		})
	}

	var pool []string
	for _, r := range e.Registrations("kiosk") {
		pool = append(pool, r.SessionID+"/"+r.SkillID+":"+r.IntentName)
	}
	assert.Equal(t, []string{"default/base:hello", "kiosk/base:hello", "kiosk/kiosk:menu"}, pool, "REG-12 effective pool, default first")
	assert.Len(t, e.Registrations("phone"), 1)

	assert.Equal(t, 1, e.SetEnabled("", "base", "hello", "", false), "REG-14: default-scoped disable")
	assert.Nil(t, e.Match("hello", "en-us", ""))
	r := e.Match("hello", "en-us", "kiosk")
	require.NotNil(t, r, "REG-14: the session's own entry is untouched")
	assert.Equal(t, "base", r.SkillID)

	assert.Equal(t, 2, e.RemoveSkill("kiosk", "kiosk")+e.RemoveSkill("kiosk", "base"), "REG-09: skill removal in the session scope")
	assert.Len(t, e.Registrations(""), 1, "default entry kept")
	assert.Equal(t, 0, e.SetEnabled("kiosk", "base", "hello", "", true), "REG-10: unregistered is a no-op")
}

func TestRegistrationsCopyDefinitions(t *testing.T) {
	e := newTestEngine()
	def := TemplateIntent{SkillID: "s", IntentName: "i", Lang: "EN-us", Samples: []string{"hello"},
		Entities: map[string][]string{"x": {"a"}}}
	mustRegister(t, e, def)
	def.Samples[0] = "changed by the caller"
	regs := e.Registrations("")
	require.Len(t, regs, 1)
	assert.Equal(t, Registration{SessionID: DefaultSession, SkillID: "s", IntentName: "i", Lang: "en-us", Enabled: true,
		Definition: TemplateIntent{SessionID: DefaultSession, SkillID: "s", IntentName: "i", Lang: "en-us", Samples: []string{"hello"},
			Entities: map[string][]string{"x": {"a"}}}}, regs[0])
	regs[0].Definition.Samples[0] = "changed by the reader"
	assert.NotNil(t, e.Match("hello", "en-us", ""))
}

func TestNormalizeLang(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"en-US", "en-us", true},
		{"pt-BR", "pt-br", true},
		{"zh-Hant-TW", "zh-hant-tw", true},
		{"es-419", "es-419", true},
		{"de", "de", true},
		{"", "", false},
		{"e", "", false},
		{"en_us", "", false},
		{"en-", "", false},
		{"1e-us", "", false},
		{"en-toolongsubtag", "", false},
		{"readme", "", false},
		{"yue-HK", "yue-hk", true},
	}
	for _, tc := range tests {
		got, err := NormalizeLang(tc.in)
		if !tc.ok {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got)
	}
}

// TestConcurrentMatchAndRegister runs Match while registrations change;
// run with -race.
func TestConcurrentMatchAndRegister(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, lights("turn on [the] {device}"))
	stop := make(chan struct{})
	var registrars, matchers sync.WaitGroup
	for w := range 2 {
		registrars.Add(1)
		go func() {
			defer registrars.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				def := TemplateIntent{SkillID: fmt.Sprintf("s%d", w), IntentName: fmt.Sprintf("i%d", i%5), Lang: "en-us",
					Samples: []string{fmt.Sprintf("do thing %d [now] {x}", i%5)}}
				if _, err := e.Register(def); err != nil {
					t.Error(err)
					return
				}
				e.SetEnabled("", def.SkillID, def.IntentName, "", i%2 == 0)
				if i%3 == 0 {
					e.Deregister("", def.SkillID, def.IntentName, "")
				}
			}
		}()
	}
	for range 2 {
		matchers.Add(1)
		go func() {
			defer matchers.Done()
			for range 500 {
				r := e.Match("turn on the lamp", "en-us", "")
				if r == nil || r.IntentName != "on" {
					t.Errorf("stable intent lost: %+v", r)
					return
				}
				e.Match("do thing 3 now please", "en-us", "")
				e.Registrations("")
			}
		}()
	}
	matchers.Wait()
	close(stop)
	registrars.Wait()
}

// TestNormalizeKey: both engines check a definition's key alike; the
// reserved-name error names the rule of the engine that asked.
func TestNormalizeKey(t *testing.T) {
	tests := []struct {
		name                            string
		session, skill, intentName, lng string
		rule                            string
		wantSession, wantLang, wantErr  string
	}{
		{"empty session is the default", "", "lights", "on", "EN-us", "REG-06", DefaultSession, "en-us", ""},
		{"a session may hold a colon", "user:1", "lights", "on", "en-us", "REG-06", "user:1", "en-us", ""},
		{"skill with colon", "", "a:b", "on", "en-us", "REG-06", "", "", `skill_id "a:b" contains ':'`},
		{"intent empty", "", "lights", "", "en-us", "REG-06", "", "", "intent_name is empty"},
		{"reserved, template rule", "", "lights", "stop", "en-us", "REG-06", "", "", `intent_name "stop" is reserved (REG-06)`},
		{"reserved, keyword rule", "", "lights", "Stop", "en-us", "REG-05", "", "", `intent_name "Stop" is reserved (REG-05)`},
		{"bad language", "", "lights", "on", "english", "REG-05", "", "", `language tag "english" is not a BCP-47 tag`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			session, lang, err := normalizeKey(tt.session, tt.skill, tt.intentName, tt.lng, tt.rule)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantSession, session)
			assert.Equal(t, tt.wantLang, lang)
		})
	}
}
