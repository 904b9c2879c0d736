//go:build sphinx

package hearing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio/enhance"
	"github.com/openjibo/jibod/audio/sphinx"
)

// EnvEnhance turns the trained speech enhancement (audio/enhance) on in
// front of the recogniser: "on" for every utterance, a number of dB
// (1..200) for the utterances whose speech stands less than that over
// their quiet frames, either followed by ",FLOOR" for the least gain in
// [0, 1) (enhance.DefaultFloor otherwise); unset or "off" leaves it out
// (docs/hearing.md says why it is not the default). It is a tuning switch
// outside the typed config.
const EnvEnhance = "JIBOD_SPHINX_ENHANCE"

// enhanceFromEnv reads EnvEnhance: the enhancer and the SNR below which
// it runs (0 and nil when off).
func enhanceFromEnv(getenv func(string) string) (sphinx.Enhancer, float64, error) {
	v := strings.TrimSpace(getenv(EnvEnhance))
	if v == "" || v == "off" {
		return nil, 0, nil
	}
	bad := func() error {
		return fmt.Errorf("%s=%q: want off, on or a number of dB from 1 to %g, optionally followed by ,FLOOR in [0, 1)", EnvEnhance, v, sphinx.MaxEnhanceBelowSNR)
	}
	when, floorText, hasFloor := strings.Cut(v, ",")
	below := sphinx.MaxEnhanceBelowSNR
	if when != "on" {
		db, err := strconv.ParseFloat(strings.TrimSpace(when), 64)
		if err != nil || !(db >= 1 && db <= sphinx.MaxEnhanceBelowSNR) {
			return nil, 0, bad()
		}
		below = db
	}
	floor := enhance.DefaultFloor
	if hasFloor {
		f, err := strconv.ParseFloat(strings.TrimSpace(floorText), 64)
		if err != nil || !(f >= 0 && f < 1) {
			return nil, 0, bad()
		}
		floor = f
	}
	m, err := enhance.Default()
	if err != nil {
		return nil, 0, err
	}
	e, err := enhance.NewFilter(m, floor)
	if err != nil {
		return nil, 0, err
	}
	return e, below, nil
}
