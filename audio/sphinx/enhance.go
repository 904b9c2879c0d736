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

// MaxEnhanceBelowSNR bounds Config.EnhanceBelowSNR: clean synthetic
// speech over digital silence measures 60 dB and more, so this enhances
// every utterance.
const MaxEnhanceBelowSNR = 200.0

// DefaultEnhanceBelowSNR and DefaultEnhanceAboveBackground are the gates
// the hearing layer enhances with by default: utterances whose speech
// stands less than 50 dB over their quiet frames (not plainly clean
// speech, which measures 60 and more) and whose background changes its
// spectral shape by 3 dB or more from frame to frame
// (backgroundFluctuation): other talkers, whose utterances measured 3.7
// to 8 dB, and most music, rather than steady noise, measured 1.3 to 2.4,
// which the stationary suppression handles; 3 is midway.
const (
	DefaultEnhanceBelowSNR        = 50.0
	DefaultEnhanceAboveBackground = 3.0
)

// MaxEnhanceAboveBackground bounds Config.EnhanceAboveBackground.
const MaxEnhanceAboveBackground = 30.0

// enhance returns pcm enhanced by e when the utterance's speech stands
// less than below dB over its quiet frames (quietSNR) and its background
// fluctuates by at least above dB (backgroundFluctuation; 0 does not
// measure it), else pcm, and says in v what it measured and did.
func enhance(e Enhancer, pcm []int16, below, above float64, v *audio.Verdict) []int16 {
	if e == nil || below <= 0 || quietSNR(pcm) >= below {
		return pcm
	}
	if above > 0 {
		v.Background = backgroundFluctuation(pcm)
		if v.Background < above {
			return pcm
		}
	}
	v.Enhanced = true
	return e.Enhance(nil, pcm)
}
