//go:build sphinx

package hearing

import (
	"testing"

	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnhanceFromEnv: unset or auto, JIBOD_SPHINX_ENHANCE gates the
// speech enhancement on the background (other talkers, music) and the
// ratio; on turns it on for every utterance and a number below that
// ratio whatever the background, with the default or a given floor; off
// leaves it out with a gate that says none (a zero gate would mean
// sphinx's defaults); anything else is refused naming the variable.
func TestEnhanceFromEnv(t *testing.T) {
	for _, tc := range []struct {
		v    string
		on   bool
		gate enhanceGate
		bad  bool
	}{
		{v: "", on: true, gate: enhanceGate{sphinx.DefaultEnhanceBelowSNR, sphinx.DefaultEnhanceAboveBackground}},
		{v: "auto", on: true, gate: enhanceGate{sphinx.DefaultEnhanceBelowSNR, sphinx.DefaultEnhanceAboveBackground}},
		{v: "auto,0.1", on: true, gate: enhanceGate{sphinx.DefaultEnhanceBelowSNR, sphinx.DefaultEnhanceAboveBackground}},
		{v: "off", gate: enhanceGate{belowSNR: -1, aboveBackground: noBackgroundGate}},
		{v: "on", on: true, gate: enhanceGate{belowSNR: sphinx.MaxEnhanceBelowSNR, aboveBackground: noBackgroundGate}},
		{v: "on,0.1", on: true, gate: enhanceGate{belowSNR: sphinx.MaxEnhanceBelowSNR, aboveBackground: noBackgroundGate}},
		{v: "50", on: true, gate: enhanceGate{belowSNR: 50, aboveBackground: noBackgroundGate}},
		{v: "50,0", on: true, gate: enhanceGate{belowSNR: 50, aboveBackground: noBackgroundGate}},
		{v: ",0.1", bad: true},
		{v: "0", bad: true},
		{v: "500", bad: true},
		{v: "on,1", bad: true},
		{v: "on,-0.1", bad: true},
		{v: "on,x", bad: true},
		{v: "yes", bad: true},
	} {
		t.Run(tc.v, func(t *testing.T) {
			e, gate, err := enhanceFromEnv(func(k string) string {
				if k == EnvEnhance {
					return tc.v
				}
				return ""
			})
			if tc.bad {
				assert.ErrorContains(t, err, EnvEnhance)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.on, e != nil)
			assert.Equal(t, tc.gate, gate)
		})
	}
}
