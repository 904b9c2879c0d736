//go:build sphinx

package hearing

import (
	"testing"

	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnhanceFromEnv: JIBOD_SPHINX_ENHANCE turns the speech enhancement
// on for every utterance or below a ratio, with the default or a given
// floor, leaves it off unset or off, and refuses anything else naming
// the variable.
func TestEnhanceFromEnv(t *testing.T) {
	for _, tc := range []struct {
		v     string
		on    bool
		below float64
		bad   bool
	}{
		{v: ""},
		{v: "off"},
		{v: "on", on: true, below: sphinx.MaxEnhanceBelowSNR},
		{v: "on,0.1", on: true, below: sphinx.MaxEnhanceBelowSNR},
		{v: "50", on: true, below: 50},
		{v: "50,0", on: true, below: 50},
		{v: "0", bad: true},
		{v: "500", bad: true},
		{v: "on,1", bad: true},
		{v: "on,-0.1", bad: true},
		{v: "on,x", bad: true},
		{v: "yes", bad: true},
	} {
		t.Run(tc.v, func(t *testing.T) {
			e, below, err := enhanceFromEnv(func(k string) string {
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
			assert.Equal(t, tc.below, below)
		})
	}
}
