package sphinx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// halver is an Enhancer that halves every sample and counts its calls.
type halver struct{ calls int }

func (h *halver) Enhance(dst, pcm []int16) []int16 {
	h.calls++
	dst = dst[:0]
	for _, v := range pcm {
		dst = append(dst, v/2)
	}
	return dst
}

// TestEnhanceRunsBelowItsSNR: the enhancement readies an utterance only
// when its speech stands under the configured ratio over its quiet frames,
// and never when it is off or absent.
func TestEnhanceRunsBelowItsSNR(t *testing.T) {
	noisy, _ := noisyTone(5)
	clean, _ := noisyTone(40)
	halved := func(pcm []int16) []int16 {
		out := make([]int16, len(pcm))
		for i, v := range pcm {
			out[i] = v / 2
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		pcm     []int16
		below   float64
		nilEnh  bool
		changed bool
	}{
		{"noisy, under the ratio", noisy, 20, false, true},
		{"clean, over the ratio", clean, 20, false, false},
		{"clean, every utterance", clean, MaxEnhanceBelowSNR, false, true},
		{"off", noisy, 0, false, false},
		{"no enhancer", noisy, MaxEnhanceBelowSNR, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &halver{}
			var e Enhancer = h
			if tc.nilEnh {
				e = nil
			}
			out := enhance(e, tc.pcm, tc.below)
			if tc.changed {
				assert.Equal(t, halved(tc.pcm), out)
				assert.Equal(t, 1, h.calls)
			} else {
				assert.Equal(t, tc.pcm, out)
				assert.Zero(t, h.calls)
			}
		})
	}
}
