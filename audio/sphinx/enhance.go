package sphinx

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

// enhance returns pcm enhanced by e when the utterance's speech stands
// less than below dB over its quiet frames (quietSNR), else pcm.
func enhance(e Enhancer, pcm []int16, below float64) []int16 {
	out, _ := enhanceAt(e, pcm, quietSNR(pcm), below)
	return out
}

// enhanceAt is enhance of pcm whose quietSNR is snr, with the quietSNR of
// what it returns.
func enhanceAt(e Enhancer, pcm []int16, snr, below float64) ([]int16, float64) {
	if e == nil || below <= 0 || snr >= below {
		return pcm, snr
	}
	out := e.Enhance(nil, pcm)
	return out, quietSNR(out)
}
