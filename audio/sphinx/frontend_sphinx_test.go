//go:build sphinx

package sphinx

import (
	"context"
	"testing"
	"unsafe"

	"github.com/openjibo/jibod/audio/sphinx/internal/pstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFeatureArgumentsReachTheDecoder: arguments the model's feat.params
// also sets (cepstral mean normalisation, the filter bank's edges) are
// what the decoder runs with, not the model's; without them it runs
// with the model's, and it still recognises.
func TestFeatureArgumentsReachTheDecoder(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		cmn    string
		lowerf float64
	}{
		{"the model's", nil, "batch", 130},
		{"overridden", []string{"-cmn", "live", "-lowerf", "150", "-beam", "1e-50"}, "live", 150},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRecognizer(t, Config{Args: tt.args})
			d, err := r.take(context.Background())
			require.NoError(t, err)
			cmn, lowerf := pstest.Setting(unsafe.Pointer(d.ps), "-cmn"), pstest.FloatSetting(unsafe.Pointer(d.ps), "-lowerf")
			r.give(d)
			assert.Equal(t, tt.cmn, cmn)
			assert.InDelta(t, tt.lowerf, lowerf, 1e-3)
			h, err := r.Recognize(context.Background(), speak(t, "what time is it"))
			require.NoError(t, err)
			assert.Equal(t, "what time is it", best(h))
		})
	}
}

// TestResetNoiseRecognises: with the noise subtraction started afresh on
// every utterance, utterances one after another are still recognised.
func TestResetNoiseRecognises(t *testing.T) {
	r := newTestRecognizer(t, Config{ResetNoise: true})
	for _, text := range []string{"what time is it", "how are you"} {
		h, err := r.Recognize(context.Background(), speak(t, text))
		require.NoError(t, err)
		assert.Equal(t, text, best(h))
	}
}
