//go:build sphinx

package hearing

import (
	"log/slog"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/intent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNGramTuningSwitches(t *testing.T) {
	env := func(k, v string) func(string) string {
		return func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
	}
	s, err := ngramFromEnv(env("", ""))
	require.NoError(t, err)
	assert.Equal(t, ngramSettings{weight: openWeight, count: openWordCount}, s, "defaults when unset")
	s, err = ngramFromEnv(env(EnvNGramOpen, "0.1,500"))
	require.NoError(t, err)
	assert.Equal(t, ngramSettings{weight: 0.1, count: 500}, s)
	s, err = ngramFromEnv(env(EnvNGramOpen, "0"))
	require.NoError(t, err)
	assert.Equal(t, ngramSettings{weight: 0, count: openWordCount}, s, "no open words")
	for _, bad := range []string{"1", "-0.1", "NaN", "lots", "0.1,-3", "0.1,99999", "0.1,x"} {
		_, err := ngramFromEnv(env(EnvNGramOpen, bad))
		assert.ErrorContains(t, err, EnvNGramOpen, bad)
	}
}

func TestFallbackTuningSwitch(t *testing.T) {
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == EnvFallback {
				return v
			}
			return ""
		}
	}
	f, err := fallbackFromEnv(env(""))
	require.NoError(t, err)
	assert.Nil(t, f, "unset: the recogniser's defaults")
	f, err = fallbackFromEnv(env("0.6,0.5,0.8"))
	require.NoError(t, err)
	want := sphinx.DefaultFallback
	want.Claim, want.MinConfidence, want.MinCoverage = 0.6, 0.5, 0.8
	assert.Equal(t, &want, f, "the beams and the length kept")
	f, err = fallbackFromEnv(env("0,0,0"))
	require.NoError(t, err)
	want = sphinx.DefaultFallback
	want.Claim, want.MinConfidence, want.MinCoverage = 0, 0, 0
	assert.Equal(t, &want, f, "0 is no floor, not the default's")
	f, err = fallbackFromEnv(env("0.6,0.5,0.8,1e-30,1e-20,3000,2.5"))
	require.NoError(t, err)
	assert.Equal(t, &sphinx.Fallback{Claim: 0.6, MinConfidence: 0.5, MinCoverage: 0.8, Beam: 1e-30, WordBeam: 1e-20,
		MaxHMMs: 3000, SlotConfidence: sphinx.DefaultFallback.SlotConfidence, GarbageConfidence: sphinx.DefaultFallback.GarbageConfidence, AgreedTail: sphinx.DefaultFallback.AgreedTail,
		RivalMargin: sphinx.DefaultFallback.RivalMargin, Rivals: sphinx.DefaultFallback.Rivals, MaxAudio: 2500 * time.Millisecond}, f)
	for _, bad := range []string{"0.5", "0.5,0.5", "1.5,0.5,0.5", "-1,0.5,0.5", "NaN,0.5,0.5", "a,b,c", "0.5,0.5,0.5,2,1e-20,3000", "0.5,0.5,0.5,1e-30",
		"0.5,0.5,0.5,0,1e-20,3000", "0.5,0.5,0.5,1e-30,1e-20,0", "0.5,0.5,0.5,1e-30,1e-20,3000,0"} {
		_, err := fallbackFromEnv(env(bad))
		assert.ErrorContains(t, err, EnvFallback, bad)
	}
}

func TestFallbackSlotsTuningSwitch(t *testing.T) {
	tests := []struct {
		value string
		want  sphinx.Fallback
		err   bool
	}{
		{"", sphinx.Fallback{}, false},
		{"off", sphinx.Fallback{KeepSlots: true}, false},
		{"0.7", sphinx.Fallback{SlotConfidence: 0.7}, false},
		{"1", sphinx.Fallback{SlotConfidence: 1}, false},
		{"0", sphinx.Fallback{}, true},
		{"1.5", sphinx.Fallback{}, true},
		{"NaN", sphinx.Fallback{}, true},
		{"on", sphinx.Fallback{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			var f sphinx.Fallback
			err := fallbackSlotsFromEnv(func(name string) string {
				if name == EnvFallbackSlots {
					return tt.value
				}
				return ""
			}, &f)
			if tt.err {
				assert.ErrorContains(t, err, EnvFallbackSlots)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f)
		})
	}
}

func TestFallbackGarbageTuningSwitch(t *testing.T) {
	tests := []struct {
		value string
		want  float64
		err   bool
	}{
		{"", 0.3, false}, // unset: what was there
		{"0.85", 0.85, false},
		{"0", 0, false},
		{"1", 1, false},
		{"1.5", 0, true},
		{"-0.1", 0, true},
		{"NaN", 0, true},
		{"on", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			f := sphinx.Fallback{GarbageConfidence: 0.3}
			err := fallbackGarbageFromEnv(func(name string) string {
				if name == EnvFallbackGarbage {
					return tt.value
				}
				return ""
			}, &f)
			if tt.err {
				assert.ErrorContains(t, err, EnvFallbackGarbage)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f.GarbageConfidence)
		})
	}
}

func TestFallbackAgreeTuningSwitch(t *testing.T) {
	tests := []struct {
		value string
		want  int
		err   bool
	}{
		{"", 5, false}, // unset: what was there
		{"off", 0, false},
		{"1", 1, false},
		{"3", 3, false},
		{"0", 0, true}, // "off" says it
		{"21", 0, true},
		{"-1", 0, true},
		{"1.5", 0, true},
		{"on", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			f := sphinx.Fallback{AgreedTail: 5}
			err := fallbackAgreeFromEnv(func(name string) string {
				if name == EnvFallbackAgree {
					return tt.value
				}
				return ""
			}, &f)
			if tt.err {
				assert.ErrorContains(t, err, EnvFallbackAgree)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f.AgreedTail)
		})
	}
}

func TestFallbackRivalTuningSwitch(t *testing.T) {
	tests := []struct {
		value string
		want  float64
		err   bool
	}{
		{"", 7, false}, // unset: what was there
		{"off", 0, false},
		{"on", 0, true}, // no margin is the right one yet
		{"measure", -1, false},
		{"2.5", 2.5, false},
		{"0", 0, true},
		{"-1", 0, true},
		{"1001", 0, true},
		{"NaN", 0, true},
		{"yes", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			f := sphinx.Fallback{RivalMargin: 7}
			err := fallbackRivalFromEnv(func(name string) string {
				if name == EnvFallbackRival {
					return tt.value
				}
				return ""
			}, &f)
			if tt.err {
				assert.ErrorContains(t, err, EnvFallbackRival)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f.RivalMargin)
		})
	}
}

func TestFallbackSearchTuningSwitches(t *testing.T) {
	tests := []struct {
		lm, nbest string
		want      sphinx.Fallback
		err       string
	}{
		{want: sphinx.Fallback{}},
		{lm: "10,0.65", want: sphinx.Fallback{LanguageWeight: 10, InsertionPenalty: 0.65}},
		{lm: " 8 , 0.2", want: sphinx.Fallback{LanguageWeight: 8, InsertionPenalty: 0.2}},
		{lm: "10,", want: sphinx.Fallback{LanguageWeight: 10}},
		{lm: ",0.5", want: sphinx.Fallback{InsertionPenalty: 0.5}},
		{lm: "0,0.65", want: sphinx.Fallback{InsertionPenalty: 0.65}},
		{lm: "10,1", want: sphinx.Fallback{LanguageWeight: 10, InsertionPenalty: 1}},
		{nbest: "10", want: sphinx.Fallback{NBest: 10}},
		{lm: "10", err: EnvFallbackLM},
		{lm: "10,-1", err: EnvFallbackLM},
		{lm: "10,1.5", err: EnvFallbackLM},
		{lm: "10,65", err: EnvFallbackLM},
		{lm: "101,1", err: EnvFallbackLM},
		{lm: "ten,1", err: EnvFallbackLM},
		{nbest: "0", err: EnvFallbackNBest},
		{nbest: "21", err: EnvFallbackNBest},
		{nbest: "many", err: EnvFallbackNBest},
	}
	for _, tt := range tests {
		t.Run(tt.lm+"|"+tt.nbest, func(t *testing.T) {
			var f sphinx.Fallback
			err := fallbackSearchFromEnv(func(name string) string {
				return map[string]string{EnvFallbackLM: tt.lm, EnvFallbackNBest: tt.nbest}[name]
			}, &f)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f)
		})
	}
}

// TestUnderstandKeepsSlotNames: the recogniser is told which slot took
// which words, so two sentences binding the same words to swapped slots
// are two meanings for its checks, not one.
func TestUnderstandKeepsSlotNames(t *testing.T) {
	s, err := intent.NewStack(intent.StackConfig{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	_, err = s.Templates.Register(intent.TemplateIntent{SkillID: "travel", IntentName: "route", Lang: "en-us",
		Samples: []string{"from {from} to {to}"}, Entities: map[string][]string{"from": {"paris", "rome"}, "to": {"paris", "rome"}}})
	require.NoError(t, err)
	u := understand(s, nil, "en-US", slog.New(slog.DiscardHandler))
	there, err := u(t.Context(), "from paris to rome")
	require.NoError(t, err)
	back, err := u(t.Context(), "from rome to paris")
	require.NoError(t, err)
	assert.Equal(t, "travel:route", there.Intent)
	assert.Equal(t, map[string]string{"from": "paris", "to": "rome"}, there.Slots)
	assert.Equal(t, map[string]string{"from": "rome", "to": "paris"}, back.Slots)
}
