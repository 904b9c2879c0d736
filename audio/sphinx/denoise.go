package sphinx

import (
	"cmp"
	"math"
	"math/cmplx"
	"slices"
	"sync"

	"github.com/openjibo/jibod/audio/internal/fft"
)

// DefaultDenoiseBelowSNR is the signal-to-noise ratio (dB, the loud
// tenth of an utterance's 10 ms frames over its quiet tenth) under which
// the recogniser suppresses the utterance's noise before decoding, with
// Debian's model; AdaptedDenoiseBelowSNR is Adapt's, which the adapted
// model records (Provenance). Other talkers and music fall silent between
// their words and notes, and those gaps are the quiet tenth: the ratio
// cannot tell a room of talkers from a quiet one, so the default reaches
// up to where such backgrounds end, short of clean speech. Chosen on the
// tuning sets (docs/hearing.md says what each background measures and
// what the threshold gained). Adapted models, which learn from the
// suppressed recordings, record their own.
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
	// speech, shallower leaves more of the noise. Chosen with models
	// adapted to each floor (docs/hearing.md).
	denoiseFloor = 0.15
	// denoiseAlpha weighs the decision-directed a priori SNR estimate
	// towards the previous frame's clean speech, which smooths the gain
	// over time; less smoothing lost commands and wake phrases
	// (docs/hearing.md).
	denoiseAlpha = 0.98
)

// plans keeps the FFT plans and windows of the fixed lengths this package
// transforms (denoiseN, bgN), worked out once rather than for every
// utterance. It holds only read-only tables of a few fixed sizes, and is safe for
// concurrent use, so the package's recognisers share it.
var plans fft.Cache

// denoiseAt returns pcm, whose quietSNR is snr, with its stationary
// noise suppressed when the utterance's speech stands less than maxSNR
// dB over its quiet frames; otherwise, and for pcm too short to learn the
// noise from, pcm itself.
func denoiseAt(pcm []int16, snr, maxSNR float64) []int16 {
	if maxSNR <= 0 || len(pcm) < 8*denoiseN || snr >= maxSNR {
		return pcm
	}
	// Analysis and synthesis windows whose product sums to one at a
	// half-frame hop.
	win := plans.SqrtHann(denoiseN)
	frames := (len(pcm)-denoiseN)/denoiseHop + 1
	bins := denoiseN/2 + 1
	s, _ := denoisePool.Get().(*denoiseScratch)
	if s == nil {
		s = new(denoiseScratch)
	}
	defer denoisePool.Put(s)
	spec := grow(&s.spec, frames)
	power := grow(&s.power, frames)
	clear(power)
	// Every frame's spectrum is kept (the noise is learnt from all of
	// them): one buffer for all, each frame's written whole before it is
	// read.
	all := grow(&s.all, frames*denoiseN)
	plan := plans.MustPlan(denoiseN)
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
	order := grow(&s.order, frames)
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
	out := grow(&s.out, len(pcm))
	clear(out)
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

// denoiseScratch is denoiseAt's working memory, kept between utterances
// (an utterance's spectra are about 8 KB a frame).
type denoiseScratch struct {
	all   []complex128
	spec  [][]complex128
	power []float64
	order []int
	out   []float64
}

var denoisePool sync.Pool

// grow sets *s to length n, reusing its memory when it is enough, and
// returns it; what it held is left as it was.
func grow[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	*s = (*s)[:n]
	return *s
}

func sqAbs(c complex128) float64 { return real(c)*real(c) + imag(c)*imag(c) }
