package sphinx

import "github.com/openjibo/jibod/audio"

// Enhancer readies an utterance before the noise suppression: a trained
// speech enhancement (audio/enhance.Filter) that keeps the dominant
// talker and turns down other talkers, music and noise, which the
// stationary suppression (denoise) cannot tell from speech.
type Enhancer interface {
	// Enhance appends pcm enhanced to dst[:0] and returns it.
	Enhance(dst, pcm []int16) []int16
}

// MaxEnhanceBelowSNR bounds Config.EnhanceBelowSNR; at it every
// utterance is enhanced, however clean.
const MaxEnhanceBelowSNR = 200.0

// DefaultEnhanceBelowSNR and DefaultEnhanceAboveBackground are the gates
// Config takes where EnhanceBelowSNR or EnhanceAboveBackground is zero,
// and so the hearing layer's default: utterances that are not
// plainly clean speech and whose background changes its spectral shape
// from frame to frame (backgroundFluctuation) as other talkers and music
// do, rather than steady noise, which the stationary suppression handles
// (docs/hearing.md says where the threshold lies between the two).
const (
	DefaultEnhanceBelowSNR        = 50.0
	DefaultEnhanceAboveBackground = 3.0
)

// MaxEnhanceAboveBackground bounds Config.EnhanceAboveBackground.
const MaxEnhanceAboveBackground = 30.0

// enhanceAt returns pcm, whose quietSNR is snr, enhanced by e when its
// speech stands less than below dB over its quiet frames (none for
// below ≤ 0) and its background fluctuates by at least above dB
// (backgroundFluctuation; above ≤ 0 does not measure it), else pcm; with
// the quietSNR of what it returns.
// It says in v what it measured and did.
func enhanceAt(e Enhancer, pcm []int16, snr, below, above float64, v *audio.Verdict) ([]int16, float64) {
	if e == nil || below <= 0 || snr >= below {
		return pcm, snr
	}
	if above > 0 {
		v.Background = backgroundFluctuation(pcm)
		if v.Background < above {
			return pcm, snr
		}
	}
	v.Enhanced = true
	out := e.Enhance(nil, pcm)
	return out, quietSNR(out)
}
