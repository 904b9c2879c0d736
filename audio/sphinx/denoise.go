package sphinx

import (
	"cmp"
	"math"
	"math/cmplx"
	"slices"

	"github.com/openjibo/jibod/audio/internal/fft"
)

// DefaultDenoiseBelowSNR is the signal-to-noise ratio (dB, the loud
// tenth of an utterance's 10 ms frames over its quiet tenth) under which
// the recogniser suppresses the utterance's noise before decoding, with
// Debian's model; AdaptedDenoiseBelowSNR is Adapt's, which the adapted
// model records (Provenance). Files of the test sets mixed with pink
// noise at 3, 5, 10 and 20 dB measure about 7, 8.5, 13 and 22 this way;
// a command cut out of two or four talkers' babble or music at 10 dB
// measures 13 to 30, because the other talkers fall silent between their
// words and those gaps are the quiet tenth: the ratio cannot tell a room
// of talkers from a quiet one. So the default suppresses everything that
// measures under 30, where the babble ends; clean synthetic speech over
// digital silence measures 60 and more. Chosen on the tuning sets
// (docs/hearing.md), wake word detector, Debian's model, against the
// former 10: on the tuning set (pink noise) as many commands right and
// fewer acted on wrongly, on its babble and music twin
// (gen-hearing-devset.sh --tune) more than twice as many right. Adapted
// models, which learn from the suppressed recordings, record their own.
const (
	DefaultDenoiseBelowSNR = 30.0
	AdaptedDenoiseBelowSNR = 15.0
)

// MaxDenoiseBelowSNR bounds Config.DenoiseBelowSNR.
const MaxDenoiseBelowSNR = 40.0

// Noise suppression: a short-time spectral (Wiener) gain against the
// utterance's own stationary noise, learnt from its quietest frames.
const (
	denoiseN   = 512 // 32 ms at 16 kHz
	denoiseHop = denoiseN / 2
	// denoiseFloor is the least gain: deeper suppression leaves isolated
	// spectral peaks ("musical noise") that the acoustic model takes for
	// speech. Its people enrolled (models adapted with each floor), four
	// draws, both tuning sets: floors of 0.08, 0.15 and 0.3 gave 2137,
	// 2149 and 2149 right commands of 2304, wake 1302, 1307 and 1311 of
	// 1344, everyday speech taken for a command 23, 23 and 26 of 896.
	denoiseFloor = 0.15
	// denoiseAlpha weighs the decision-directed a priori SNR estimate
	// towards the previous frame's clean speech, which smooths the gain.
	// Measured as the floor was: 0.9 gave 2135 right commands against
	// 2149 and wake 1284 against 1307 (everyday speech 17 against 23).
	denoiseAlpha = 0.98
)

// denoiseAt returns pcm, whose quietSNR is snr, with its stationary
// noise suppressed when the utterance's speech stands less than maxSNR
// dB over its quiet frames; otherwise, and for pcm too short to learn the
// noise from, pcm itself.
func denoiseAt(pcm []int16, snr, maxSNR float64) []int16 {
	if maxSNR <= 0 || len(pcm) < 8*denoiseN || snr >= maxSNR {
		return pcm
	}
	win := make([]float64, denoiseN)
	for i := range win {
		// sqrt of a periodic Hann: analysis and synthesis windows whose
		// product sums to one at a half-frame hop.
		win[i] = math.Sqrt(0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/denoiseN))
	}
	frames := (len(pcm)-denoiseN)/denoiseHop + 1
	bins := denoiseN/2 + 1
	spec := make([][]complex128, frames)
	power := make([]float64, frames)
	// Every frame's spectrum is kept (the noise is learnt from all of
	// them): one allocation for all.
	all := make([]complex128, frames*denoiseN)
	plan := fft.MustNew(denoiseN)
	for f := range frames {
		buf := all[f*denoiseN : (f+1)*denoiseN : (f+1)*denoiseN]
		for i := range buf {
			buf[i] = complex(float64(pcm[f*denoiseHop+i])*win[i], 0)
		}
		plan.Forward(buf)
		spec[f] = buf
		for k := range bins {
			power[f] += real(buf[k])*real(buf[k]) + imag(buf[k])*imag(buf[k])
		}
	}
	// The noise's spectrum: the mean over the quietest fifth of frames.
	order := make([]int, frames)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(power[a], power[b]) })
	quiet := order[:max(4, frames/5)]
	noise := make([]float64, bins)
	for _, f := range quiet {
		for k := range bins {
			noise[k] += sqAbs(spec[f][k])
		}
	}
	for k := range noise {
		noise[k] = noise[k]/float64(len(quiet)) + 1e-9
	}
	out := make([]float64, len(pcm))
	prev := make([]float64, bins) // previous frame's clean power / noise
	for f := range frames {
		buf := spec[f]
		for k := range bins {
			gamma := sqAbs(buf[k]) / noise[k]
			xi := denoiseAlpha*prev[k] + (1-denoiseAlpha)*max(gamma-1, 0)
			g := max(xi/(1+xi), denoiseFloor)
			prev[k] = g * g * gamma
			buf[k] *= complex(g, 0)
			if k > 0 && k < denoiseN/2 {
				buf[denoiseN-k] = cmplx.Conj(buf[k])
			}
		}
		plan.Inverse(buf)
		for i := range denoiseN {
			out[f*denoiseHop+i] += real(buf[i]) * win[i]
		}
	}
	res := make([]int16, len(pcm))
	for i, v := range out {
		// The first and last half frames have one window only: keep
		// them as they were rather than faded.
		if i < denoiseHop || i >= (frames-1)*denoiseHop+denoiseN-denoiseHop {
			v = float64(pcm[i])
		}
		res[i] = int16(max(-32768, min(32767, math.Round(v))))
	}
	return res
}

// quietSNR is what the noise suppression is gated on: the level of the
// loud tenth of pcm's 10 ms frames over its quiet tenth, in dB (0 for
// pcm shorter than two frames).
func quietSNR(pcm []int16) float64 {
	db := frameLevels(pcm)
	n := len(db)
	if n < 2 {
		return 0
	}
	slices.Sort(db)
	return db[n*9/10] - db[n/10]
}

func sqAbs(c complex128) float64 { return real(c)*real(c) + imag(c)*imag(c) }
