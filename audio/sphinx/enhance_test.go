package sphinx

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/openjibo/jibod/audio"

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
// when its speech stands under the configured ratio over its quiet frames
// and, with a background gate, only when its background fluctuates (other
// talkers) rather than holds still (steady noise); never when it is off
// or absent. The verdict says what was measured and done.
func TestEnhanceRunsBelowItsSNR(t *testing.T) {
	noisy, _ := noisyTone(5)
	clean, _ := noisyTone(40)
	talkers := withSpeech(babbleLike(rand.New(rand.NewPCG(7, 8)), 3*audio.SampleRate, 1000))
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
		above   float64
		nilEnh  bool
		changed bool
	}{
		{"noisy, under the ratio", noisy, 20, 0, false, true},
		{"clean, over the ratio", clean, 20, 0, false, false},
		{"clean, every utterance", clean, MaxEnhanceBelowSNR, 0, false, true},
		{"steady noise, background gate", noisy, DefaultEnhanceBelowSNR, DefaultEnhanceAboveBackground, false, false},
		{"other talkers, background gate", talkers, DefaultEnhanceBelowSNR, DefaultEnhanceAboveBackground, false, true},
		{"off", noisy, -1, 0, false, false},
		{"no enhancer", noisy, MaxEnhanceBelowSNR, 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &halver{}
			var e Enhancer = h
			if tc.nilEnh {
				e = nil
			}
			var v audio.Verdict
			out, _ := enhanceAt(e, tc.pcm, quietSNR(tc.pcm), tc.below, tc.above, &v)
			assert.Equal(t, tc.changed, v.Enhanced)
			if tc.above > 0 && !tc.nilEnh {
				assert.Positive(t, v.Background, "the background was measured")
			}
			if tc.changed {
				assert.True(t, slices.Equal(halved(tc.pcm), out), "enhanced")
				assert.Equal(t, 1, h.calls)
			} else {
				assert.True(t, slices.Equal(tc.pcm, out), "left as it was")
				assert.Zero(t, h.calls)
			}
		})
	}
}

// steadyNoise is n samples of white noise of the given rms, low-passed
// (a one-pole filter with coefficient a; 0 leaves it white).
func steadyNoise(r *rand.Rand, n int, level, a float64) []int16 {
	x := make([]float64, n)
	var y float64
	for i := range x {
		y = a*y + (1-a)*r.NormFloat64()
		x[i] = y
	}
	return scaled(x, level)
}

// babbleLike is n samples of talkers' babble at the given rms: three
// voices of voiced syllables of 100 to 300 ms, each with its own pitch and
// vowel resonance, and gaps between them.
func babbleLike(r *rand.Rand, n int, level float64) []int16 {
	x := make([]float64, n)
	for range 3 {
		voice(r, x)
	}
	return scaled(x, level)
}

// voice adds one talker's syllables to x.
func voice(r *rand.Rand, x []float64) {
	n := len(x)
	for i := r.IntN(200) * audio.SampleRate / 1000; i < n; {
		syl := (100 + r.IntN(200)) * audio.SampleRate / 1000
		pitch := 90 + 150*r.Float64()
		formant := 300 + 2500*r.Float64()
		for j := 0; j < syl && i+j < n; j++ {
			tt := float64(j) / audio.SampleRate
			var v float64
			for h := 1; float64(h)*pitch < 7000; h++ {
				f := float64(h) * pitch
				// one resonance: harmonics near the formant loud, others soft
				v += math.Exp(-math.Abs(f-formant)/300) * math.Sin(2*math.Pi*f*tt)
			}
			x[i+j] += v * math.Sin(math.Pi*float64(j)/float64(syl))
		}
		i += syl + r.IntN(120)*audio.SampleRate/1000
	}
}

// amNoise is white noise whose level swings at rate Hz, fully.
func amNoise(r *rand.Rand, n int, level, rate float64) []int16 {
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64() * (0.5 + 0.5*math.Sin(2*math.Pi*rate*float64(i)/audio.SampleRate))
	}
	return scaled(x, level)
}

func scaled(x []float64, level float64) []int16 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	k := level / math.Sqrt(ss/float64(len(x))+1e-12)
	out := make([]int16, len(x))
	for i, v := range x {
		out[i] = int16(max(-32768, min(32767, math.Round(v*k))))
	}
	return out
}

// withSpeech adds a louder talker's second to bg's middle, as an
// utterance over a background is.
func withSpeech(bg []int16) []int16 {
	x := make([]float64, audio.SampleRate)
	voice(rand.New(rand.NewPCG(1, 2)), x)
	talker := scaled(x, 8000)
	out := append([]int16(nil), bg...)
	at := (len(out) - len(talker)) / 2
	for i, v := range talker {
		out[at+i] = int16(max(-32768, min(32767, int(out[at+i])+int(v))))
	}
	return out
}

// TestBackgroundFluctuation: steady noise, white or low-passed, loud or
// soft, with or without speech over it, and digital silence measure under
// the default gate; a talker-like background (syllables of changing
// pitch and resonance, and gaps) measures over it. A steady noise whose
// level alone swings at a syllable rate keeps its spectral shape and
// measures as steady: the stationary suppression follows it.
func TestBackgroundFluctuation(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 3 * audio.SampleRate
	for _, tc := range []struct {
		name   string
		pcm    []int16
		steady bool
	}{
		{"digital silence", make([]int16, n), true},
		{"white noise", steadyNoise(r, n, 1000, 0), true},
		{"soft low-passed noise", steadyNoise(r, n, 30, 0.9), true},
		{"brown-ish noise", steadyNoise(r, n, 1000, 0.99), true},
		{"speech over white noise", withSpeech(steadyNoise(r, n, 1000, 0)), true},
		{"speech over low-passed noise", withSpeech(steadyNoise(r, n, 300, 0.9)), true},
		{"noise swinging at 4 Hz", amNoise(r, n, 1000, 4), true},
		{"talker-like background", babbleLike(r, n, 1000), false},
		{"soft talker-like background", babbleLike(r, n, 30), false},
		{"speech over a talker-like background", withSpeech(babbleLike(r, n, 1000)), false},
		{"too short to measure", babbleLike(r, 2000, 1000), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := backgroundFluctuation(tc.pcm)
			if tc.steady {
				assert.Less(t, m, DefaultEnhanceAboveBackground)
			} else {
				assert.Greater(t, m, DefaultEnhanceAboveBackground)
			}
		})
	}
}
