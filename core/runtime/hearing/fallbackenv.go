//go:build sphinx

package hearing

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio/sphinx"
)

// EnvFallback sets the fallback's checks and beams as
// "CLAIM,CONFIDENCE,COVERAGE[,BEAM,WORDBEAM,MAXHMMS[,MAXSECONDS]]"
// (sphinx.Fallback; the fields left out keep sphinx.DefaultFallback's, a
// floor of 0 is none): a tuning switch outside the typed config.
const EnvFallback = "JIBOD_SPHINX_FALLBACK"

// fallbackFromEnv reads $JIBOD_SPHINX_FALLBACK; nil (the recogniser's
// defaults) when unset.
func fallbackFromEnv(getenv func(string) string) (*sphinx.Fallback, error) {
	v := getenv(EnvFallback)
	if v == "" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	bad := fmt.Errorf("%s=%q: want CLAIM,CONFIDENCE,COVERAGE in [0, 1], then optionally BEAM,WORDBEAM in (0, 1), MAXHMMS in 100..100000 and MAXSECONDS in (0, %d]",
		EnvFallback, v, sphinx.DefaultMaxSeconds)
	if len(parts) != 3 && len(parts) != 6 && len(parts) != 7 {
		return nil, bad
	}
	nums := make([]float64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || n < 0 || math.IsNaN(n) || (i < 5 && n > 1) {
			return nil, bad
		}
		nums[i] = n
	}
	f := sphinx.DefaultFallback
	f.Claim, f.MinConfidence, f.MinCoverage = nums[0], nums[1], nums[2]
	if len(nums) >= 6 {
		f.Beam, f.WordBeam, f.MaxHMMs = nums[3], nums[4], int(nums[5])
	}
	if len(nums) == 7 {
		f.MaxAudio = time.Duration(nums[6] * float64(time.Second))
	}
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", bad, err)
	}
	return &f, nil
}

// EnvFallbackSlots sets what the fallback does with a claim that binds
// slots (sphinx.Fallback.SlotConfidence, KeepSlots, SlotGuesses): "off"
// never acts on one; "guesses" checks the generalising tier's guesses
// with slots as it does parses; a number in (0, 1] is the least confidence of the slots' words in
// the sentence the claimed intent's own search finds; unset, the
// recogniser's default. A tuning switch outside the typed config.
const EnvFallbackSlots = "JIBOD_SPHINX_FALLBACK_SLOTS"

// fallbackSlotsFromEnv reads $JIBOD_SPHINX_FALLBACK_SLOTS into f.
func fallbackSlotsFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	switch v := getenv(EnvFallbackSlots); v {
	case "":
	case "off":
		f.KeepSlots = true
	case "guesses":
		f.SlotGuesses = true
	default:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || !(n > 0 && n <= 1) {
			return fmt.Errorf("%s=%q: want off, guesses or a confidence in (0, 1]", EnvFallbackSlots, v)
		}
		f.SlotConfidence = n
	}
	return nil
}

// EnvFallbackGarbage sets the fallback transcript's confidence floor
// where the grammar's search ended in its garbage path
// (sphinx.Fallback.GarbageConfidence): a confidence in [0, 1], 0 for the
// fallback's own floor; unset, the recogniser's default. A tuning switch
// outside the typed config.
const EnvFallbackGarbage = "JIBOD_SPHINX_FALLBACK_GARBAGE"

// fallbackGarbageFromEnv reads $JIBOD_SPHINX_FALLBACK_GARBAGE into f.
func fallbackGarbageFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	v := getenv(EnvFallbackGarbage)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || !(n >= 0 && n <= 1) {
		return fmt.Errorf("%s=%q: want a confidence in [0, 1]", EnvFallbackGarbage, v)
	}
	f.GarbageConfidence = n
	return nil
}

// EnvFallbackAgree sets how many filler words after a sentence of the
// grammar the fallback's agreement overturns (sphinx.Fallback.AgreedTail):
// "off" none, a number of words in 1..sphinx.MaxAgreedTail; unset, the
// recogniser's default. A tuning switch outside the typed config.
const EnvFallbackAgree = "JIBOD_SPHINX_FALLBACK_AGREE"

// fallbackAgreeFromEnv reads $JIBOD_SPHINX_FALLBACK_AGREE into f.
func fallbackAgreeFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	switch v := getenv(EnvFallbackAgree); v {
	case "":
	case "off":
		f.AgreedTail = 0
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > sphinx.MaxAgreedTail {
			return fmt.Errorf("%s=%q: want off or a number of filler words in 1..%d", EnvFallbackAgree, v, sphinx.MaxAgreedTail)
		}
		f.AgreedTail = n
	}
	return nil
}

// EnvFallbackRival sets the fallback's rival check
// (sphinx.Fallback.RivalMargin): "off", "measure" (the rival and margin
// recorded, nothing refused) or a margin per frame in (0, 1000]; unset,
// the recogniser's default. There is no "on": no margin yet refuses the
// wrong transcripts measured without refusing right ones
// (docs/config.md). A tuning switch outside the typed config.
const EnvFallbackRival = "JIBOD_SPHINX_FALLBACK_RIVAL"

// fallbackRivalFromEnv reads $JIBOD_SPHINX_FALLBACK_RIVAL into f.
func fallbackRivalFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	switch v := getenv(EnvFallbackRival); v {
	case "":
	case "off":
		f.RivalMargin = 0
	case "measure":
		f.RivalMargin = -1
	default:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || !(n > 0 && n <= sphinx.MaxRivalMargin) {
			return fmt.Errorf("%s=%q: want off, measure or a margin per frame in (0, %d]", EnvFallbackRival, v, sphinx.MaxRivalMargin)
		}
		f.RivalMargin = n
	}
	return nil
}

// EnvFallbackLM sets the fallback search's language weight and word
// insertion penalty as "LW,WIP" (sphinx.Fallback.LanguageWeight,
// InsertionPenalty): a language weight in (0, 100] and a penalty, a
// probability, in (0, 1]; either may be left empty ("LW," or ",WIP") or
// 0 to keep the decoder's. A tuning switch outside the typed config.
const EnvFallbackLM = "JIBOD_SPHINX_FALLBACK_LM"

// EnvFallbackNBest sets how many distinct transcripts the fallback reads
// (sphinx.Fallback.NBest): a tuning switch outside the typed config.
const EnvFallbackNBest = "JIBOD_SPHINX_FALLBACK_NBEST"

// fallbackSearchFromEnv reads $JIBOD_SPHINX_FALLBACK_LM and
// $JIBOD_SPHINX_FALLBACK_NBEST into f.
func fallbackSearchFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	if v := getenv(EnvFallbackLM); v != "" {
		bad := fmt.Errorf("%s=%q: want LW,WIP: a language weight in [0, 100] and a word insertion penalty in [0, 1], either empty or 0 to keep the decoder's", EnvFallbackLM, v)
		lw, wip, ok := strings.Cut(v, ",")
		if !ok {
			return bad
		}
		num := func(s string, top float64) (float64, bool) {
			if s = strings.TrimSpace(s); s == "" {
				return 0, true
			}
			n, err := strconv.ParseFloat(s, 64)
			return n, err == nil && n >= 0 && n <= top
		}
		a, okA := num(lw, 100)
		b, okB := num(wip, 1)
		if !okA || !okB {
			return bad
		}
		f.LanguageWeight, f.InsertionPenalty = a, b
	}
	if v := getenv(EnvFallbackNBest); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > sphinx.MaxNBest {
			return fmt.Errorf("%s=%q: want a number of transcripts in 1..%d", EnvFallbackNBest, v, sphinx.MaxNBest)
		}
		f.NBest = n
	}
	return nil
}
