//go:build sphinx

package hearing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio/enhance"
	"github.com/openjibo/jibod/audio/sphinx"
)

// EnvEnhance sets when the trained speech enhancement (audio/enhance)
// runs in front of the recogniser: unset or "auto" (the default) for the
// utterances whose background is other talkers or music rather than
// steady noise (sphinx.DefaultEnhanceAboveBackground) and that are not
// plainly clean (sphinx.DefaultEnhanceBelowSNR); "on" for every
// utterance; a number of dB (1..200) for the utterances whose speech
// stands less than that over their quiet frames, whatever their
// background; any of these followed by ",FLOOR" for the least gain in
// [0, 1) (enhance.DefaultFloor otherwise); "off" for none. It is a tuning
// switch outside the typed config.
const EnvEnhance = "JIBOD_SPHINX_ENHANCE"

// enhanceGate is when the enhancement runs (sphinx.Config's
// EnhanceBelowSNR and EnhanceAboveBackground).
type enhanceGate struct{ belowSNR, aboveBackground float64 }

// noBackgroundGate enhances whatever the background (sphinx.Config's
// negative EnhanceAboveBackground).
const noBackgroundGate = -1

// offGate enhances no utterance (sphinx.Config's negative
// EnhanceBelowSNR). The zero gate would mean sphinx's defaults, so "off"
// says so in so many words rather than leaning on the enhancer's absence.
var offGate = enhanceGate{belowSNR: -1, aboveBackground: noBackgroundGate}

// enhanceFromEnv reads EnvEnhance: the enhancer and when it runs (nil and
// offGate when off).
func enhanceFromEnv(getenv func(string) string) (sphinx.Enhancer, enhanceGate, error) {
	v := strings.TrimSpace(getenv(EnvEnhance))
	if v == "off" {
		return nil, offGate, nil
	}
	bad := func() error {
		return fmt.Errorf("%s=%q: want auto, off, on or a number of dB from 1 to %g, optionally followed by ,FLOOR in [0, 1)", EnvEnhance, v, sphinx.MaxEnhanceBelowSNR)
	}
	when, floorText, hasFloor := strings.Cut(v, ",")
	var gate enhanceGate
	switch when = strings.TrimSpace(when); when {
	case "", "auto":
		if when == "" && hasFloor {
			return nil, enhanceGate{}, bad()
		}
		gate = enhanceGate{belowSNR: sphinx.DefaultEnhanceBelowSNR, aboveBackground: sphinx.DefaultEnhanceAboveBackground}
	case "on":
		gate = enhanceGate{belowSNR: sphinx.MaxEnhanceBelowSNR, aboveBackground: noBackgroundGate}
	default:
		db, err := strconv.ParseFloat(when, 64)
		if err != nil || !(db >= 1 && db <= sphinx.MaxEnhanceBelowSNR) {
			return nil, enhanceGate{}, bad()
		}
		gate = enhanceGate{belowSNR: db, aboveBackground: noBackgroundGate}
	}
	floor := enhance.DefaultFloor
	if hasFloor {
		f, err := strconv.ParseFloat(strings.TrimSpace(floorText), 64)
		if err != nil || !(f >= 0 && f < 1) {
			return nil, enhanceGate{}, bad()
		}
		floor = f
	}
	m, err := enhance.Default()
	if err != nil {
		return nil, enhanceGate{}, err
	}
	e, err := enhance.NewFilter(m, floor)
	if err != nil {
		return nil, enhanceGate{}, err
	}
	return e, gate, nil
}
