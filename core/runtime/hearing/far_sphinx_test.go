//go:build sphinx

package hearing

import (
	"testing"

	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFarFromEnv(t *testing.T) {
	tests := []struct {
		value string
		want  *sphinx.Far
		err   string
	}{
		{value: "", want: &sphinx.DefaultFar},
		{value: "off"},
		{value: "3,0.85", want: &sphinx.Far{MinReverb: 3, MinConfidence: 0.85}},
		{value: " 2 , 0 ", want: &sphinx.Far{MinReverb: 2}},
		{value: "2", err: `JIBOD_SPHINX_FAR="2": want off or REVERB,CONFIDENCE`},
		{value: "0,0.8", err: "want off or REVERB,CONFIDENCE"},
		{value: "61,0.8", err: "reverberation in (0, 60] dB"},
		{value: "2,1.5", err: "confidence in [0, 1]"},
		{value: "2,NaN", err: "want off or REVERB,CONFIDENCE"},
		{value: "on", err: "want off or REVERB,CONFIDENCE"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			f, err := farFromEnv(func(k string) string {
				if k == EnvFar {
					return tt.value
				}
				return ""
			})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				assert.Nil(t, f)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f)
		})
	}
}
