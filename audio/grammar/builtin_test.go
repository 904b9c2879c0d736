package grammar

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtinIntents loads the built-in skills' launch intents from their
// locale folders, as the skill host registers them.
func builtinIntents(t testing.TB) []Intent {
	t.Helper()
	dirs, err := filepath.Glob("../../core/skill/builtin/*/locale")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	var out []Intent
	for _, d := range dirs {
		skill := "jibo." + filepath.Base(filepath.Dir(d))
		loc, err := intent.LoadLocale(os.DirFS(d), ".")
		require.NoError(t, err, d)
		for _, tag := range loc.Languages() {
			lang := loc.Langs[tag]
			for _, name := range lang.Names(intent.RoleIntent) {
				def, ok := lang.TemplateIntent("", skill, name)
				require.True(t, ok)
				out = append(out, Intent{Skill: def.SkillID, Name: def.IntentName, Lang: def.Lang, Templates: def.Samples,
					Vocab: def.Vocab, Entities: def.Entities, SlotTypes: def.SlotTypes})
			}
		}
	}
	return out
}

// TestBuiltinSlotsOfferOnlyWhatSkillsTake is issue 24 item 5: every value
// the ear can hear in a built-in skill's slot is one the skill's own
// parser takes, so a sentence heard is never refused by the skill it is
// for ("volume forty one": the volume runs 0 to 10).
func TestBuiltinSlotsOfferOnlyWhatSkillsTake(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	tests := []struct {
		skill, intent, slot string
		parse               func(string) error
		min                 int
	}{
		{"jibo.volume", "volume_set", "level", func(s string) error { _, err := volume.ParseLevel(s); return err }, 11},
		{"jibo.timer", "set_timer", "duration", func(s string) error { _, err := timer.ParseDuration(s); return err }, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.skill+":"+tt.intent, func(t *testing.T) {
			vals, ok, err := g.SlotValues(tt.skill, tt.intent, tt.slot, 200_000)
			require.NoError(t, err)
			require.True(t, ok, "the grammar has {%s}", tt.slot)
			assert.GreaterOrEqual(t, len(vals), tt.min)
			var refused []string
			for _, v := range vals {
				if err := tt.parse(v); err != nil {
					refused = append(refused, v)
				}
			}
			assert.Empty(t, refused, "values the grammar offers and the skill refuses")
		})
	}
	for _, say := range []string{"volume forty one", "set the volume to a hundred", "set a timer for zero seconds", "set a timer for twenty four and a half hours"} {
		assert.False(t, g.Accepts(say), "%q", say)
	}
	for _, say := range []string{"volume four", "set the volume to max", "set a timer for twenty four hours", "set a timer for twenty three and a half hours"} {
		assert.True(t, g.Accepts(say), "%q", say)
	}
}

// TestBuiltinGrammarHoldsEveryOneChangeWording: with the default choice
// the built-in skills' grammar holds each template's plainest sentence
// changed in one group, for every template of an intent, not only the
// first templates' first alternatives: "i need a timer for …" is a verb
// well down the timer's alternatives, and "youre too quiet" a later
// template of volume up. Two groups changed at once are still left out.
func TestBuiltinGrammarHoldsEveryOneChangeWording(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	for _, say := range []string{
		"i need a timer for five minutes",
		"id like a timer for ten minutes",
		"i want a timer for twenty seconds",
		"youre too quiet",
		"i cant hear you",
		"make it a bit quieter",
		"put a timer on for eight minutes",
		"lower your voice",
		"how long does the timer have left",
	} {
		assert.True(t, g.Accepts(say), "%q", say)
	}
	assert.False(t, g.Accepts("could you check the clock for me"), "two groups changed")
}

// TestBuiltinGrammarHoldsTwoChangeWordings: wordings people commonly use
// that change two groups or more of a template ("put the volume on six"
// is "set volume to six" with the verb, the article and the preposition
// changed) are templates of their own in the built-in skills, so that the
// bounded grammar holds them: forced onto their nearest sentence, "put
// the volume on six" was heard as "what volume are you set to", "turn the
// sound up a little" as "turn the sound off please". Unmuting's "turn the
// volume on please" is held and no level is a word away from it: with
// "turn the volume on six" in the grammar, its trailing word was heard as
// a level.
func TestBuiltinGrammarHoldsTwoChangeWordings(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	for _, say := range []string{
		"put the volume at four",
		"put the volume to six",
		"turn the volume on please",
		"put the volume on please",
		"turn the volume on",
		"turn the sound up a little",
		"turn it down a little",
		"could you turn it down please",
		"could you speak up",
		"switch the sound back on",
		"stop my timer please",
		"turn off my timer",
		"how long does my timer have left",
		"when does my timer go off",
		"could you check the time for me",
	} {
		assert.True(t, g.Accepts(say), "%q", say)
	}
	for _, say := range []string{"turn the volume on six", "put the volume on three", "turn the volume on three please"} {
		assert.False(t, g.Accepts(say), "a level a word away from unmuting: %q", say)
	}
}

// TestBuiltinGrammarHoldsMuteAsASetting: muting said as a setting of the
// volume ("put the volume on mute") is a sentence of its own, so the ear
// does not force it onto "put the volume on" (unmuting) or a level, and no
// level the grammar offers is a word for silence.
func TestBuiltinGrammarHoldsMuteAsASetting(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	for _, say := range []string{"turn the volume on mute", "put the volume on mute", "set the volume to mute",
		"put yourself on mute please", "hey jibo set the volume to mute"} {
		assert.True(t, g.Accepts(say), "%q", say)
	}
	vals, ok, err := g.SlotValues("jibo.volume", "volume_set", "level", 200_000)
	require.NoError(t, err)
	require.True(t, ok)
	for _, v := range vals {
		assert.False(t, volume.Muting(v), "level %q", v)
	}
}

// TestBuiltinGrammarHoldsMuteSwitchWordings: mute said as a switch turned
// on or off, taken off, cancelled ("turn mute off", "take yourself off
// mute", "cancel the mute") and silence as a setting ("put the volume on
// silent") are sentences of their own, each beside its opposite, so the
// ear does not force one onto the other or onto "put the volume on"
// (unmuting).
func TestBuiltinGrammarHoldsMuteSwitchWordings(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	for _, say := range []string{
		"put the volume on silent", "put yourself on silent", "go on mute",
		"turn on mute", "turn off mute", "turn mute on", "turn mute off", "turn the mute off",
		"switch mute off", "mute on", "mute off", "take yourself off mute", "come off mute",
		"cancel mute", "cancel the mute", "stop muting",
	} {
		assert.True(t, g.Accepts(say), "%q", say)
	}
}
